import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockConfig, processExists } from '../../src/config/write.js';

function setup(owner?: string, mtime?: Date): { file: string; lock: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mq-lock-'));
  const file = join(dir, 'config.json');
  const lock = `${file}.lock`;
  mkdirSync(lock);
  if (owner !== undefined) writeFileSync(join(lock, 'owner'), owner);
  if (mtime) utimesSync(lock, mtime, mtime);
  return { file, lock };
}

const future = () => new Date(Date.now() + 3_600_000);
const past = () => new Date(Date.now() - 3_600_000);
const deadPid = () =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

/** A clock that jumps 6 s per reading: the 10 s wait is over after a couple of tries. */
function jumpingClock(): () => number {
  let t = Date.now();
  return () => (t += 6_000);
}

describe('the config lock', () => {
  it('processExists tells a live pid from a dead one', () => {
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(deadPid())).toBe(false);
  });

  it('records its owner and removes everything on release', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mq-lock-'));
    const file = join(dir, 'config.json');
    const release = await lockConfig(file);
    expect(readFileSync(join(`${file}.lock`, 'owner'), 'utf8')).toBe(`${process.pid} ${hostname()}\n`);
    await release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a lock whose owner is gone is taken over, however fresh it looks', async () => {
    const { file } = setup(`${deadPid()} ${hostname()}\n`, future());
    const release = await lockConfig(file, jumpingClock());
    expect(readFileSync(join(`${file}.lock`, 'owner'), 'utf8')).toBe(`${process.pid} ${hostname()}\n`);
    await release();
  });

  it('a lock held by a live process is waited for, then refused naming its pid, and left alone', async () => {
    const owner = `${process.ppid} ${hostname()}\n`;
    const { file, lock } = setup(owner, future());
    await expect(lockConfig(file, jumpingClock())).rejects.toThrow(
      `is locked by another mq process (pid ${process.ppid})`,
    );
    expect(readFileSync(join(lock, 'owner'), 'utf8')).toBe(owner);
  });

  it('a lock from another host is judged by its age only', async () => {
    const fresh = setup(`${deadPid()} some-other-host\n`, future());
    await expect(lockConfig(fresh.file, jumpingClock())).rejects.toThrow('is locked by another mq process');
    const old = setup(`${deadPid()} some-other-host\n`, past());
    const release = await lockConfig(old.file);
    await release();
  });

  it('a lock without an owner (its holder died before writing it) is taken over once old', async () => {
    const fresh = setup(undefined, future());
    await expect(lockConfig(fresh.file, jumpingClock())).rejects.toThrow('is locked by another mq process');
    const old = setup(undefined, past());
    const release = await lockConfig(old.file);
    await release();
  });

  it('an unnamed lock folder two seconds old is taken over at once, not after the 10 s age limit', async () => {
    const { file } = setup(undefined, new Date(Date.now() - 2_000));
    const started = Date.now();
    const release = await lockConfig(file);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readFileSync(join(`${file}.lock`, 'owner'), 'utf8')).toBe(`${process.pid} ${hostname()}\n`);
    await release();
  });

  it.each([
    ['two seconds', 2_000],
    ['an hour', 3_600_000],
  ])("an earlier mq's lock file (not a folder) %s old is taken over", async (_, age) => {
    const dir = mkdtempSync(join(tmpdir(), 'mq-lock-'));
    const file = join(dir, 'config.json');
    writeFileSync(`${file}.lock`, '');
    const then = new Date(Date.now() - age);
    utimesSync(`${file}.lock`, then, then);
    const release = await lockConfig(file);
    expect(readFileSync(join(`${file}.lock`, 'owner'), 'utf8')).toBe(`${process.pid} ${hostname()}\n`);
    await release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  // A longer limit than the lock's own 10 s wait: on a loaded machine the test must end by the lock's answer, not by vitest's timer.
  it('several takers of one abandoned lock get it one at a time', { timeout: 30_000 }, async () => {
    const { file } = setup(`${deadPid()} ${hostname()}\n`, future());
    let holders = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        const release = await lockConfig(file);
        holders += 1;
        most = Math.max(most, holders);
        await new Promise((r) => setTimeout(r, 5));
        holders -= 1;
        await release();
      }),
    );
    expect(most).toBe(1);
  });

  // Callers in one process share proper-lockfile's record of a locked path: the take-over guard once
  // used the config file's own record, so a holder's release failed and left the lock behind.
  it('twenty rounds of six takers in one process: every round ends with the lock gone', {
    timeout: 120_000,
  }, async () => {
    const dead = deadPid();
    let left = 0;
    for (let round = 0; round < 20; round++) {
      const { file, lock } = setup(`${dead} ${hostname()}\n`, future());
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          const release = await lockConfig(file);
          await new Promise((r) => setTimeout(r, 1));
          await release();
        }),
      );
      if (existsSync(lock)) left += 1;
    }
    expect(left).toBe(0);
  });
});
