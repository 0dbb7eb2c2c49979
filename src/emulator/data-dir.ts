// One emulator per `--data-dir`: the owner holds `emulator.lock` (pid, start time); a lock of a dead or
// reused pid is taken over. Refuses a directory another user owns or can write (planted links),
// checks it is writable and removes a crash's temp files.
import {
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export const LOCK_FILE = 'emulator.lock';

/** A new file: created by this call or refused (O_EXCL), never opened through a link (O_NOFOLLOW). */
export const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export class DataDirError extends Error {
  /** 2: the directory is refused as given (usage); 1: it could not be used. */
  readonly exitCode: 1 | 2;
  readonly hint: string;
  constructor(
    message: string,
    exitCode: 1 | 2 = 1,
    hint = 'give --data-dir a directory this user can create and write, e.g. --data-dir .mq-emulator',
  ) {
    super(message);
    this.name = 'DataDirError';
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Opens `path` as NEW_FILE; a planted link or leftover under our temp name is removed, not followed. */
export function openNewFile(path: string): number {
  for (let tries = 0; ; tries++) {
    try {
      return openSync(path, NEW_FILE, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 3) throw err;
      unlinkSync(path); // removes the link itself, never its target
    }
  }
}

export async function openNewFileHandle(path: string): Promise<FileHandle> {
  for (let tries = 0; ; tries++) {
    try {
      return await open(path, NEW_FILE, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 3) throw err;
      await unlink(path);
    }
  }
}

/** The start time of process `pid` (clock ticks since boot, /proc/<pid>/stat field 22); undefined where unknown. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the name, in parentheses) may hold spaces: count fields after its closing parenthesis.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
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

/** Lock files this process holds (a lock naming our pid without a start time is ours only if listed). */
const heldHere = new Set<string>();

/** What a lock file holds: `<pid> [<start time>]`; an unreadable or torn one holds nothing. */
function readLock(file: string): { text: string; pid: number | undefined; start: string | undefined } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // gone
  }
  const [pid, start] = text.trim().split(/\s+/);
  const n = Number.parseInt(pid ?? '', 10);
  return { text, pid: Number.isFinite(n) ? n : undefined, start: start && /^\d+$/.test(start) ? start : undefined };
}

/** The lock's process still runs: its pid is alive and, when both are known, has the start time recorded. */
function holderAlive(file: string, pid: number | undefined, start: string | undefined): boolean {
  if (pid === undefined || !pidAlive(pid)) return false;
  const now = processStartTime(pid);
  if (start !== undefined && now !== undefined) return start === now;
  return pid !== process.pid || heldHere.has(resolve(file));
}

/** Refuses a directory another user owns or group/others can write (they could plant links; not on Windows). */
function checkOwnership(dir: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const st = statSync(dir);
  if (st.uid !== uid) {
    throw new DataDirError(
      `--data-dir ${dir} is owned by uid ${st.uid}, not by this user (uid ${uid}); the emulator keeps its ` +
        `data only in a directory of its own`,
      2,
      'choose a directory this user owns, e.g. --data-dir .mq-emulator',
    );
  }
  if ((st.mode & 0o022) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
    const who = (st.mode & 0o022) === 0o022 ? 'its group and others' : st.mode & 0o020 ? 'its group' : 'others';
    throw new DataDirError(
      `--data-dir ${dir} can be written by ${who} (mode ${mode}); the emulator's data directory must be ` +
        `writable by its owner only`,
      2,
      `chmod go-w ${dir}, or choose another --data-dir`,
    );
  }
}

function describeFsError(dir: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return `--data-dir ${dir} cannot be used: ${e.code ? `${e.code} ` : ''}${e.message.replace(/^\w+: /, '')}`;
}

// mkdir -p without `recursive`: Node's retries for ever where the kernel says ENOENT (/proc/x hung).
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

/** Creates the directory if needed and fails with a plain message when it cannot hold files or is not safe to. */
export function prepareDataDir(dir: string): void {
  try {
    makeDirs(dir);
    checkOwnership(dir);
    const probe = join(dir, `.probe.${process.pid}.tmp`);
    const fd = openNewFile(probe);
    try {
      writeSync(fd, 'ok');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    unlinkSync(probe);
  } catch (err) {
    throw err instanceof DataDirError ? err : new DataDirError(describeFsError(dir, err));
  }
}

export interface DataDirLock {
  release(): void;
}

/** Takes the directory's lock or throws DataDirError naming the pid that holds it. */
export function lockDataDir(dir: string): DataDirLock {
  const file = join(dir, LOCK_FILE);
  const start = processStartTime(process.pid);
  const mine = `${process.pid}${start === undefined ? '' : ` ${start}`}\n`;
  for (let tries = 0; tries < 5; tries++) {
    try {
      const fd = openSync(file, NEW_FILE, 0o600);
      try {
        writeSync(fd, mine);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      heldHere.add(resolve(file));
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          heldHere.delete(resolve(file));
          if (readLock(file).text === mine) {
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
    const holder = readLock(file);
    if (holderAlive(file, holder.pid, holder.start)) {
      throw new DataDirError(
        `--data-dir ${dir} is in use by another emulator (pid ${holder.pid}); stop it or choose another --data-dir`,
      );
    }
    // Stale: move it aside, then check what moved is the stale lock, not a racing emulator's new one.
    const aside = `${file}.stale.${process.pid}.${tries}`;
    try {
      renameSync(file, aside);
    } catch {
      continue; // someone else moved it first; retry the exclusive create
    }
    const moved = readLock(aside);
    if (moved.text !== holder.text && holderAlive(file, moved.pid, moved.start)) {
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
