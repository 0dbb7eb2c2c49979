/**
 * wait, submit --wait, queue drain --wait and queue watch in virtual time: a fake client answers
 * each poll, a virtual clock moves only when the behaviour sleeps, so hours of waiting run at once
 * and every deadline is checked exactly.
 */
import { describe, expect, it } from 'vitest';
import { runQueueDrain } from '../../../src/commands/queue/drain.js';
import { runQueueWatch } from '../../../src/commands/queue/watch.js';
import { runSubmit } from '../../../src/commands/submit.js';
import { runWait } from '../../../src/commands/wait.js';
import { ExitCode, MqError } from '../../../src/errors.js';
import { MIN_POLL_MS } from '../../../src/util/poll.js';
import { FIXED_NOW, virtualClock } from '../../helpers/clock.js';
import { testDeps } from '../../helpers/deps.js';
import { fakeClient } from '../../helpers/fake-client.js';
import { entry, queueRecord } from '../../helpers/test-context.js';

const HOUR = 3_600_000;
const pr = (state: string, minutes: number, extra: Record<string, unknown> = {}) => ({
  prNumber: 42,
  state,
  stateChangedAt: new Date(FIXED_NOW + minutes * 60_000).toISOString(),
  isCurrentlySubmittedToQueue: !['merged', 'failed', 'cancelled'].includes(state),
  ...extra,
});
const unavailable = () => new MqError(ExitCode.unavailable, 'get PR #42', 'HTTP 503');

describe('wait (virtual time)', () => {
  it('pending -> testing -> merged: exit 0, transitions on stderr, one document', async () => {
    const clock = virtualClock();
    const fake = fakeClient({ getSubmittedPullRequest: [pr('pending', 0), pr('testing', 1), pr('merged', 30)] });
    const { deps, io } = testDeps({ clock, fake, options: { json: true } });
    const result = await runWait({ pr: 42, timeoutMs: 2 * HOUR, intervalMs: 15_000 }, deps);
    expect(result.exitCode).toBe(0);
    expect(io.stderr).toBe(
      'PR #42: pending\nPR #42: pending → testing (after 1m in pending)\nPR #42: testing → merged (after 29m in testing)\n✓ PR #42 merged\n',
    );
    expect(result.data).toMatchObject({
      pr: 42,
      outcome: 'merged',
      state: 'merged',
      transitions: [{ to: 'pending' }, { to: 'testing' }, { to: 'merged' }],
    });
    // Two sleeps of the interval, ±10% jitter.
    expect(clock.sleeps).toHaveLength(2);
    for (const s of clock.sleeps) expect(s).toBeGreaterThanOrEqual(13_500);
  });

  it('never terminal: exit 8 exactly at --timeout, every poll with the deadline and time to answer', async () => {
    const clock = virtualClock();
    const sentAt: number[] = [];
    const fake = fakeClient({ getSubmittedPullRequest: [() => (sentAt.push(clock.now()), pr('testing', 0))] });
    const { deps, io } = testDeps({ clock, fake });
    const result = await runWait({ pr: 42, timeoutMs: 2 * HOUR, intervalMs: 15_000 }, deps);
    expect(result.exitCode).toBe(ExitCode.timeout);
    expect(clock.now()).toBe(FIXED_NOW + 2 * HOUR);
    expect(io.stderr).toContain('✗ PR #42 still testing after 2h (--timeout)');
    const polls = fake.callsOf('getSubmittedPullRequest');
    expect(polls.length).toBeGreaterThan(400);
    for (const p of polls) expect(p.call?.deadline).toBe(FIXED_NOW + 2 * HOUR);
    // No poll goes out with only a few ms left.
    for (const t of sentAt) expect(FIXED_NOW + 2 * HOUR - t).toBeGreaterThanOrEqual(MIN_POLL_MS);
  });

  it('a wait that never reached the service ends with exit 6, and no "retrying" after the last try', async () => {
    const clock = virtualClock();
    const fake = fakeClient({ getSubmittedPullRequest: [unavailable()] });
    const { deps, io } = testDeps({ clock, fake });
    await expect(runWait({ pr: 42, timeoutMs: 60_000, intervalMs: 15_000 }, deps)).rejects.toMatchObject({
      exitCode: ExitCode.unavailable,
    });
    const tries = fake.callsOf('getSubmittedPullRequest').length;
    expect(io.stderr.match(/retrying/g)).toHaveLength(tries - 1);
  });

  it('503s in the middle are blips, not the outcome', async () => {
    const fake = fakeClient({
      getSubmittedPullRequest: [pr('testing', 0), unavailable(), unavailable(), pr('merged', 5)],
    });
    const { deps, io } = testDeps({ clock: virtualClock(), fake });
    const result = await runWait({ pr: 42, timeoutMs: 2 * HOUR, intervalMs: 15_000 }, deps);
    expect(result.exitCode).toBe(0);
    expect(io.stderr).toContain('! PR #42: poll failed (HTTP 503); retrying');
  });

  it('a record without a state is an unexpected answer (exit 1), not "undefined -> unknown"', async () => {
    const fake = fakeClient({ getSubmittedPullRequest: [{ prNumber: 42 }] });
    const { deps } = testDeps({ clock: virtualClock(), fake });
    await expect(runWait({ pr: 42, timeoutMs: HOUR, intervalMs: 15_000 }, deps)).rejects.toMatchObject({
      exitCode: ExitCode.unexpected,
      why: expect.stringContaining('without a state'),
    });
  });

  it('a record of another PR is an unexpected answer (exit 1)', async () => {
    const fake = fakeClient({ getSubmittedPullRequest: [pr('testing', 0, { prNumber: 7 })] });
    const { deps } = testDeps({ clock: virtualClock(), fake });
    await expect(runWait({ pr: 42, timeoutMs: HOUR, intervalMs: 15_000 }, deps)).rejects.toMatchObject({
      exitCode: ExitCode.unexpected,
      why: expect.stringContaining('PR #7'),
    });
  });

  it('left the queue without a terminal state: exit 9', async () => {
    const fake = fakeClient({ getSubmittedPullRequest: [pr('pending', 0, { isCurrentlySubmittedToQueue: false })] });
    const { deps } = testDeps({ clock: virtualClock(), fake });
    expect((await runWait({ pr: 42, timeoutMs: HOUR, intervalMs: 15_000 }, deps)).exitCode).toBe(ExitCode.leftQueue);
  });
});

describe('submit --wait (virtual time)', () => {
  it('--timeout bounds all of it: the submit request carries the same deadline as the polls', async () => {
    const clock = virtualClock();
    const fake = fakeClient({
      submitPullRequest: [undefined],
      getSubmittedPullRequest: [pr('pending', 0), pr('merged', 3)],
    });
    const { deps } = testDeps({ clock, fake });
    const result = await runSubmit({ prs: ['42'], parallel: 8, wait: { timeoutMs: HOUR, intervalMs: 15_000 } }, deps);
    expect(result.exitCode).toBe(0);
    expect(result.data).toMatchObject({ submitted: true, outcome: 'merged' });
    const deadline = FIXED_NOW + HOUR;
    expect(fake.callsOf('submitPullRequest')[0]?.call?.deadline).toBe(deadline);
    for (const p of fake.callsOf('getSubmittedPullRequest')) expect(p.call?.deadline).toBe(deadline);
  });
});

describe('queue drain --wait (virtual time)', () => {
  const draining = (prs: Array<Record<string, unknown>>) => queueRecord({ state: 'draining' }, prs);

  it('polls until nothing is in flight: exit 0, progress on stderr', async () => {
    const clock = virtualClock();
    const fake = fakeClient({
      getQueueState: ['running'],
      getQueue: [draining([entry(5, 'testing'), entry(6, 'pending')]), draining([entry(6, 'testing')]), draining([])],
      updateQueue: [draining([entry(5, 'testing')])],
    });
    const { deps, io } = testDeps({ clock, fake });
    const result = await runQueueDrain({ wait: { timeoutMs: 2 * HOUR, intervalMs: 10_000 } }, deps);
    expect(result.exitCode).toBe(0);
    expect(io.stderr).toContain('draining main: 2 PRs: 1 testing, 1 pending (0s)');
    expect(io.stderr).toContain('draining main: no PR in flight (20s)');
    expect(io.stderr).toContain('✓ drained main');
    expect(clock.sleeps).toEqual([10_000, 10_000]);
  });

  it('exit 8 at --timeout with the PRs still in flight', async () => {
    const clock = virtualClock();
    const fake = fakeClient({
      getQueueState: ['running'],
      getQueue: [draining([entry(5, 'testing')])],
      updateQueue: [draining([entry(5, 'testing')])],
    });
    const { deps, io } = testDeps({ clock, fake });
    const result = await runQueueDrain({ wait: { timeoutMs: HOUR, intervalMs: 10_000 } }, deps);
    expect(result.exitCode).toBe(ExitCode.timeout);
    expect(clock.now()).toBe(FIXED_NOW + HOUR);
    expect(io.stderr).toContain('✗ still 1 PR: 1 testing after 1h (--timeout): #5');
  });
});

describe('queue watch (virtual time)', () => {
  it('one line per change until Ctrl-C (exit 130)', async () => {
    const ac = new AbortController();
    const clock = virtualClock();
    let reads = 0;
    const fake = fakeClient({
      getQueue: [
        () => (reads++, queueRecord({}, [entry(1, 'pending')])),
        () => (reads++, queueRecord({}, [entry(1, 'testing')])),
        () => {
          reads++;
          ac.abort();
          return queueRecord({}, [entry(1, 'testing')]);
        },
      ],
    });
    const { deps, io } = testDeps({ clock, fake, signal: ac.signal });
    const result = await runQueueWatch({ interval: '5s', intervalMs: 5000 }, deps);
    expect(result.exitCode).toBe(ExitCode.interrupted);
    expect(reads).toBe(3);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      '2026-11-22T12:00:00.000Z\tqueue\t\trunning\tmain',
      '2026-11-22T12:00:00.000Z\t1\t\tpending\tChange number 1',
      '2026-11-22T12:00:05.000Z\t1\tpending\ttesting\tChange number 1',
    ]);
  });

  it('--json: one JSON object per change', async () => {
    const ac = new AbortController();
    const fake = fakeClient({
      getQueue: [
        queueRecord({}, [entry(1, 'pending')]),
        () => {
          ac.abort();
          return queueRecord({}, []);
        },
      ],
      getSubmittedPullRequest: [{ prNumber: 1, state: 'merged' }],
    });
    const { deps, io } = testDeps({ clock: virtualClock(), fake, signal: ac.signal, options: { json: true } });
    await runQueueWatch({ interval: '5s', intervalMs: 5000 }, deps);
    const events = io.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.at(-1)).toEqual({
      at: '2026-11-22T12:00:05.000Z',
      subject: 'pr',
      pr: 1,
      from: 'pending',
      to: 'merged',
      title: 'Change number 1',
    });
  });
});
