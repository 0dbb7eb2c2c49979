// Writing the profile store: a proper-lockfile lock (conf has none), then conf's atomic replace (0600).
// The holder records `pid host` so a dead holder's lock is taken over at once (else by age); only one
// process removes an abandoned lock, under a second lock, after checking again.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Conf from 'conf';
import lockfile from 'proper-lockfile';
import { ConfigError } from '../errors.js';

/** How long a command waits for another mq process's lock, and when an unrefreshed lock is stale. */
export const LOCK_WAIT_MS = 10_000;
export const STALE_MS = 10_000;

export type Release = () => Promise<void>;

const lockDirOf = (file: string) => `${file}.lock`;
const ownerFileOf = (file: string) => join(lockDirOf(file), 'owner');

function lockError(file: string, why: string, hints: string[] = []): ConfigError {
  return new ConfigError(`the config file ${file} ${why}`, { hints });
}

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Owner {
  pid: number;
  host: string;
}

function readOwner(file: string): Owner | undefined {
  try {
    const m = /^(\d+) (\S+)\n$/.exec(readFileSync(ownerFileOf(file), 'utf8'));
    return m ? { pid: Number(m[1]), host: m[2] as string } : undefined;
  } catch {
    return undefined;
  }
}

/** A holder names itself right after taking the lock; a lock still unnamed after this is abandoned. */
const UNNAMED_GRACE_MS = 1_000;

/** Why the current lock may be taken over, or undefined while its holder may still be at work. */
function abandoned(file: string, now: number): { owner?: Owner } | undefined {
  let mtimeMs: number;
  try {
    mtimeMs = lstatSync(lockDirOf(file)).mtimeMs;
  } catch {
    return { owner: undefined }; // gone already: try again
  }
  const owner = readOwner(file);
  if (owner && owner.host === hostname() && owner.pid !== process.pid && !processExists(owner.pid)) return { owner };
  // No owner: a holder that died before naming itself, or an earlier mq's lock file (held for one write).
  if (!owner && now - mtimeMs > UNNAMED_GRACE_MS) return { owner };
  if (now - mtimeMs > STALE_MS) return { owner };
  return undefined;
}

async function takeOver(file: string, now: () => number): Promise<boolean> {
  const seen = abandoned(file, now());
  if (!seen) return false;
  let releaseGuard: Release;
  try {
    // Locked under its own name: proper-lockfile keeps one record per path per process, so relocking
    // `file` would overwrite the config lock's record of another caller here.
    releaseGuard = await lockfile.lock(`${file}.takeover`, {
      realpath: false,
      stale: 2_000,
      retries: 0,
      onCompromised: () => {},
    });
  } catch {
    return false; // another process is taking it over
  }
  try {
    const again = abandoned(file, now());
    if (!again || again.owner?.pid !== seen.owner?.pid) return false;
    rmSync(lockDirOf(file), { recursive: true, force: true });
    return true;
  } finally {
    await releaseGuard().catch(() => {});
  }
}

/** Takes the lock of `file`, waiting up to LOCK_WAIT_MS for another holder. */
export async function lockConfig(file: string, now: () => number = Date.now): Promise<Release> {
  const deadline = now() + LOCK_WAIT_MS;
  for (;;) {
    let compromised: Error | undefined;
    let release: Release;
    try {
      release = await lockfile.lock(file, {
        realpath: false,
        lockfilePath: lockDirOf(file),
        stale: STALE_MS,
        update: STALE_MS / 4,
        retries: 0,
        onCompromised: (err) => {
          compromised = err;
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTEMPTY: stale but not removable (our owner file is inside); ENOENT with the dir there: removed
      // mid take-over, retry; ENOTDIR: an earlier mq's lock file stands there.
      const vanished = code === 'ENOENT' && existsSync(dirname(file));
      if (code !== 'ELOCKED' && code !== 'ENOTEMPTY' && code !== 'ENOTDIR' && !vanished) {
        throw lockError(file, `cannot be locked (${code ?? (err as Error).message})`, [
          'check that the config directory is writable, or point MQ_CONFIG_DIR elsewhere',
        ]);
      }
      if (await takeOver(file, now)) continue;
      if (now() > deadline) {
        const owner = readOwner(file);
        throw lockError(
          file,
          `is locked by another mq process${owner ? ` (pid ${owner.pid})` : ''}: ${lockDirOf(file)}`,
          ['try again; remove the lock directory by hand if no mq is running'],
        );
      }
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      continue;
    }
    const unlock: Release = async () => {
      rmSync(ownerFileOf(file), { force: true });
      await release().catch(() => {});
    };
    try {
      writeFileSync(ownerFileOf(file), `${process.pid} ${hostname()}\n`, { mode: 0o600 });
    } catch (err) {
      await unlock();
      throw lockError(file, `cannot be locked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, [
        'free some space, or point MQ_CONFIG_DIR elsewhere',
      ]);
    }
    return async () => {
      await unlock();
      if (compromised)
        throw lockError(file, `lost its lock while being written (${compromised.message})`, [
          'check the file, and try again',
        ]);
    };
  }
}

/** Removes conf's temp files next to `file` (a failed write's, or a killed mq's); only under the lock. */
function removeTempFiles(file: string): void {
  const dir = dirname(file);
  const temp = new RegExp(`^${basename(file).replace(/[.]/g, '\\.')}\\.tmp-[0-9]{10}[0-9a-f]{6}$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!temp.test(name)) continue;
    try {
      if (lstatSync(join(dir, name)).isFile()) rmSync(join(dir, name), { force: true });
    } catch {
      // gone already
    }
  }
}

/** How the file is laid out: two-space JSON and a final newline (conf's default is tabs). */
const serialize = (doc: Record<string, unknown>): string => `${JSON.stringify(doc, null, 2)}\n`;

/** Replaces `file` with `doc` through conf (atomic, 0600); unchanged on failure, no temp file left. */
export function writeConfig(file: string, doc: Record<string, unknown>): void {
  try {
    const conf = new Conf<Record<string, unknown>>({
      cwd: dirname(file),
      configName: basename(file, '.json'),
      fileExtension: 'json',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      serialize,
    });
    removeTempFiles(file);
    conf.store = doc;
  } catch (err) {
    removeTempFiles(file);
    throw lockError(
      file,
      `cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); it is unchanged`,
      ['free some space or fix the permissions, then try again'],
    );
  }
}
