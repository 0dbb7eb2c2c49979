// v2 addresses repositories, queues and PRs by id, and ids never change: each is resolved once and
// kept in a small JSON file per API origin in the user's cache directory (0600, in a checked 0700
// directory). A writer merges what is on disk first, so two mq processes keep each other's ids.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkedDir } from '../../boot/cache-files.js';

export interface IdStore {
  get(key: string): string | undefined;
  set(key: string, id: string): void;
  drop(key: string): void;
}

/** An id as v2 sends them (UUIDs, short opaque words); anything else in the file is ignored. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_ENTRIES = 10_000;
const MAX_FILE_BYTES = 1024 * 1024;

export function memoryIdStore(): IdStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: (k) => entries.get(k),
    set: (k, id) => void entries.set(k, id),
    drop: (k) => void entries.delete(k),
  };
}

/** The directory of the id files: MQ_CACHE_DIR, $XDG_CACHE_HOME/mq, ~/.cache/mq (then `ids`). */
export function idCacheDir(env: NodeJS.ProcessEnv, home: string | undefined): string | undefined {
  if (env.MQ_CACHE_DIR) return join(env.MQ_CACHE_DIR, 'ids');
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : home ? join(home, '.cache') : undefined;
  return base ? join(base, 'mq', 'ids') : undefined;
}

function readIds(path: string): Map<string, string> {
  const out = new Map<string, string>();
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE_BYTES || (st.mode & 0o077) !== 0) return out;
    const parsed: unknown = JSON.parse(readFileSync(fd, 'utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return out;
    for (const [k, v] of Object.entries(parsed)) {
      if (out.size >= MAX_ENTRIES) break;
      if (typeof v === 'string' && ID.test(v) && k.length <= 600) out.set(k, v);
    }
  } catch {
    // missing or unreadable: the ids are resolved again
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return out;
}

/** The id file of one API origin; without a usable cache directory, ids live for this run only. */
export function fileIdStore(dir: string | undefined, origin: string): IdStore {
  const mem = memoryIdStore();
  const checked = dir === undefined ? null : checkedDir(dir);
  if (checked === null) return mem;
  const name = `${createHash('sha256').update(origin).digest('hex').slice(0, 24)}.json`;
  const path = join(checked.path, name);
  for (const [k, v] of readIds(path)) mem.entries.set(k, v);
  const save = (change: (m: Map<string, string>) => void) => {
    change(mem.entries);
    try {
      const merged = readIds(path);
      change(merged);
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(merged)), { mode: 0o600, flag: 'wx' });
      renameSync(tmp, path);
    } catch {
      // the cache is an optimisation: a failed write costs a lookup next time
    }
  };
  return {
    get: (k) => mem.get(k),
    set: (k, id) => {
      if (mem.get(k) !== id && ID.test(id)) save((m) => void m.set(k, id));
    },
    drop: (k) => {
      if (mem.get(k) !== undefined) save((m) => void m.delete(k));
    },
  };
}
