// Regenerates completions/mq.{bash,zsh,fish} from the built CLI (`npm run completions`).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const files = { bash: 'completions/mq.bash', zsh: 'completions/mq.zsh', fish: 'completions/mq.fish' };
for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, ['bin/mq.js', 'completion', shell], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  writeFileSync(file, script);
  console.log(`wrote ${file}`);
}
