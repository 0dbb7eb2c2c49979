/**
 * The package from the outside, as a user gets it: `npm pack` (of the dist/ that `npm test` built
 * first; nothing is rebuilt here), install the tarball into a scratch project offline, type-check
 * the README's TypeScript examples with this repository's tsc under strict settings (library
 * checks on, so the shipped .d.ts must stand alone), and run them: the fixture test with
 * `node --test`, and the client script against a fixture from the installed package.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'test/lib/examples');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const TIMEOUT = 240_000;

/** The environment without npm's per-script settings (npm test exports many npm_* variables). */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])),
  );
}

let tmp: string;
let project: string;

beforeAll(async () => {
  for (const built of [
    'dist/lib/index.js',
    'dist/lib/emulator.js',
    'dist/types/lib/index.d.ts',
    'dist/types/lib/emulator.d.ts',
  ]) {
    if (!existsSync(join(ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (npm test does)`);
  }
  tmp = mkdtempSync(join(tmpdir(), 'mq-pack-'));
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], {
    cwd: ROOT,
    env: cleanEnv(),
    extendEnv: false,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = info?.files.map((f) => f.path) ?? [];
  expect(files).toContain('dist/lib/index.js');
  expect(files).toContain('dist/types/lib/emulator.d.ts');
  project = join(tmp, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  const tarball = join(tmp, info?.filename ?? '');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  if (Object.keys(pkg.dependencies ?? {}).length === 0) {
    await execa(
      'npm',
      ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', tarball],
      {
        cwd: project,
        env: cleanEnv(),
        extendEnv: false,
      },
    );
  } else {
    // While the CLI still lists runtime dependencies, an offline install would have to fetch them;
    // unpack the tarball as npm would instead. The library bundles need none of them, which this
    // proves too: they are absent here.
    const dest = join(project, 'node_modules/mq-cli');
    mkdirSync(dest, { recursive: true });
    await execa('tar', ['-xzf', tarball, '-C', dest, '--strip-components=1']);
  }
  copyFileSync(join(EXAMPLES, 'merge.example.ts'), join(project, 'merge.ts'));
  copyFileSync(join(EXAMPLES, 'merge-bot.example.ts'), join(project, 'merge-bot.test.ts'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        outDir: 'out',
      },
      include: ['*.ts'],
    }),
  );
}, TIMEOUT);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed package', () => {
  it(
    'type-checks the examples strictly and compiles them',
    async () => {
      const result = await execa(process.execPath, [TSC, '-p', project], { cwd: project, reject: false });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'a type error in user code against the shipped types is reported (the check has teeth)',
    async () => {
      const bad = join(project, 'bad');
      mkdirSync(bad, { recursive: true });
      writeFileSync(
        join(bad, 'bad.ts'),
        "import { MergeQueueClient } from 'mq-cli';\nconst c = new MergeQueueClient({ apiUrl: 'http://x/v1', token: 't' });\nawait c.submitPullRequest({ repo: 'acme/app', targetBranch: 'main', pr: { number: 1 } });\n",
      );
      writeFileSync(
        join(bad, 'tsconfig.json'),
        JSON.stringify({
          extends: '../tsconfig.json',
          compilerOptions: { noEmit: true, skipLibCheck: true },
          include: ['bad.ts'],
        }),
      );
      const result = await execa(process.execPath, [TSC, '-p', bad], { cwd: project, reject: false });
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).toMatch(
        /bad\.ts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'RepoRef'/,
      );
    },
    TIMEOUT,
  );

  it(
    'runs the fixture example with node --test: start, submit through the client, advance, merge, stop',
    async () => {
      // TAP on every version: Node 23+ defaults to the spec reporter in a pipe.
      const args = ['--test', '--test-reporter=tap', 'out/merge-bot.test.js'];
      const result = await execa(process.execPath, args, {
        cwd: project,
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
      });
      expect(result.stdout).toMatch(/^# pass 2$/m);
      expect(result.stdout).toMatch(/^# fail 0$/m);
      expect(result.exitCode).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'runs the client example against a fixture from the installed package',
    async () => {
      const fixture = (await import(
        pathToFileURL(join(project, 'node_modules/mq-cli/dist/lib/emulator.js')).href
      )) as typeof import('../../src/lib/emulator.js');
      const emu = await fixture.startEmulator({ clock: 'manual' });
      try {
        const setup = await execa(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import { MergeQueueClient } from 'mq-cli'; const c = new MergeQueueClient({ apiUrl: process.env.MQ_API_URL, token: process.env.MQ_TOKEN }); await c.createQueue({ repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' });`,
          ],
          {
            cwd: project,
            env: { PATH: process.env.PATH ?? '', MQ_API_URL: emu.url, MQ_TOKEN: emu.token },
            extendEnv: false,
          },
        );
        expect(setup.exitCode).toBe(0);
        const child = execa(process.execPath, ['out/merge.js', '42'], {
          cwd: project,
          env: { PATH: process.env.PATH ?? '', MQ_API_URL: emu.url, MQ_TOKEN: emu.token },
          extendEnv: false,
          reject: false,
        });
        await new Promise<void>((resolve, reject) => {
          let seen = '';
          child.stdout?.on('data', (d: Buffer) => {
            seen += d.toString();
            if (seen.includes('PR #42: testing\n')) resolve();
          });
          void child.then((r) =>
            reject(new Error(`the example ended first (exit ${r.exitCode}): ${r.stdout}${r.stderr}`)),
          );
        });
        await emu.advance(10);
        const result = await child;
        expect(result.stdout).toBe('PR #42: testing\nPR #42: merged');
        expect(result.exitCode).toBe(0);
      } finally {
        await emu.stop();
      }
    },
    TIMEOUT,
  );
});

describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  it('shows the examples this test runs, word for word', () => {
    for (const file of ['merge.example.ts', 'merge-bot.example.ts']) {
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      expect(readme, `README shows test/lib/examples/${file}`).toContain(`\`\`\`ts\n${text}\`\`\`\n`);
    }
  });
});
