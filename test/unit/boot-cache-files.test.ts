/**
 * The code cache gives V8 only bytes this user's mq wrote (src/boot/cache-files.ts): a cache
 * planted or corrupted, a directory swapped, linked or writable by others each end in a normal
 * load (compiled from source), the bad cache removed or ignored.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { type BundleTable, bundleLoader } from '../../src/boot/bundles.js';
import { KEY_FILE } from '../../src/boot/cache-files.js';
import { tempDir } from '../helpers/run-cli.js';

const require = createRequire(import.meta.url);
// Each loader below must compile from the cache file or from scratch, as a new mq does.
setFlagsFromString('--no-compilation-cache');

const SOURCE = 'let n = 0; exports.next = () => ++n; exports.double = (x) => x * 2;';
const SOURCE_B = 'exports.triple = (x) => x * 3;';
/** Other code of the same length: V8 checks no more than the length of a cache's source. */
const PLANTED = 'globalThis.mqPlanted = 1; exports.double = Math.max;'.padEnd(SOURCE.length);
const PLANTED_B = 'globalThis.mqPlanted = 1;'.padEnd(SOURCE_B.length);
const ROOT = process.getuid?.() === 0;
const OTHER_UID = 4242;

type Planted = typeof globalThis & { mqPlanted?: number };
afterEach(() => {
  delete (globalThis as Planted).mqPlanted;
});

/** V8's cache of `source` run as the loader runs a bundle. */
function v8Cache(source: string, file: string): Buffer {
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  return new Script(wrapped, { filename: file }).createCachedData();
}

/** An HMAC as mq makes one, under a key that is not the user's. */
const foreignMac = (name: string, data: Buffer) =>
  createHmac('sha256', randomBytes(32)).update(name).update(data).digest();

function fixture() {
  const dist = tempDir('mq-bundles-');
  const root = tempDir('mq-cache-');
  const cacheDir = join(root, 'mq', 'v8');
  const file = join(dist, 'a.cjs');
  writeFileSync(file, SOURCE);
  writeFileSync(join(dist, 'b.cjs'), SOURCE_B);
  const bundles: BundleTable = { a: { file: 'a.cjs', hash: 'h1' }, b: { file: 'b.cjs', hash: 'h2' } };
  const keyDir = join(tempDir('mq-config-'), 'mq');
  const loader = (keys = keyDir) => bundleLoader({ dist, bundles, cacheDir, keyDir: keys, require });
  /** One run that leaves the cache; its file's name. */
  const warm = (keys = keyDir) => {
    const l = loader(keys);
    l.load('a');
    l.flush();
    return readdirSync(cacheDir)[0] as string;
  };
  /** A load of the bundle: what it computes, whether planted code ran, how the cache served it. */
  const run = (keys = keyDir) => {
    const l = loader(keys);
    const double = (l.load('a') as { double(x: number): number }).double(5);
    const record = { double, planted: (globalThis as Planted).mqPlanted ?? 0, cache: l.loaded[0]?.cache };
    l.flush();
    return record;
  };
  return { dist, root, cacheDir, file, loader, keyDir, warm, run };
}

const normal = (cache: string) => ({ double: 10, planted: 0, cache });

describe('the code cache refuses what this user did not write', () => {
  it('writes the key 0600 in the config directory, never beside the cache, and the cache starts with its HMAC', () => {
    const { cacheDir, keyDir, warm } = fixture();
    const name = warm();
    expect(readdirSync(cacheDir)).toEqual([name]);
    const key = readFileSync(join(keyDir, KEY_FILE));
    const modes = [statSync(join(keyDir, KEY_FILE)).mode & 0o777, statSync(keyDir).mode & 0o777];
    expect([key.length, ...modes]).toEqual([32, 0o600, 0o700]);
    const bytes = readFileSync(join(cacheDir, name));
    const mac = createHmac('sha256', key).update(name).update(bytes.subarray(32)).digest();
    expect(bytes.subarray(0, 32)).toEqual(mac);
  });

  it.each([
    ['no HMAC (V8 data alone)', (data: Buffer) => data],
    ['a valid HMAC under another key', (data: Buffer, name: string) => Buffer.concat([foreignMac(name, data), data])],
  ])('a planted cache of other code, %s: refused and removed, the bundle runs its own code', (_, plant) => {
    const { cacheDir, file, warm, run } = fixture();
    const name = warm();
    writeFileSync(join(cacheDir, name), plant(v8Cache(PLANTED, file), name), { mode: 0o600 });
    expect(run()).toEqual(normal('refused'));
    // The flush wrote a good one in its place.
    expect(run()).toEqual(normal('hit'));
  });

  it("a cache made under another user's key is refused", () => {
    const { loader, warm, run } = fixture();
    warm();
    warm(join(tempDir('mq-config-'), 'mq'));
    expect(run()).toEqual(normal('refused'));
    // A run that only reads makes no config directory.
    const none = join(tempDir('mq-config-'), 'mq');
    const l = loader(none);
    l.load('a');
    expect([l.loaded[0]?.cache, existsSync(none)]).toEqual(['refused', false]);
  });

  it('corrupt bytes anywhere in a cache: refused and removed, never a crash; the next run writes it anew', () => {
    const { cacheDir, warm, run } = fixture();
    const name = warm();
    const good = readFileSync(join(cacheDir, name));
    for (const at of [0, 31, 32, 40, good.length >> 1, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[at] = (bad[at] as number) ^ 0x5a;
      writeFileSync(join(cacheDir, name), bad, { mode: 0o600 });
      expect(run()).toEqual(normal('refused'));
    }
    writeFileSync(join(cacheDir, name), good.subarray(0, 20), { mode: 0o600 });
    expect(run()).toEqual(normal('refused'));
    expect(run()).toEqual(normal('hit'));
  });

  it('a cache file that is a link (symbolic or hard), readable by others or not a file: refused, its target kept', () => {
    const { cacheDir, warm, run } = fixture();
    const name = warm();
    const path = join(cacheDir, name);
    const elsewhere = join(tempDir('mq-elsewhere-'), 'cache.bin');
    renameSync(path, elsewhere);
    symlinkSync(elsewhere, path);
    expect(run()).toEqual(normal('refused'));
    expect(statSync(elsewhere).isFile()).toBe(true);
    renameSync(elsewhere, path);
    linkSync(path, elsewhere);
    expect(run()).toEqual(normal('refused'));
    chmodSync(path, 0o644);
    expect(run()).toEqual(normal('refused'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    mkdirSync(`${path}.d`);
    renameSync(path, `${path}.x`);
    renameSync(`${path}.d`, path);
    expect(run().double).toBe(10);
  });

  it('a key readable by others is not used: a new key is made and the old caches are refused', () => {
    const { keyDir, warm, run } = fixture();
    warm();
    const old = readFileSync(join(keyDir, KEY_FILE));
    chmodSync(join(keyDir, KEY_FILE), 0o644);
    expect(run()).toEqual(normal('refused'));
    expect(readFileSync(join(keyDir, KEY_FILE))).not.toEqual(old);
    expect(statSync(join(keyDir, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(run()).toEqual(normal('hit'));
  });
});

describe('the way to the cache directory', () => {
  it('a group- or other-writable directory on the way (not sticky): no cache read or written', () => {
    const { root, cacheDir, file, warm, run } = fixture();
    const name = warm();
    const planted = v8Cache(PLANTED, file);
    writeFileSync(join(cacheDir, name), planted, { mode: 0o600 });
    for (const mode of [0o777, 0o775]) {
      chmodSync(join(root, 'mq'), mode);
      expect(run()).toEqual(normal('off'));
      expect(readFileSync(join(cacheDir, name))).toEqual(planted);
    }
    // The cache directory itself may not be sticky.
    chmodSync(join(root, 'mq'), 0o700);
    chmodSync(cacheDir, 0o1777);
    expect(run()).toEqual(normal('off'));
  });

  it("a sticky directory above it (like /tmp) is fine, unless it is another user's", () => {
    const { root, warm, run } = fixture();
    chmodSync(root, 0o1777);
    warm();
    expect(run()).toEqual(normal('hit'));
    if (ROOT) {
      chownSync(root, OTHER_UID, OTHER_UID);
      expect(run()).toEqual(normal('off'));
    }
  });

  it('a cache directory that is a link to one the user does not own is not used; a link to their own is', () => {
    const { root, cacheDir, file, warm, run } = fixture();
    const name = warm();
    const theirs = tempDir('mq-theirs-');
    writeFileSync(join(theirs, name), v8Cache(PLANTED, file), { mode: 0o600 });
    renameSync(cacheDir, join(root, 'mine'));
    symlinkSync(theirs, cacheDir);
    chmodSync(theirs, 0o777);
    expect(run()).toEqual(normal('off'));
    expect(readdirSync(theirs)).toEqual([name]);
    if (ROOT) {
      chmodSync(theirs, 0o700);
      chownSync(theirs, OTHER_UID, OTHER_UID);
      expect(run()).toEqual(normal('off'));
    }
    // A link to the user's own directory: used at its real path.
    renameSync(cacheDir, join(root, 'link-was'));
    symlinkSync(join(root, 'mine'), cacheDir);
    expect(run()).toEqual(normal('hit'));
  });

  it('a parent directory swapped after the check: nothing read from or written to the new one', () => {
    const { root, cacheDir, dist, loader } = fixture();
    const first = loader();
    first.load('a');
    first.load('b');
    first.flush();
    const nameB = readdirSync(cacheDir).find((n) => n.startsWith('b.')) as string;
    const l = loader();
    l.load('a');
    // The check was made on the first load; the swap comes after it.
    renameSync(join(root, 'mq'), join(root, 'mq.old'));
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const planted = v8Cache(PLANTED_B, join(dist, 'b.cjs'));
    writeFileSync(join(cacheDir, nameB), planted, { mode: 0o600 });
    if (ROOT) chownSync(join(root, 'mq'), OTHER_UID, OTHER_UID);
    expect((l.load('b') as { triple(x: number): number }).triple(5)).toBe(15);
    expect([(globalThis as Planted).mqPlanted ?? 0, l.loaded.map((r) => r.cache)]).toEqual([0, ['hit', 'refused']]);
    l.flush();
    expect(readdirSync(cacheDir)).toEqual([nameB]);
    expect(readFileSync(join(cacheDir, nameB))).toEqual(planted);
  });
});
