// The watch's memory across restarts: up to when the service's history was read and what was posted
// where, in a small JSON file (0600) in the user's cache directory or --state FILE.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkedDir } from '../boot/cache-files.js';
import { ConfigError } from '../errors.js';

export interface WatchState {
  /** The service's time (epoch ms) up to which what left the queue was handled. */
  since: number | null;
  /** `target:pr@stateChangedAt` of each post made, newest last. */
  posted: string[];
}

/** Posts remembered; older ones are long past the catch-up window. */
export const MAX_POSTED = 2000;
const MAX_STATE_BYTES = 1024 * 1024;

/** The default file: MQ_CACHE_DIR, $XDG_CACHE_HOME/mq or ~/.cache/mq, then notify/<hash of the queue>.json. */
export function defaultStatePath(env: NodeJS.ProcessEnv, home: string | undefined, queue: string): string | undefined {
  const base = env.MQ_CACHE_DIR
    ? env.MQ_CACHE_DIR
    : env.XDG_CACHE_HOME?.startsWith('/')
      ? join(env.XDG_CACHE_HOME, 'mq')
      : home
        ? join(home, '.cache', 'mq')
        : undefined;
  if (base === undefined) return undefined;
  const dir = checkedDir(join(base, 'notify'));
  return dir ? join(dir.path, `${createHash('sha256').update(queue).digest('hex').slice(0, 24)}.json`) : undefined;
}

/** The state on disk; a missing file is a first run. A file others can read or write is refused. */
export function loadState(path: string): WatchState {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { since: null, posted: [] };
    throw new ConfigError(`--state: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_STATE_BYTES || (st.mode & 0o077) !== 0)
      throw new ConfigError(`--state: ${path} must be a small file only you can read and write (0600)`);
    const raw = JSON.parse(readFileSync(fd, 'utf8')) as Partial<WatchState>;
    return {
      since: typeof raw.since === 'number' && Number.isFinite(raw.since) ? raw.since : null,
      posted: Array.isArray(raw.posted)
        ? raw.posted.filter((k): k is string => typeof k === 'string' && k.length < 200).slice(-MAX_POSTED)
        : [],
    };
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`--state: ${path} is not a state file mq wrote`, {
      hints: ['remove it to start afresh (what left the queue meanwhile is then not posted)'],
    });
  } finally {
    closeSync(fd);
  }
}

/** Written whole to a temporary file, then renamed over the old one. */
export function saveState(path: string, state: WatchState): void {
  const tmp = join(dirname(path), `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const data = { since: state.since, posted: state.posted.slice(-MAX_POSTED) };
  try {
    writeFileSync(tmp, `${JSON.stringify(data)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    throw new ConfigError(`--state: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
      hints: ['pass --state with a file in a directory you can write to'],
    });
  }
}
