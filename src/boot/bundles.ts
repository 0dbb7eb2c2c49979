/**
 * Loads the CLI's CommonJS bundles (dist/cli.cjs, dist/lazy/*.cjs) with a V8 code
 * cache, so that a command line after the first one does not compile the code it runs again.
 *
 * Node 20 has no compile cache for ES modules (`module.enableCompileCache` came in 22.1), while
 * `vm.Script` takes and produces V8 code caches for scripts: the bundles are CommonJS so that they
 * can be run as scripts. Node 22 and 24 use this cache too, never Node's: Node's checks that a
 * cache matches its source, not who wrote it (a file planted in its directory runs), and it
 * measured no clearly faster (bench/RESULTS.md, issue 27 point 3). A bundle names another one as
 * `require('mq:KEY')` (scripts/build.mjs):
 * this loader resolves those; everything else goes to Node's own `require` (built-ins only: the
 * bundles carry their dependencies).
 *
 * The cache lives in the user's cache directory (`$XDG_CACHE_HOME/mq/v8`, `~/.cache/mq/v8`, on macOS
 * `~/Library/Caches/mq/v8`), one file a bundle and command (V8 caches what the run compiled), named
 * by the bundle's content hash (from the build), its size and mtime, the Node version and
 * architecture and the command's words (one a week old goes when another is written). V8 checks
 * little of a cache (its version, flags and the source's length), so mq gives it only bytes this
 * user's mq wrote, from a directory no one else can change (boot/cache-files.ts); a cache V8 still
 * rejects is removed, and the bundle compiles as without one. A cache is written once, when the
 * process exits (it then holds the functions the command ran). Nothing about the cache ever makes
 * a command fail: a cache that cannot be read, written or used costs a compile. Windows has no
 * cache; `MQ_NO_COMPILE_CACHE=1` or `NODE_DISABLE_COMPILE_CACHE` turns it off.
 */
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { configDirOf } from '../config/dir.js';
import { type CheckedDir, cacheKey, checkedDir, readCache, removeFile, sameDir, writeCache } from './cache-files.js';

/** What the build says of each bundle: its file under dist/ and a hash of its content. */
export type BundleTable = Record<string, { file: string; hash: string }>;

export interface LoaderOptions {
  /** dist/, where the bundles are. */
  dist: string;
  bundles: BundleTable;
  /** The code cache directory; null: no cache. */
  cacheDir: string | null;
  /** mq's config directory, where the cache's key is kept; null: no cache. */
  keyDir: string | null;
  /** Node's require, for built-ins. */
  require: NodeJS.Require;
  /**
   * What the command line runs (commandWords): V8 caches only the functions a run compiled, so each
   * command keeps a cache of its own rather than one made by whichever command ran first.
   */
  variant?: string;
}

export interface LoadRecord {
  key: string;
  file: string;
  /**
   * 'hit': compiled from the cache; 'miss': no cache yet; 'refused': mq's checks refused it (not
   * this user's, changed); 'rejected': V8 refused it; 'off': no cache directory.
   */
  cache: 'hit' | 'miss' | 'refused' | 'rejected' | 'off';
}

/** Where the code cache goes on this machine; null when caching is off, on Windows or without a home. */
export function defaultCacheDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  homedir: () => string,
): string | null {
  // Windows: the checks of boot/cache-files.ts cannot be made there. Node's switch for its own
  // compile cache turns this one off too, whatever its value (as Node reads it).
  if (platform === 'win32' || (env.MQ_NO_COMPILE_CACHE && env.MQ_NO_COMPILE_CACHE !== '0')) return null;
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined) return null;
  if (env.MQ_COMPILE_CACHE_DIR) return env.MQ_COMPILE_CACHE_DIR;
  let home = env.HOME;
  try {
    // node:os only when HOME does not say (an unusual environment).
    home ||= homedir();
  } catch {
    return null;
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'mq', 'v8');
  return join(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(home, '.cache'), 'mq', 'v8');
}

/** How old another cache of a bundle must be before writing one removes it. */
const STALE_MS = 7 * 24 * 3600 * 1000;
/** Caches of one bundle of one build: a command line's words name them, and typos must not fill the disk. */
const MAX_CACHES = 32;

/** The words that name a command line's caches: `queue-stats` of `mq --json queue stats --since 7d`. */
export function commandWords(argv: readonly string[]): string {
  const words: string[] = [];
  for (const arg of argv.slice(argv.findIndex((a) => !a.startsWith('-')))) {
    if (words.length === 2 || !/^[a-z][a-z-]{0,19}$/.test(arg)) break;
    words.push(arg);
  }
  return words.join('-');
}

/**
 * Code that changes V8's flags at run time calls `globalThis[Symbol.for('mq.beforeV8Flags')]?.()`
 * first: the caches are written then, and no more after.
 */
export const BEFORE_V8_FLAGS = Symbol.for('mq.beforeV8Flags');

const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAP_TAIL = '\n})';

export interface Loader {
  /** The exports of bundle `key`, loading it on first use. */
  load(key: string): unknown;
  /** What was loaded, in order (for the start-up tests). */
  readonly loaded: readonly LoadRecord[];
  /** Writes the caches of the bundles compiled without one (done at process exit). */
  flush(): void;
}

export function bundleLoader(options: LoaderOptions): Loader {
  const modules = new Map<string, { exports: unknown }>();
  const loaded: LoadRecord[] = [];
  const pending: { script: Script; name: string; prefix: string; build: string }[] = [];
  let checked: CheckedDir | null | undefined;
  const cacheDir = () => {
    if (options.cacheDir === null || options.keyDir === null) return null;
    checked ??= checkedDir(options.cacheDir);
    return checked;
  };
  const crypto = () => options.require('node:crypto') as typeof import('node:crypto');
  let key: Buffer | null = null;
  const keyFor = (make: boolean) => {
    if (key === null && options.keyDir !== null) key = cacheKey(options.keyDir, make, crypto);
    return key;
  };

  // Set once V8's flags changed at run time (the undici transport's --liftoff-only): V8 would then
  // make caches the next process, started without that flag, refuses.
  let flagsChanged = false;
  (globalThis as { [key: symbol]: unknown })[BEFORE_V8_FLAGS] = () => {
    flush();
    flagsChanged = true;
  };

  const requireFor = (spec: string) => (spec.startsWith('mq:') ? load(spec.slice(3)) : options.require(spec));

  function load(key: string): unknown {
    const done = modules.get(key);
    if (done) return done.exports;
    const entry = options.bundles[key];
    if (!entry) throw new Error(`mq: no bundle named ${key} in this build`);
    const file = join(options.dist, entry.file);
    const fd = openSync(file, 'r');
    let source: string;
    let stamp: string;
    try {
      const st = fstatSync(fd);
      stamp = `${st.size.toString(36)}${Math.trunc(st.mtimeMs).toString(36)}`;
      source = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const dir = cacheDir();
    const prefix = `${key.replace(/[^\w-]/g, '_')}.`;
    const build = `${prefix}${entry.hash}-${stamp}-${process.version}-${process.arch}`;
    const name = `${build}${options.variant ? `.${options.variant}` : ''}.bin`;
    const read = dir === null ? 'off' : readCache(dir, name, () => keyFor(false), crypto);
    const cachedData = typeof read === 'string' ? undefined : read;
    const script = new Script(WRAP_HEAD + source + WRAP_TAIL, { filename: file, cachedData });
    const cache: LoadRecord['cache'] = typeof read === 'string' ? read : script.cachedDataRejected ? 'rejected' : 'hit';
    loaded.push({ key, file, cache });
    if (dir !== null && cache === 'rejected') removeFile(dir, name);
    if (dir !== null && cache !== 'hit' && !flagsChanged) {
      if (pending.length === 0) process.once('exit', flush);
      pending.push({ script, name, prefix, build });
    }
    const module = { exports: {} as unknown };
    modules.set(key, module);
    const fn = script.runInThisContext() as (
      e: unknown,
      r: (s: string) => unknown,
      m: { exports: unknown },
      f: string,
      d: string,
    ) => void;
    try {
      fn.call(module.exports, module.exports, requireFor, module, file, dirname(file));
    } catch (error) {
      modules.delete(key);
      throw error;
    }
    return module.exports;
  }

  /** At exit: each bundle compiled without a usable cache leaves one (with what the command ran). */
  function flush(): void {
    process.off('exit', flush);
    const dir = cacheDir();
    const writes = pending.splice(0);
    if (dir === null || flagsChanged || writes.length === 0 || !sameDir(dir)) return;
    const k = keyFor(true);
    if (k === null) return;
    for (const { script, name, prefix, build } of writes) {
      try {
        // Other caches of the bundle (another build, Node or command) go once a week old: not at
        // once, so that two installs of mq in use side by side do not keep evicting each other.
        const weekAgo = Date.now() - STALE_MS;
        let kept = 0;
        for (const other of readdirSync(dir.path)) {
          if (!other.startsWith(prefix) || other === name || !other.endsWith('.bin')) continue;
          if (lstatSync(join(dir.path, other)).mtimeMs < weekAgo) removeFile(dir, other);
          else if (other.startsWith(build)) kept++;
        }
        if (kept < MAX_CACHES) writeCache(dir, name, script.createCachedData(), k, crypto);
      } catch {
        // A cache is an optimisation: a full disk or a race with another mq is not an error.
      }
    }
  }

  return { load, loaded, flush };
}

/** The loader of the CLI bundles next to `mainFile` (dist/main.cjs), whose `require` serves built-ins. */
export function cliLoader(
  mainFile: string,
  bundles: BundleTable,
  env: NodeJS.ProcessEnv,
  require: NodeJS.Require,
  variant?: string,
): Loader {
  // node:os only when HOME does not say (an unusual environment).
  const home = () => env.HOME || (require('node:os') as typeof import('node:os')).homedir();
  const cacheDir = defaultCacheDir(env, process.platform, home);
  let keyDir: string | null = null;
  try {
    if (cacheDir !== null) keyDir = configDirOf(env, home);
  } catch {}
  return bundleLoader({ dist: dirname(mainFile), bundles, cacheDir, keyDir, require, variant });
}
