/**
 * What a command line loads (issue 18 item 2): the built binary runs with a preload that records
 * every bundle the CLI's loader (src/boot/bundles.ts) loads; esbuild's metafile of the build
 * (written by scripts/build.mjs) says which sources each bundle holds. The commands live in the core
 * bundle, each evaluated only when named (test/unit/command-table.test.ts); a static import of a
 * heavy library or the HTTP layer where it is not needed puts its source into a loaded bundle, and
 * this fails.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import * as nodeModule from 'node:module';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { BIN, baseEnv, runCli, tempDir } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const META = resolve(ROOT, 'node_modules/.cache/mq-build/meta.json');
const HOOK = resolve(import.meta.dirname, '../helpers/record-loads.cjs');

interface Loaded {
  files: string[];
  /** Per file: how the code cache served it (hit, miss, rejected, off). */
  cache: string[];
  /** Node's built-in modules the process loaded (internal ones included). */
  builtins: string[];
  sources: string[];
  /** Node's own compile cache directory at exit ('' when off). */
  nodeCache: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

async function loadsOf(
  args: string[],
  env: Record<string, string | undefined> = baseEnv(),
  cacheDir = tempDir('mq-v8-'),
  stdoutFile?: string,
): Promise<Loaded> {
  const meta = JSON.parse(readFileSync(META, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const log = resolve(tempDir('mq-loads-'), 'loads.txt');
  const argv = ['--require', HOOK, BIN, ...args];
  const options = { env: { ...env, MQ_LOAD_LOG: log, MQ_COMPILE_CACHE_DIR: cacheDir }, cwd: tempDir('mq-cwd-') };
  let r: { stdout: string; stderr: string; exitCode?: number };
  if (stdoutFile) {
    // The child's own file descriptors: execa's `{ file }` would still hand it a pipe.
    const fds = [openSync(stdoutFile, 'w'), openSync(`${stdoutFile}.err`, 'w')] as const;
    const child = spawnSync(process.execPath, argv, { ...options, stdio: ['ignore', fds[0], fds[1]] });
    for (const fd of fds) closeSync(fd);
    const stderr = readFileSync(`${stdoutFile}.err`, 'utf8');
    r = { stdout: readFileSync(stdoutFile, 'utf8').replace(/\n$/, ''), stderr, exitCode: child.status ?? -1 };
  } else {
    r = await execa(process.execPath, argv, { ...options, extendEnv: false, reject: false, stdin: 'ignore' });
  }
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t') as [string, string]);
  const files = lines.map(([file]) => relative(ROOT, file));
  const sources = files.flatMap((f) => {
    const out = meta.outputs[f];
    if (!out) throw new Error(`${f} is not in the build's metafile: rebuild (npm run build)`);
    return Object.keys(out.inputs);
  });
  const builtins = readFileSync(`${log}.builtins`, 'utf8').split('\n').filter(Boolean);
  return {
    files,
    builtins,
    cache: lines.map(([, cache]) => cache),
    sources: [...new Set(sources)].sort(),
    nodeCache: readFileSync(`${log}.node-cache`, 'utf8'),
    stdout: r.stdout,
    stderr: r.stderr,
    exitCode: r.exitCode ?? -1,
  };
}

/** The packages every command line loads with the presenter: the command parser, colours, the prompt reader. */
const LIGHT = ['chalk', 'commander', 'mute-stream', 'read'];
const packages = (l: Loaded) =>
  [...new Set(l.sources.flatMap((s) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(s)?.[1] ?? []))].sort();

/** Pure checks of the connection settings (no client, no validation library). */
const PURE_API = ['src/api/connection-checks.ts', 'src/api/api-choice.ts'];

describe('what a command line loads', { timeout: 60_000 }, () => {
  beforeAll(() => {
    if (!existsSync(META)) throw new Error(`${META} is missing: run npm run build`);
  });

  it('mq --help: the core bundle only, no API client, no validation or table library', async () => {
    const l = await loadsOf(['--help']);
    expect(l.exitCode).toBe(0);
    expect(l.stdout).toContain('Usage: mq [options] [command]');
    expect(l.files).toEqual(['dist/cli.cjs']);
    // Help to a pipe (execa's): written with writeSync, no stream objects (output/fd-write.ts).
    expect(l.builtins.filter((m) => /^(net|tty|stream|internal\/streams\/writable)$/.test(m))).toEqual([]);
    // Output to a file (execa's pipe is a socket, which would load node:net itself): no terminal or
    // socket code (node:tty loads node:net), no readline, no stdin stream.
    const out = resolve(tempDir('mq-out-'), 'help.txt');
    const cacheDir = tempDir('mq-v8-');
    const toFile = await loadsOf(['--help'], baseEnv(), cacheDir, out);
    expect(toFile.stdout).toBe(l.stdout);
    expect(toFile.builtins.filter((m) => /^(net|tty|readline|stream|internal\/fs\/streams)$/.test(m))).toEqual([]);
    // From the cache: node:crypto checks the cache's HMAC, and loads node:stream; nothing else of these.
    const hit = await loadsOf(['--help'], baseEnv(), cacheDir, out);
    expect([hit.cache, hit.stdout]).toEqual([['hit'], l.stdout]);
    expect(hit.builtins.filter((m) => /^(net|tty|readline|internal\/fs\/streams)$/.test(m))).toEqual([]);
    expect(packages(l)).toEqual(LIGHT);
    // The settings checks are pure and small (the vocabulary is src/domain's); the client is not loaded.
    expect(l.sources.filter((s) => s.startsWith('src/api/') && !PURE_API.includes(s))).toEqual([]);
  });

  it('the second run of a command line compiles every bundle from the code cache the first one left', async () => {
    const cacheDir = tempDir('mq-v8-');
    const first = await loadsOf(['--help'], baseEnv(), cacheDir);
    const second = await loadsOf(['--help'], baseEnv(), cacheDir);
    expect(first.cache).toEqual(['miss']);
    expect(second.cache).toEqual(['hit']);
    expect(second.stdout).toBe(first.stdout);
    const off = await loadsOf(['--help'], { ...baseEnv(), MQ_NO_COMPILE_CACHE: '1' }, cacheDir);
    expect([off.cache, off.stdout]).toEqual([['off'], first.stdout]);
  });

  // Issue 27 point 3: Node's compile cache (22.1+) checks a cache against its source, not who wrote
  // it, so a file planted in its directory would run (bench/RESULTS.md); every Node line uses mq's.
  it("on every Node line the bundles run from mq's code cache, never Node's; NODE_DISABLE_COMPILE_CACHE turns it off", async () => {
    const cacheDir = tempDir('mq-v8-');
    const first = await loadsOf(['--help'], baseEnv(), cacheDir);
    const second = await loadsOf(['--help'], baseEnv(), cacheDir);
    expect([first.cache, second.cache, first.nodeCache, second.nodeCache]).toEqual([['miss'], ['hit'], '', '']);
    for (const value of ['1', '0']) {
      const off = await loadsOf(['--help'], { ...baseEnv(), NODE_DISABLE_COMPILE_CACHE: value }, cacheDir);
      expect([off.cache, off.nodeCache, off.stdout]).toEqual([['off'], '', first.stdout]);
    }
  });

  it.runIf(typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function')(
    "NODE_COMPILE_CACHE (the user's): Node caches mq's entry files there, never a bundle",
    async () => {
      const nodeDir = tempDir('mq-node-cache-');
      const env = { ...baseEnv(), NODE_COMPILE_CACHE: nodeDir, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
      const cacheDir = tempDir('mq-v8-');
      await loadsOf(['--help'], env, cacheDir);
      const r = await loadsOf(['--help'], env, cacheDir);
      expect([r.exitCode, r.cache, r.nodeCache.startsWith(nodeDir)]).toEqual([0, ['hit'], true]);
      // Node's debug lines name each file its cache serves: dist/main.cjs, not a bundle.
      expect(r.stderr).toContain(resolve(ROOT, 'dist/main.cjs'));
      expect(r.stderr).not.toMatch(/dist\/(cli|lazy\/)/);
    },
  );

  it('planted, foreign or corrupt caches, a linked or open cache directory: the same output, nothing planted runs', async () => {
    const root = tempDir('mq-v8-');
    const cacheDir = join(root, 'v8');
    const env = baseEnv();
    const first = await loadsOf(['--help'], env, cacheDir);
    const [name] = readdirSync(cacheDir) as [string];
    const good = readFileSync(join(cacheDir, name));
    // Other code as long as dist/cli.cjs, compiled by a plain node as the loader compiles a bundle:
    // V8 checks no more of a cache's source than its length.
    const plant = `
      const { readFileSync, writeFileSync } = require('node:fs');
      const file = ${JSON.stringify(resolve(ROOT, 'dist/cli.cjs'))};
      const code = "process.stdout.write('PLANTED');".padEnd(readFileSync(file, 'utf8').length);
      const wrapped = '(function (exports, require, module, __filename, __dirname) {' + code + '\\n})';
      const script = new (require('node:vm').Script)(wrapped, { filename: file });
      writeFileSync(process.argv[1], script.createCachedData());`;
    const planted = join(root, 'planted.bin');
    const made = spawnSync(process.execPath, ['-e', plant, planted], { encoding: 'utf8' });
    expect([made.status, made.stderr]).toEqual([0, '']);
    const v8 = readFileSync(planted);
    const flipped = Buffer.from(good);
    for (let at = 40; at < flipped.length; at += 997) flipped[at] = (flipped[at] as number) ^ 0xff;
    const foreign = Buffer.concat([createHmac('sha256', randomBytes(32)).update(name).update(v8).digest(), v8]);
    for (const bytes of [v8, foreign, flipped]) {
      writeFileSync(join(cacheDir, name), bytes, { mode: 0o600 });
      const r = await loadsOf(['--help'], env, cacheDir);
      expect([r.exitCode, r.cache, r.stdout]).toEqual([0, ['refused'], first.stdout]);
      expect((await loadsOf(['--help'], env, cacheDir)).cache).toEqual(['hit']);
    }
    // The cache directory a link to one others can write, then under a directory others can write.
    const open = join(root, 'open');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    writeFileSync(join(open, name), v8, { mode: 0o600 });
    renameSync(cacheDir, join(root, 'mine'));
    symlinkSync(open, cacheDir);
    const linked = await loadsOf(['--help'], env, cacheDir);
    expect([linked.exitCode, linked.cache, linked.stdout]).toEqual([0, ['off'], first.stdout]);
    const below = await loadsOf(['--help'], env, join(open, 'v8'));
    expect([below.exitCode, below.cache, below.stdout]).toEqual([0, ['off'], first.stdout]);
    expect(readdirSync(open)).toEqual([name]);
  });

  it('mq queue --help: the core bundle only, no API client', async () => {
    const l = await loadsOf(['queue', '--help']);
    expect(l.exitCode).toBe(0);
    expect(l.stdout).toContain('Usage: mq queue [options] [command]');
    expect(l.files).toEqual(['dist/cli.cjs']);
    expect(packages(l)).toEqual(LIGHT);
  });

  it('an unknown command is refused with a suggestion, nothing loaded beyond the core', async () => {
    const l = await loadsOf(['stauts', '1']);
    expect(l.exitCode).toBe(2);
    expect(l.files).toEqual(['dist/cli.cjs']);
    const r = await runCli(['stauts', '1']);
    expect(r.stderr).toContain('status');
  });

  describe('mq status 1, piped, configured by the environment', () => {
    let emu: EmulatorProcess;
    beforeAll(async () => {
      emu = await startEmulatorProcess(['--clock', 'manual']);
      expect((await runCli(['queue', 'create'], { env: emu.env })).exitCode).toBe(0);
      expect((await runCli(['submit', '1'], { env: emu.env })).exitCode).toBe(0);
    });
    afterAll(async () => {
      await emu?.stop();
    });

    it('loads the core and the client, no table library, no config writer', async () => {
      const l = await loadsOf(['status', '1'], emu.env);
      expect(l.exitCode).toBe(0);
      expect(l.stdout).toMatch(/^pr\t1\n/);
      // The core and dist/lazy/api.cjs (HTTP layer, node transport, client, stats).
      expect(l.files).toEqual(['dist/cli.cjs', 'dist/lazy/api.cjs']);
      // The client's validation library and nothing else beyond the light set; of zod, the mini
      // API's parts only (classic zod, about 190 KB, is the emulator's).
      expect(packages(l).filter((p) => !LIGHT.includes(p))).toEqual(['zod']);
      expect(l.sources.filter((s) => /zod\/v4\/(classic|core\/(to-json-schema|json-schema))/.test(s))).toEqual([]);
      expect(
        l.sources.filter((s) => /^src\/(config\/write|emulator\/|planner\/|completion\/|help\/describe)/.test(s)),
      ).toEqual([]);
      expect(l.sources).toContain('src/api/transport-node.ts');
    });

    it('status keeps code caches of its own: the one --help made lacks what status runs', async () => {
      const cacheDir = join(tempDir('mq-v8-'), 'v8');
      expect((await loadsOf(['--help'], emu.env, cacheDir)).cache).toEqual(['miss']);
      expect((await loadsOf(['status', '1'], emu.env, cacheDir)).cache).toEqual(['miss', 'miss']);
      expect((await loadsOf(['status', '1'], emu.env, cacheDir)).cache).toEqual(['hit', 'hit']);
      expect((await loadsOf(['--help'], emu.env, cacheDir)).cache).toEqual(['hit']);
      const names = readdirSync(cacheDir).map((f) => f.replace(/\.[0-9a-f]{16}-\w+-v[\d.]+-\w+/, ''));
      expect(names.sort()).toEqual(['cli.bin', 'cli.status.bin', 'lazy_api.status.bin']);
    });

    it("an ApiError made in dist/lazy/api.cjs gets the core presenter's exit code and JSON kind", async () => {
      const l = await loadsOf(['--json', 'status', '99'], emu.env);
      expect(l.files).toEqual(['dist/cli.cjs', 'dist/lazy/api.cjs']);
      expect(l.exitCode).toBe(3);
      expect(JSON.parse(l.stdout)).toMatchObject({ error: { kind: 'not-found' } });
    });
  });
});
