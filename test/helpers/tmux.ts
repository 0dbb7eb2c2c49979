/** A private tmux server for real-terminal tests: the built binary in a window of a given size, the screen read back. */
import { execFileSync, spawnSync } from 'node:child_process';
import { BIN } from './run-cli.js';

export const hasTmux = spawnSync('sh', ['-c', 'command -v tmux']).status === 0;

/** `mq <args>` in a tmux window of `cols` x `rows`; the shell then prints its exit code and waits. `kill` ends the server. */
export function terminal(args: string[], cols: number, rows: number, env: Record<string, string | undefined>) {
  const socket = `mq-tty-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const envArgs = Object.entries({ ...env, TERM: 'xterm-256color' })
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`);
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  tmux(
    'new-session',
    '-d',
    '-x',
    String(cols),
    '-y',
    String(rows),
    `env -i ${envArgs.join(' ')} '${process.execPath}' '${BIN}' ${quoted.join(' ')}; echo "exit=$?"; sleep 60`,
  );
  // -J joins lines the terminal wrapped: a too-wide line shows as one long line.
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-');
  return {
    screen,
    kill: () => void spawnSync('tmux', ['-L', socket, 'kill-server']),
    async until(want: RegExp, tries = 300): Promise<string> {
      for (let i = 0; i < tries; i++) {
        const s = screen();
        if (want.test(s)) return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      return screen();
    },
  };
}
