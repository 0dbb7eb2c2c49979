/**
 * wait --requeue and submit --wait --requeue on the in-process emulator in virtual time: each sleep of
 * the wait moves the emulator's manual clock, the simulated CI is scripted per PR and per attempt
 * (`outcomes`: pass, fail, hang = time out; `breaksBuild`: fails every time).
 */
import { describe, expect, it } from 'vitest';
import { runSubmit } from '../../../src/commands/submit.js';
import { runWait } from '../../../src/commands/wait.js';
import type { Clock } from '../../../src/util/clock.js';
import { type Client, queue, repo, T0, useEmulator } from '../../emulator/http-helpers.js';
import { testDeps } from '../../helpers/deps.js';
import { TOKEN } from '../../helpers/run-cli.js';
import { FIXED_NOW, virtualClock } from '../../helpers/clock.js';
import { fakeClient } from '../../helpers/fake-client.js';
import { ExitCode, MqError } from '../../../src/errors.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A clock that moves the emulator's: `at` runs a step when the virtual time reaches its minute. */
function emulatorClock(client: Client, at: Record<number, () => Promise<unknown>> = {}): Clock {
  let now = T0;
  const due = Object.entries(at)
    .map(([m, fn]) => ({ t: T0 + Number(m) * MIN, fn }))
    .sort((a, b) => a.t - b.t);
  return {
    now: () => now,
    sleep: async (ms) => {
      const to = now + ms;
      while (due[0] && due[0].t <= to) {
        const step = due.shift() as (typeof due)[number];
        await client.advance((step.t - now) / MIN);
        now = step.t;
        await step.fn();
      }
      await client.advance((to - now) / MIN);
      now = to;
    },
  };
}

describe('wait --requeue on the emulator (virtual time)', () => {
  const { emu, client } = useEmulator({ token: TOKEN });
  const fakePr = (number: number, extra: Record<string, unknown>) =>
    client.post('/_emulator/pullRequests', { repo, number, ...extra });
  const submit = (number: number) => client.post('submitPullRequest', { ...queue, pr: { number } });
  const setup = async (clock: Clock, settings: Record<string, unknown> = {}) => {
    await client.post('createQueue', queue);
    if (Object.keys(settings).length > 0) await client.post('updateQueue', { ...queue, ...settings });
    return testDeps({
      clock,
      apiUrl: emu.url,
      env: { MQ_REPO: 'github.com/acme/app', MQ_RETRY_BASE_MS: '5' },
      options: { json: true },
    });
  };
  const wait = (requeue?: { max: number; flakyChecks?: string[] }, timeoutMs = 6 * HOUR) => ({
    timeoutMs,
    intervalMs: MIN,
    ...(requeue ? { requeue: { max: requeue.max, flakyChecks: requeue.flakyChecks ?? [] } } : {}),
  });

  it('a flake (the check passed in an earlier run of the same commit): requeued once, then merged', async () => {
    // #2 passes on top of #1, #1 is cancelled, #2's retest fails: `ci` passed before on the same commit.
    await fakePr(1, { testMinutes: 30 });
    await fakePr(2, { outcomes: ['pass', 'fail', 'pass'] });
    const clock = emulatorClock(client, {
      15: () => client.post('cancelPullRequest', { ...queue, pr: { number: 1 } }),
    });
    const { deps, io } = await setup(clock, { concurrency: 2 });
    await submit(1);
    const result = await runSubmit({ prs: ['2'], parallel: 1, wait: wait({ max: 2 }) }, deps);
    expect(result.exitCode).toBe(0);
    const data = result.data as any;
    expect(data.outcome).toBe('merged');
    expect(data.requeues).toHaveLength(1);
    expect(data.requeues[0]).toMatchObject({ attempt: 1, kind: 'flaky' });
    expect(data.requeues[0].reason).toMatch(/^`ci` passed in run \S+ on the same commit$/);
    expect(data.requeues[0].runId).toEqual(expect.any(String));
    expect(data.failure).toMatchObject({ kind: 'flaky' });
    expect(io.stderr).toMatch(/↻ PR #2 requeued \(1 of 2\): a flake: `ci` passed in run \S+ on the same commit\n/);
    expect(data.transitions.map((t: any) => t.to)).toContain('failed');
  });

  it('an infrastructure failure (the run timed out) is requeued; the retest merges it', async () => {
    await fakePr(2, { outcomes: ['hang', 'pass'] });
    const { deps, io } = await setup(emulatorClock(client), { testingTimeoutMinutes: 30 });
    const result = await runSubmit({ prs: ['2'], parallel: 1, wait: wait({ max: 1 }) }, deps);
    expect(result.exitCode).toBe(0);
    const data = result.data as any;
    expect(data.requeues).toEqual([
      expect.objectContaining({
        attempt: 1,
        kind: 'infrastructure',
        reason: 'the test run timed out (TEST_RUN_TIMEOUT)',
      }),
    ]);
    expect(io.stderr).toContain('↻ PR #2 requeued (1 of 1): an infrastructure failure: the test run timed out');
  });

  it('a failure of its own (fails every time): exit 9, no requeue, the reason said', async () => {
    await fakePr(2, { breaksBuild: true });
    const { deps, io } = await setup(emulatorClock(client));
    const result = await runSubmit({ prs: ['2'], parallel: 1, wait: wait({ max: 3 }) }, deps);
    expect(result.exitCode).toBe(9);
    const data = result.data as any;
    expect(data.outcome).toBe('failed');
    expect(data.requeues).toEqual([]);
    expect(data.failure).toMatchObject({ kind: 'own', checks: ['ci'] });
    expect(io.stderr).toContain(
      '· PR #2 not requeued: its own failure: `ci` failed and passed in no other run of the same commit\n✗ PR #2 failed\n',
    );
    expect((await client.runs()).filter((r) => r.prNumbers.includes(2))).toHaveLength(1);
  });

  it("the budget spent: mq wait resubmits twice (with its record's priority), then exit 9 with a note", async () => {
    await fakePr(2, { outcomes: ['hang', 'hang', 'hang'] });
    const { deps, io } = await setup(emulatorClock(client), { testingTimeoutMinutes: 30 });
    await client.post('submitPullRequest', { ...queue, pr: { number: 2 }, priority: 'high', noBatch: true });
    const result = await runWait({ pr: 2, ...wait({ max: 2 }) }, deps);
    expect(result.exitCode).toBe(9);
    const data = result.data as any;
    expect(data.requeues.map((r: any) => [r.attempt, r.kind])).toEqual([
      [1, 'infrastructure'],
      [2, 'infrastructure'],
    ]);
    expect(io.stderr).toContain(
      '· PR #2 not requeued: an infrastructure failure: the test run timed out (TEST_RUN_TIMEOUT); ' +
        'the requeue budget is spent (2 of 2)\n✗ PR #2 failed\n',
    );
    expect((await client.runs()).filter((r) => r.prNumbers.includes(2))).toHaveLength(3);
    expect(await client.pr(2)).toMatchObject({ priorityValue: 10, noBatch: true });
  });

  it('--flaky-check names the failing check: requeued, then merged', async () => {
    await fakePr(2, { outcomes: ['fail', 'pass'] });
    const { deps, io } = await setup(emulatorClock(client));
    const result = await runSubmit(
      { prs: ['2'], parallel: 1, wait: wait({ max: 1, flakyChecks: ['lint', 'ci'] }) },
      deps,
    );
    expect(result.exitCode).toBe(0);
    expect((result.data as any).requeues).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'flaky', reason: '`ci` listed with --flaky-check' }),
    ]);
    expect(io.stderr).toContain('↻ PR #2 requeued (1 of 1): a flake: `ci` listed with --flaky-check\n');
  });

  it('a PR held in pending_failure is not resubmitted: the requeue comes once it has failed', async () => {
    await fakePr(1, { testMinutes: 30 });
    await fakePr(2, { outcomes: ['fail', 'pass'] });
    const { deps } = await setup(emulatorClock(client), { concurrency: 2, pendingFailureDepth: 1 });
    await submit(1);
    const result = await runSubmit({ prs: ['2'], parallel: 1, wait: wait({ max: 1, flakyChecks: ['ci'] }) }, deps);
    const data = result.data as any;
    const held = data.transitions.find((t: any) => t.to === 'pending_failure');
    const failed = data.transitions.find((t: any) => t.to === 'failed');
    // Held 20 minutes (polled every minute) with no resubmit; the one requeue comes after the failure.
    expect(Date.parse(failed.at) - Date.parse(held.at)).toBe(20 * MIN);
    expect(data.requeues).toHaveLength(1);
    expect(Date.parse(data.requeues[0].at)).toBeGreaterThanOrEqual(Date.parse(failed.at));
    expect(result.exitCode).toBe(0);
  });
});

describe('wait --requeue with a fake client', () => {
  const rec = (state: string, minutes: number) => ({
    prNumber: 42,
    state,
    stateChangedAt: new Date(FIXED_NOW + minutes * MIN).toISOString(),
    isCurrentlySubmittedToQueue: state !== 'failed' && state !== 'merged',
  });
  const settings = { timeoutMs: 2 * HOUR, intervalMs: MIN, requeue: { max: 2, flakyChecks: ['ci'] } };

  it('the state read first says the PR is back in the queue: nothing resubmitted, the wait goes on', async () => {
    const fake = fakeClient({
      getSubmittedPullRequest: [rec('testing', 0), rec('failed', 5), rec('pending', 6), rec('merged', 20)],
      // Someone resubmitted it between the poll and the read.
      getSubmittedPullRequestWithTimeline: [{ ...rec('pending', 6), timeline: [] }],
    });
    const { deps, io } = testDeps({ clock: virtualClock(), fake, options: { json: true } });
    const result = await runWait({ pr: 42, ...settings }, deps);
    expect(result.exitCode).toBe(0);
    expect(fake.callsOf('submitPullRequest')).toHaveLength(0);
    expect(io.stderr).toContain('· PR #42 is pending again: the queue holds it, not resubmitted\n');
    expect((result.data as any).requeues).toEqual([]);
  });

  it('a history that cannot be read is a doubt: not requeued, exit 9 as without --requeue', async () => {
    const fake = fakeClient({
      getSubmittedPullRequest: [rec('testing', 0), rec('failed', 5)],
      getSubmittedPullRequestWithTimeline: [
        new MqError(ExitCode.unavailable, 'get the timeline of PR #42', 'HTTP 503'),
      ],
    });
    const { deps, io } = testDeps({ clock: virtualClock(), fake, options: { json: true } });
    const result = await runWait({ pr: 42, ...settings }, deps);
    expect(result.exitCode).toBe(9);
    expect(io.stderr).toContain('· PR #42 not requeued: its history could not be read (HTTP 503)\n✗ PR #42 failed\n');
    expect((result.data as any).failure).toMatchObject({ kind: 'own' });
  });

  it('without --requeue: no requeue step, no new keys', async () => {
    const fake = fakeClient({ getSubmittedPullRequest: [rec('testing', 0), rec('failed', 5)] });
    const { deps, io } = testDeps({ clock: virtualClock(), fake, options: { json: true } });
    const result = await runWait({ pr: 42, timeoutMs: 2 * HOUR, intervalMs: MIN }, deps);
    expect(result.exitCode).toBe(9);
    expect(io.stderr).toBe('PR #42: testing\nPR #42: testing → failed (after 5m in testing)\n✗ PR #42 failed\n');
    expect(Object.keys(result.data as object)).not.toContain('requeues');
  });
});
