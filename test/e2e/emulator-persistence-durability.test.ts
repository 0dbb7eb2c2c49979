/**
 * `--data-dir` ownership and durability with real processes: one emulator per directory (a live
 * owner is named, a dead one's lock is taken over, crash leftovers are removed), kill -9 in the
 * middle of many kinds of acknowledged changes loses none of them, and a change that cannot be
 * written (a full disk) is refused with 5xx and never shows.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startEmulator } from '../../src/emulator/index.js';
import { loadState } from '../../src/emulator/store.js';
import { Client, T0, TOKEN, queue, startTestEmulator } from '../emulator/http-helpers.js';
import { runChild, startChild } from '../emulator/persistence-child.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mq-emu-dur-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('one owner per --data-dir', () => {
  it('refuses a second emulator on the same directory, naming the pid that holds it', async () => {
    const first = await startChild(['--clock', 'manual', '--data-dir', dir]);
    try {
      const second = await runChild(['--clock', 'manual', '--data-dir', dir]);
      expect(second.code).not.toBe(0);
      expect(second.stdout).toBe('');
      expect(second.stderr).toContain(`in use by another emulator (pid ${first.child.pid})`);
      // The owner is untouched and still answers.
      const c = new Client({ url: first.url, token: TOKEN });
      expect((await c.post('createQueue', queue)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      expect((await first.exited).code).toBe(0);
    }
    // A clean stop releases the directory.
    expect(existsSync(join(dir, 'emulator.lock'))).toBe(false);
    const third = await startChild(['--clock', 'manual', '--data-dir', dir]);
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
  }, 30_000);

  it('takes over the lock of a killed emulator and removes the temp files its crash left', async () => {
    const first = await startChild(['--clock', 'manual', '--data-dir', dir]);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(readFileSync(join(dir, 'emulator.lock'), 'utf8').split(' ')[0]).toBe(String(first.child.pid)); // pid, start time
    writeFileSync(join(dir, `.state.json.${first.child.pid}.3.tmp`), '{"half": ');
    const second = await startChild(['--clock', 'manual', '--data-dir', dir]);
    try {
      expect(readFileSync(join(dir, 'emulator.lock'), 'utf8').split(' ')[0]).toBe(String(second.child.pid)); // pid, start time
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 30_000);
});

describe('kill -9', () => {
  it('keeps every acknowledged change of every kind, replayed from the journal', async () => {
    const data = join(dir, 'data');
    const emu = await startChild(['--clock', 'manual', '--data-dir', data, '--seed', '5']);
    const c = new Client({ url: emu.url, token: TOKEN });
    expect((await c.post('createQueue', { ...queue, concurrency: 2 })).status).toBe(200);

    const submitted = new Set<number>();
    const cancelled = new Set<number>();
    const titled = new Map<number, string>();
    let advancedTo = '';
    let stop = false;
    const submitter = async (start: number) => {
      for (let n = start; !stop; n += 3) {
        try {
          if ((await c.post('submitPullRequest', { ...queue, pr: { number: n } })).status === 200) submitted.add(n);
          if (n % 5 === 0 && (await c.post('cancelPullRequest', { ...queue, pr: { number: n } })).status === 200)
            cancelled.add(n);
        } catch {
          return; // the process is gone
        }
      }
    };
    const scripter = async () => {
      for (let n = 10_000; !stop; n++) {
        try {
          const title = `title ${n}`;
          if ((await c.post('/_emulator/pullRequests', { repo: queue.repo, number: n, title })).status === 200)
            titled.set(n, title);
          const a = await c.advance(1);
          if (a.status === 200) advancedTo = a.json().now;
        } catch {
          return;
        }
      }
    };
    const workers = [submitter(1), submitter(2), submitter(3), scripter()];
    while (submitted.size < 150) await new Promise((r) => setTimeout(r, 5));
    emu.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await emu.exited;

    // Not a clean stop: the journal holds changes the snapshot does not.
    expect(readdirSync(data).some((f) => /^journal\.\d+\.log$/.test(f))).toBe(true);
    const restarted = await startTestEmulator({ dataDir: data });
    try {
      const r = restarted.client;
      for (const n of submitted) {
        const pr = await r.pr(n);
        if (cancelled.has(n)) expect(pr.state, `PR ${n} was cancelled`).toBe('cancelled');
      }
      for (const [n, title] of titled) {
        const a = await r.post('/_emulator/pullRequests', { repo: queue.repo, number: n });
        expect(a.json().title, `fake PR ${n}`).toBe(title);
      }
      const now = (await r.get('/_emulator/clock')).json().now as string;
      expect(Date.parse(now)).toBeGreaterThanOrEqual(Date.parse(advancedTo));
    } finally {
      await restarted.emu.close();
    }
  }, 60_000);
});

describe('snapshots', () => {
  it('compacts the journal into state.json while running, and a restart sees the same state', async () => {
    const { emu, client } = await startTestEmulator({ dataDir: dir, snapshotMinBytes: 2_000 });
    await client.post('createQueue', { ...queue, concurrency: 3 });
    for (let n = 1; n <= 60; n++)
      expect((await client.post('submitPullRequest', { ...queue, pr: { number: n } })).status).toBe(200);
    await client.advance(5);
    const snap = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { seq: number };
    expect(snap.seq).toBeGreaterThan(10);
    // Older journal files go once a snapshot covers them.
    expect(readdirSync(dir).filter((f) => f.startsWith('journal.')).length).toBeLessThanOrEqual(3);
    const live = await loadState(dir);
    const before = await client.post('getQueue', queue);
    await emu.close();
    expect(readdirSync(dir).sort()).toEqual(['state.json']);
    const again = await startTestEmulator({ dataDir: dir });
    try {
      expect((await again.client.post('getQueue', queue)).json()).toEqual(before.json());
      expect((await loadState(dir))!.queues).toEqual(live!.queues);
    } finally {
      await again.emu.close();
    }
  });

  it('refuses a state file holding an impossible time', async () => {
    const { emu } = await startTestEmulator({ dataDir: dir });
    await emu.close();
    const file = join(dir, 'state.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    saved.state.now = 9e15;
    writeFileSync(file, JSON.stringify(saved));
    await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(/impossible time/);
    saved.state.now = -1;
    writeFileSync(file, JSON.stringify(saved));
    await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(/impossible time/);
  });
});

describe('retention', () => {
  it('drops concluded PRs older than 45 days of emulator time, keeps live ones, and the journal replays it', async () => {
    const { emu, client } = await startTestEmulator({ dataDir: dir });
    try {
      await client.post('createQueue', queue);
      await client.post('/_emulator/pullRequests', { repo: queue.repo, number: 2, mergeable: false });
      await client.post('submitPullRequest', { ...queue, pr: { number: 1 } });
      await client.post('cancelPullRequest', { ...queue, pr: { number: 1 } });
      await client.post('submitPullRequest', { ...queue, pr: { number: 2 } });
      await client.advance(44 * 24 * 60);
      expect((await client.pr(1)).state).toBe('cancelled');
      await client.advance(2 * 24 * 60);
      expect((await client.post('getSubmittedPullRequest', { ...queue, pr: { number: 1 } })).status).toBe(404);
      expect((await client.pr(2)).state).toBe('not_ready');
      expect((await client.runs()).length).toBe(0);
      // Read from disk while running: snapshot + journal replay show the same.
      const entries = Object.values((await loadState(dir))!.queues)[0]!.entries;
      expect(Object.keys(entries)).toEqual(['2']);
    } finally {
      await emu.close();
    }
  });
});

// A full disk needs a filesystem of its own: a small tmpfs (root and a kernel that allows it).
const fullDisk = (() => {
  const probe = join(tmpdir(), `mq-tmpfs-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
})();

describe('a full disk', () => {
  it.skipIf(!fullDisk)(
    'refuses a change it cannot make durable with 503; it never shows, and later changes work again',
    async () => {
      const mnt = join(dir, 'mnt');
      mkdirSync(mnt);
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]).status).toBe(0);
      try {
        const data = join(mnt, 'data');
        const { emu, client } = await startTestEmulator({ dataDir: data, startTime: T0 });
        try {
          expect((await client.post('createQueue', queue)).status).toBe(200);
          // Fill the filesystem to the last byte.
          const filler = join(mnt, 'filler');
          for (const chunk of [65_536, 4_096, 1]) {
            try {
              for (;;) appendFileSync(filler, Buffer.alloc(chunk));
            } catch (err) {
              expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
            }
          }
          const acknowledged: number[] = [];
          let refused: number | undefined;
          for (let n = 1; n <= 200 && refused === undefined; n++) {
            const a = await client.post('submitPullRequest', { ...queue, pr: { number: n } });
            if (a.status === 200) acknowledged.push(n);
            else {
              expect(a.status).toBe(503);
              expect(a.text).toContain('could not be made durable');
              refused = n;
            }
          }
          expect(refused).toBeDefined();
          // The refused change is not there; everything acknowledged is.
          expect((await client.post('getSubmittedPullRequest', { ...queue, pr: { number: refused! } })).status).toBe(
            404,
          );
          for (const n of acknowledged) expect((await client.pr(n)).state).not.toBe('cancelled');
          rmSync(filler);
          expect((await client.post('submitPullRequest', { ...queue, pr: { number: 500 } })).status).toBe(200);
        } finally {
          await emu.close();
        }
        const again = await startTestEmulator({ dataDir: data });
        try {
          expect((await again.client.post('getSubmittedPullRequest', { ...queue, pr: { number: 500 } })).status).toBe(
            200,
          );
          const entries = Object.keys(Object.values((await loadState(data))!.queues)[0]!.entries).map(Number);
          expect(entries).toContain(500);
        } finally {
          await again.emu.close();
        }
      } finally {
        spawnSync('umount', ['-l', mnt]);
      }
    },
    30_000,
  );
});
