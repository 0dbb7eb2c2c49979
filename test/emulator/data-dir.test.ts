/**
 * `--data-dir` against other users: links planted under the names the emulator writes are never
 * followed, a directory others could write (or another user owns) is refused, and the lock names
 * the process by pid and start time, so a restarted PID 1 takes over its predecessor's lock.
 */
import { chmod, chown, lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runEmulatorStart, startEmulator } from '../../src/emulator/index.js';
import { LOCK_FILE, lockDataDir, prepareDataDir, processStartTime } from '../../src/emulator/data-dir.js';
import { loadState } from '../../src/emulator/store.js';
import { queue, startTestEmulator, TOKEN } from './http-helpers.js';

const linux = process.platform === 'linux';
let root: string;
let dir: string;
let target: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mq-datadir-'));
  dir = join(root, 'data');
  target = join(root, 'precious.txt');
  await writeFile(target, 'precious');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('planted links', () => {
  it("the clean stop's snapshot replaces links at its temp names and leaves their targets untouched", async () => {
    const { emu, client } = await startTestEmulator({ dataDir: dir });
    await client.post('createQueue', queue);
    await client.post('submitPullRequest', { ...queue, pr: { number: 7 } });
    // Planted after start-up (which clears leftovers), as someone reading the pid in `ps` would.
    for (let n = 1; n <= 20; n++) await symlink(target, join(dir, `.state.json.${process.pid}.${n}.tmp`));
    await emu.close();
    expect(await readFile(target, 'utf8')).toBe('precious');
    expect((await lstat(join(dir, 'state.json'))).isFile()).toBe(true);
    expect(Object.keys(Object.values((await loadState(dir))!.queues)[0]!.entries)).toEqual(['7']);
  });

  it("start-up's write probe does not follow a link at its name", async () => {
    prepareDataDir(dir);
    await symlink(target, join(dir, `.probe.${process.pid}.tmp`));
    prepareDataDir(dir);
    expect(await readFile(target, 'utf8')).toBe('precious');
  });
});

describe('who may write the directory', () => {
  it('refuses a group-writable directory: exit 2, naming the directory, the rule and a hint', async () => {
    prepareDataDir(dir);
    await chmod(dir, 0o770);
    await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(
      `--data-dir ${dir} can be written by its group (mode 770); the emulator's data directory must be writable by its owner only`,
    );
    const err: string[] = [];
    const code = await runEmulatorStart(
      { dataDir: dir, port: 0, token: TOKEN },
      { stdout: () => {}, stderr: (s) => err.push(s) },
    );
    expect(code).toBe(2);
    expect(err.join('')).toBe(
      `mq: emulator: could not start: --data-dir ${dir} can be written by its group (mode 770); ` +
        `the emulator's data directory must be writable by its owner only\nhint: chmod go-w ${dir}, or choose another --data-dir\n`,
    );
    await chmod(dir, 0o703);
    await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(
      'can be written by others (mode 703)',
    );
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a directory another user owns (run as root: it can chown)', async () => {
    prepareDataDir(dir);
    await chown(dir, 65534, 65534);
    await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(
      `--data-dir ${dir} is owned by uid 65534, not by this user (uid 0)`,
    );
  });
});

describe.skipIf(!linux)('the lock names pid and start time', () => {
  const own = () => processStartTime(process.pid) as string;

  it('reads a start time for this process and for pid 1', () => {
    expect(own()).toMatch(/^\d+$/);
    expect(processStartTime(1)).toMatch(/^\d+$/);
  });

  it('takes over a lock naming this pid with another start time (a restarted PID 1), or this pid alone', async () => {
    prepareDataDir(dir);
    for (const stale of [`${process.pid} ${Number(own()) + 1}\n`, `${process.pid}\n`]) {
      await writeFile(join(dir, LOCK_FILE), stale);
      const lock = lockDataDir(dir);
      expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid} ${own()}\n`);
      lock.release();
    }
  });

  it('refuses a lock held by a live process with its start time: another one, or this very process', async () => {
    prepareDataDir(dir);
    await writeFile(join(dir, LOCK_FILE), `1 ${processStartTime(1)}\n`);
    expect(() => lockDataDir(dir)).toThrow(`--data-dir ${dir} is in use by another emulator (pid 1)`);
    await writeFile(join(dir, LOCK_FILE), `1 ${Number(processStartTime(1)) + 1}\n`);
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(`is in use by another emulator (pid ${process.pid})`);
    lock.release();
  });
});
