/**
 * The code cache's files (src/boot/bundles.ts), which only ever give V8 bytes this user's mq wrote.
 * Compiled code runs as mq, so:
 * - The cache directory is used only when every component of its real path, from `/` down, is a
 *   directory (not a link) owned by the user or root that no one else can write; above the cache
 *   directory, a sticky one may be writable by all (/tmp: there only an entry's owner, the
 *   directory's or root can rename or remove it, and every entry on the way is the user's or
 *   root's). Missing directories are made 0700 one at a time (mkdir follows no link) and checked
 *   the same way. Reads and writes then go to that real path, once it is still the same directory
 *   (dev, ino): no one else could have changed the way to it.
 * - A cache file is opened without following a link and used only when it is a regular file of the
 *   user's, 0600, with one link, on the directory's device.
 * - Its first 32 bytes are an HMAC-SHA256, under a key of the user's, of its name and the rest: the
 *   V8 data. The key is 32 random bytes, 0600 in mq's config directory (checked like the cache
 *   directory), never beside the cache.
 * A file that fails a check is removed: it costs a compile, never a failure. Where the checks
 * cannot be made (Windows, no uids or O_NOFOLLOW), there is no cache.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

type Crypto = typeof import('node:crypto');
/** node:crypto, loaded when first needed (a module load of ~2 ms). */
type LazyCrypto = () => Crypto;
/** A cache's V8 data, or why there is none. */
type CacheRead = Buffer | 'miss' | 'refused';

/** A directory that passed the checks: its real path and identity. */
export interface CheckedDir {
  path: string;
  dev: number;
  ino: number;
}

const uid = process.platform === 'win32' ? undefined : process.getuid?.();
const NOFOLLOW = constants.O_NOFOLLOW as number | undefined;
/** The largest cache file read (a bundle's cache is a few hundred KiB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const MAC_BYTES = 32;
/** The key's file name in the config directory. */
export const KEY_FILE = 'compile-cache.key';

/** `own`: the directory must be the user's and writable by no one else (no sticky exception). */
function trusted(st: Stats, own: boolean): boolean {
  if (!st.isDirectory()) return false;
  if (st.uid !== uid && (own || st.uid !== 0)) return false;
  return (st.mode & 0o022) === 0 || (!own && (st.mode & 0o1000) !== 0);
}

/** `dir` checked from `/` down, made (0700) where missing if `make`; null: it fails a check or is missing. */
export function checkedDir(dir: string, make = true): CheckedDir | null {
  if (uid === undefined || NOFOLLOW === undefined) return null;
  try {
    const missing: string[] = [];
    let real: string | undefined;
    for (let p = resolve(dir); real === undefined; ) {
      try {
        real = realpathSync.native(p);
      } catch (error) {
        if (!make || (error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(p) === p) return null;
        missing.unshift(basename(p));
        p = dirname(p);
      }
    }
    const parts = real.split(sep).filter(Boolean);
    let path: string = sep;
    let st = lstatSync(path);
    for (let i = 0; ; i++) {
      if (!trusted(st, i === parts.length && missing.length === 0)) return null;
      if (i === parts.length) break;
      path = join(path, parts[i] as string);
      st = lstatSync(path);
    }
    for (const name of missing) {
      path = join(path, name);
      try {
        mkdirSync(path, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      st = lstatSync(path);
      if (!trusted(st, true)) return null;
    }
    return { path, dev: st.dev, ino: st.ino };
  } catch {
    return null;
  }
}

/** Whether `dir` still is the directory that was checked. */
export function sameDir(dir: CheckedDir): boolean {
  try {
    const st = lstatSync(dir.path);
    return st.isDirectory() && st.dev === dir.dev && st.ino === dir.ino;
  } catch {
    return false;
  }
}

/** The bytes of `name` in `dir` when it passes the file checks; null: no such file; false: it fails one. */
function readOwn(dir: CheckedDir, name: string, max: number): Buffer | null | false {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO does not hold the open.
    fd = openSync(join(dir.path, name), constants.O_RDONLY | constants.O_NONBLOCK | (NOFOLLOW as number));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : false;
  }
  try {
    const st = fstatSync(fd);
    const own = st.isFile() && st.uid === uid && (st.mode & 0o077) === 0 && st.nlink === 1;
    if (!own || st.dev !== dir.dev || st.size > max) return false;
    const bytes = Buffer.allocUnsafe(st.size);
    return readSync(fd, bytes, 0, st.size, 0) === st.size && sameDir(dir) ? bytes : false;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Writes `chunks` to `name` in `dir` through a new 0600 file renamed over it. */
function writeOwn(dir: CheckedDir, name: string, chunks: Uint8Array[]): void {
  const tmp = join(dir.path, `${name}.${process.pid}.tmp`);
  try {
    unlinkSync(tmp);
  } catch {}
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (NOFOLLOW as number), 0o600);
  try {
    try {
      for (const chunk of chunks) for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
    } finally {
      closeSync(fd);
    }
    if (!sameDir(dir)) throw new Error('the cache directory changed');
    renameSync(tmp, join(dir.path, name));
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw error;
  }
}

/** Removes `name` from `dir` when `dir` is still the checked directory. */
export function removeFile(dir: CheckedDir, name: string): void {
  try {
    if (sameDir(dir)) unlinkSync(join(dir.path, name));
  } catch {}
}

/** The user's key in `configDir`, made (or remade, when it fails a check) if `make`; null: none to use. */
export function cacheKey(configDir: string, make: boolean, crypto: LazyCrypto): Buffer | null {
  const dir = checkedDir(configDir, make);
  if (dir === null) return null;
  const key = readOwn(dir, KEY_FILE, MAC_BYTES);
  if (key && key.length === MAC_BYTES) return key;
  if (!make) return null;
  try {
    writeOwn(dir, KEY_FILE, [crypto().randomBytes(MAC_BYTES)]);
  } catch {
    return null;
  }
  const made = readOwn(dir, KEY_FILE, MAC_BYTES);
  return made && made.length === MAC_BYTES ? made : null;
}

function mac(crypto: Crypto, key: Buffer, name: string, data: Uint8Array): Buffer {
  return crypto.createHmac('sha256', key).update(name).update(data).digest();
}

/**
 * The V8 data of cache `name` in `dir`: 'miss' when there is none; 'refused' when it fails a
 * check (the file is removed) or the directory is no longer the one checked.
 */
export function readCache(dir: CheckedDir, name: string, key: () => Buffer | null, crypto: LazyCrypto): CacheRead {
  const bytes = readOwn(dir, name, MAX_CACHE_BYTES);
  if (bytes === null) return 'miss';
  const k = bytes && bytes.length > MAC_BYTES ? key() : null;
  if (bytes && k) {
    const c = crypto();
    const data = bytes.subarray(MAC_BYTES);
    if (c.timingSafeEqual(mac(c, k, name, data), bytes.subarray(0, MAC_BYTES))) return data;
  }
  removeFile(dir, name);
  return 'refused';
}

/** Writes cache `name` in `dir`: the HMAC, then the V8 data. Throws when it cannot. */
export function writeCache(dir: CheckedDir, name: string, data: Buffer, key: Buffer, crypto: LazyCrypto): void {
  writeOwn(dir, name, [mac(crypto(), key, name, data), data]);
}
