/**
 * Owning a `--data-dir`: one emulator per directory. The owner holds `emulator.lock` (its pid);
 * a second emulator finds a live pid there and refuses to start, naming it. A lock whose process
 * is gone (kill -9, power loss) is taken over. Start-up also checks the directory can be written
 * (so `--data-dir /proc/x` fails at once, not on the first request) and removes temp files a crash
 * left behind.
 */
import { closeSync, linkSync, mkdirSync, openSync, statSync, readFileSync, readdirSync, renameSync, unlinkSync, writeSync, fsyncSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const LOCK_FILE = 'emulator.lock';

export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

function describeFsError(dir: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return `--data-dir ${dir} cannot be used: ${e.code ? `${e.code} ` : ''}${e.message.replace(/^\w+: /, '')}`;
}

/**
 * mkdir -p without `recursive: true`: Node's recursive mkdir retries for ever where the kernel
 * answers ENOENT for a path whose parent exists (/proc), which hung `--data-dir /proc/x`.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) throw Object.assign(new Error(`${d} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw err;
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    try {
      mkdirSync(d, 0o700);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Creates the directory if needed and fails with a plain message when it cannot hold files. */
export function prepareDataDir(dir: string): void {
  try {
    makeDirs(dir);
    const probe = join(dir, `.probe.${process.pid}.tmp`);
    const fd = openSync(probe, 'w', 0o600);
    try {
      writeSync(fd, 'ok');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    unlinkSync(probe);
  } catch (err) {
    throw new DataDirError(describeFsError(dir, err));
  }
}

export interface DataDirLock {
  release(): void;
}

/** Takes the directory's lock or throws DataDirError naming the pid that holds it. */
export function lockDataDir(dir: string): DataDirLock {
  const file = join(dir, LOCK_FILE);
  for (let tries = 0; tries < 5; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          if (readPid(file) === process.pid) {
            try {
              unlinkSync(file);
            } catch {
              // already gone
            }
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new DataDirError(describeFsError(dir, err));
    }
    const holder = readPid(file);
    if (holder !== undefined && pidAlive(holder)) {
      throw new DataDirError(`--data-dir ${dir} is in use by another emulator (pid ${holder}); stop it or choose another --data-dir`);
    }
    // Stale (its process is gone, or the file is empty/torn): move it aside, then make sure what was
    // moved is the stale lock and not one a racing emulator created in between.
    const aside = `${file}.stale.${process.pid}.${tries}`;
    try {
      renameSync(file, aside);
    } catch {
      continue; // someone else moved it first; retry the exclusive create
    }
    const moved = readPid(aside);
    if (moved !== holder && moved !== undefined && pidAlive(moved)) {
      try {
        linkSync(aside, file);
      } catch {
        // a third party holds it now; the exclusive create below will tell
      }
    }
    try {
      unlinkSync(aside);
    } catch {
      // fine
    }
  }
  throw new DataDirError(`--data-dir ${dir}: could not take the lock ${file}`);
}

/** Removes temp files a crash left behind (ours are `.<name>.<pid>.<n>.tmp`). */
export function removeStaleTempFiles(dir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('.') || !name.endsWith('.tmp')) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // not ours to remove, or gone
    }
  }
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`${LOCK_FILE}.stale.`)) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // fine
      }
    }
  }
  return removed;
}
