/**
 * The CLI's bundle loader (src/boot/bundles.ts): bundles run as scripts with a V8 code cache that
 * is written once and used after, in a directory that is the user's own; a cache that cannot be
 * used never breaks a load.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  BEFORE_V8_FLAGS,
  type BundleTable,
  bundleLoader,
  commandWords,
  defaultCacheDir,
} from '../../src/boot/bundles.js';
import { tempDir } from '../helpers/run-cli.js';

const require = createRequire(import.meta.url);
// V8 keeps what it compiled in memory and would then not even look at a code cache for the same
// source: each "process" below must compile from the cache file or from scratch, as a new mq does.
setFlagsFromString('--no-compilation-cache');

function fixture() {
  const dist = tempDir('mq-bundles-');
  const cacheDir = join(tempDir('mq-cache-'), 'mq', 'v8');
  writeFileSync(join(dist, 'a.cjs'), 'let n = 0; exports.next = () => ++n; exports.double = (x) => x * 2;');
  mkdirSync(join(dist, 'cmd'));
  writeFileSync(
    join(dist, 'cmd', 'b.cjs'),
    'const a = require("mq:a"); const path = require("node:path"); exports.a = a; exports.sep = path.sep;',
  );
  const bundles: BundleTable = { a: { file: 'a.cjs', hash: 'h1' }, 'cmd/b': { file: 'cmd/b.cjs', hash: 'h2' } };
  const keyDir = join(tempDir('mq-config-'), 'mq');
  const loader = (dir: string | null = cacheDir, variant?: string) =>
    bundleLoader({ dist, bundles, cacheDir: dir, keyDir, require, variant });
  return { dist, cacheDir, keyDir, bundles, loader };
}

describe('bundle loader', () => {
  it('runs a bundle once and resolves mq: requires to the same instance; built-ins go to Node', () => {
    const { loader } = fixture();
    const l = loader(null);
    const a = l.load('a') as { next(): number };
    const b = l.load('cmd/b') as { a: unknown; sep: string };
    expect(b.a).toBe(a);
    expect(b.sep).toBe('/');
    expect([a.next(), (l.load('a') as { next(): number }).next()]).toEqual([1, 2]);
    expect(l.loaded.map((r) => [r.key, r.cache])).toEqual([
      ['a', 'off'],
      ['cmd/b', 'off'],
    ]);
    expect(() => l.load('nope')).toThrow(/no bundle named nope/);
  });

  it('writes a cache at flush (0600 in a 0700 directory) and the next process compiles from it', () => {
    const { cacheDir, loader } = fixture();
    const first = loader();
    first.load('a');
    expect(first.loaded[0]?.cache).toBe('miss');
    first.flush();
    const files = readdirSync(cacheDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(
      new RegExp(`^a\\.h1-\\w+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`),
    );
    expect(statSync(join(cacheDir, files[0] as string)).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const second = loader();
    expect((second.load('a') as { double(x: number): number }).double(21)).toBe(42);
    expect(second.loaded[0]?.cache).toBe('hit');
    second.flush();
    expect(readdirSync(cacheDir)).toEqual(files);
  });

  it('a changed bundle (same build hash, other content) does not take the old cache; the old one goes when a week old', () => {
    const { dist, cacheDir, loader } = fixture();
    const first = loader();
    first.load('a');
    first.flush();
    const [old] = readdirSync(cacheDir);
    writeFileSync(join(dist, 'a.cjs'), 'exports.double = (x) => x * 3; exports.next = () => 0;');
    utimesSync(join(dist, 'a.cjs'), new Date(2030, 0, 1), new Date(2030, 0, 1));
    const second = loader();
    expect((second.load('a') as { double(x: number): number }).double(2)).toBe(6);
    expect(second.loaded[0]?.cache).toBe('miss');
    second.flush();
    // Both kept: the other may be another install of mq, in use too.
    expect(readdirSync(cacheDir).sort()).toHaveLength(2);
    const [current] = readdirSync(cacheDir).filter((f) => f !== old);
    // Eight days later, the next cache written for the bundle removes it.
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    utimesSync(join(cacheDir, old as string), eightDaysAgo, eightDaysAgo);
    writeFileSync(join(dist, 'a.cjs'), 'exports.double = (x) => x * 4;');
    utimesSync(join(dist, 'a.cjs'), new Date(2031, 0, 1), new Date(2031, 0, 1));
    const third = loader();
    third.load('a');
    third.flush();
    const left = readdirSync(cacheDir);
    expect(left).toHaveLength(2);
    expect(left).toContain(current);
    expect(left).not.toContain(old);
  });

  it('a corrupt cache is refused and removed, the bundle still runs, and the cache is written anew', () => {
    const { cacheDir, loader } = fixture();
    const first = loader();
    first.load('a');
    first.flush();
    const [name] = readdirSync(cacheDir);
    writeFileSync(join(cacheDir, name as string), Buffer.alloc(4096, 7));
    const second = loader();
    expect((second.load('a') as { double(x: number): number }).double(5)).toBe(10);
    expect(second.loaded[0]?.cache).toBe('refused');
    expect(readdirSync(cacheDir)).toEqual([]);
    second.flush();
    const third = loader();
    third.load('a');
    expect(third.loaded[0]?.cache).toBe('hit');
  });

  it('before V8 flags change at run time, the caches are written, and none after', () => {
    const { cacheDir, loader } = fixture();
    const l = loader();
    l.load('a');
    (globalThis as { [key: symbol]: (() => void) | undefined })[BEFORE_V8_FLAGS]?.();
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^a\./)]);
    l.load('cmd/b');
    expect(l.loaded.map((r) => r.cache)).toEqual(['miss', 'miss']);
    l.flush();
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^a\./)]);
  });

  it("each command keeps its own cache of a bundle, up to 32 of one build (typos don't fill the disk)", () => {
    const { cacheDir, loader } = fixture();
    const run = (variant?: string) => {
      const l = loader(cacheDir, variant);
      l.load('a');
      l.flush();
      return l.loaded[0]?.cache;
    };
    expect([run(), run('status'), run('status'), run(), run('queue-stats')]).toEqual([
      'miss',
      'miss',
      'hit',
      'hit',
      'miss',
    ]);
    const names = readdirSync(cacheDir).sort();
    expect(names.map((n) => n.replace(/^a\.h1-\w+-v[\d.]+-\w+/, ''))).toEqual([
      '.bin',
      '.queue-stats.bin',
      '.status.bin',
    ]);
    for (let i = names.length; i < 32; i++) expect(run(`typo${String.fromCharCode(97 + i)}`)).toBe('miss');
    expect(readdirSync(cacheDir)).toHaveLength(32);
    expect(run('one-more')).toBe('miss');
    expect(readdirSync(cacheDir)).toHaveLength(32);
    // Another build's caches do not count against this one's.
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const n of readdirSync(cacheDir)) utimesSync(join(cacheDir, n), eightDaysAgo, eightDaysAgo);
    expect(run('one-more')).toBe('miss');
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/\.one-more\.bin$/)]);
  });

  it('a cache directory others can write to is neither read nor written', () => {
    const { cacheDir, loader } = fixture();
    mkdirSync(cacheDir, { recursive: true });
    chmodSync(cacheDir, 0o777);
    const l = loader();
    expect((l.load('a') as { double(x: number): number }).double(1)).toBe(2);
    expect(l.loaded[0]?.cache).toBe('off');
    l.flush();
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('a cache path that cannot be a directory turns the cache off, without an error', () => {
    const { loader } = fixture();
    const file = join(tempDir('mq-cache-file-'), 'taken');
    writeFileSync(file, 'x');
    const l = loader(join(file, 'v8'));
    expect((l.load('a') as { double(x: number): number }).double(4)).toBe(8);
    expect(l.loaded[0]?.cache).toBe('off');
    expect(() => l.flush()).not.toThrow();
  });
});

describe("the words that name a command's caches", () => {
  it.each([
    [['status', '1'], 'status'],
    [['queue', 'stats', '--since', '7d'], 'queue-stats'],
    [['--json', 'status', '99'], 'status'],
    [['profile', 'set', 'repo', 'x'], 'profile-set'],
    [['--help'], ''],
    [[], ''],
    [['Status'], ''],
    [['x'.repeat(21)], ''],
    [['wait', '../../etc'], 'wait'],
  ] as const)('%j -> %j', (argv, words) => {
    expect(commandWords(argv)).toBe(words);
  });
});

describe('where the cache lives', () => {
  it.each([
    [{ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/x/cache/mq/v8'],
    [{ XDG_CACHE_HOME: 'relative/cache' }, 'linux', /\/\.cache\/mq\/v8$/],
    [{}, 'linux', /\/\.cache\/mq\/v8$/],
    [{}, 'darwin', /\/Library\/Caches\/mq\/v8$/],
    [{ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', null],
    [{ MQ_COMPILE_CACHE_DIR: '/elsewhere' }, 'linux', '/elsewhere'],
    [{ MQ_NO_COMPILE_CACHE: '1', XDG_CACHE_HOME: '/x' }, 'linux', null],
    [{ MQ_NO_COMPILE_CACHE: '0', XDG_CACHE_HOME: '/x' }, 'linux', '/x/mq/v8'],
    // Node's switch for its own compile cache, whatever its value, as Node reads it.
    [{ NODE_DISABLE_COMPILE_CACHE: '1', XDG_CACHE_HOME: '/x' }, 'linux', null],
    [{ NODE_DISABLE_COMPILE_CACHE: '0', MQ_COMPILE_CACHE_DIR: '/elsewhere' }, 'linux', null],
    [{ NODE_DISABLE_COMPILE_CACHE: '', XDG_CACHE_HOME: '/x' }, 'darwin', null],
    [{ HOME: '/home/u' }, 'linux', '/home/u/.cache/mq/v8'],
    [{ HOME: '/home/u' }, 'win32', null],
    [{ MQ_COMPILE_CACHE_DIR: 'C:\\cache' }, 'win32', null],
  ] as const)('%o on %s', (env, platform, expected) => {
    const dir = defaultCacheDir(env, platform, homedir);
    if (expected === null || typeof expected === 'string') expect(dir).toBe(expected);
    else expect(dir).toMatch(expected);
  });
});
