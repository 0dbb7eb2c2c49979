/**
 * The v1 endpoints that hold history, over real HTTP and through the typed client: timelines,
 * several PRs at once, testing results, why a run failed, and the request string limits.
 */
import { beforeEach, describe, expect, it } from 'vitest';

import { MergeQueueClient } from '../../src/api/client.js';
import { bisectionRole, chronological } from '../../src/api/history.js';
import { HttpClient } from '../../src/api/http.js';
import { T0, queue, repo, useEmulator } from './http-helpers.js';

const { emu, client: c } = useEmulator();
let api: MergeQueueClient;
const MIN = 60_000;

beforeEach(async () => {
  api = new MergeQueueClient(
    new HttpClient({ baseUrl: emu.url, token: emu.token, userAgent: 'mq-test', timeoutMs: 10_000, maxRetries: 0 }),
  );
  await c.post('createQueue', queue);
});

const fake = (number: number, extra: Record<string, unknown>) =>
  c.post('/_emulator/pullRequests', { repo, number, ...extra });
const submit = (number: number) => c.post('submitPullRequest', { ...queue, pr: { number } });

/** A batch of 1..4 with #4 breaking the build: bisected down to #4; 1, 2, 3 merge on bisection runs. */
async function bisected(): Promise<void> {
  await c.post('updateQueue', {
    ...queue,
    batch: true,
    batchingMinSize: 4,
    bisectionConcurrency: 2,
    testingTimeoutMinutes: 60,
  });
  await fake(4, { breaksBuild: true });
  for (const n of [1, 2, 3, 4]) await submit(n);
  await c.advance(60);
}

describe('getSubmittedPullRequest with includeTimeline', () => {
  it('lists every transition of every trip, newest first, with v1 reasons and run ids', async () => {
    await c.twoTrips(5);
    await c.advance(10);
    const plain = await c.pr(5);
    expect(plain.timeline).toBeUndefined();
    const a = await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 5 }, includeTimeline: true });
    expect(a.status).toBe(200);
    const pr = a.json();
    const runs = await c.runs();
    expect(pr.state).toBe('merged');
    expect(pr.verifiedByTestRun).toBe(runs[1]!.id);
    const t = (m: number) => new Date(T0 + m * MIN).toISOString();
    expect(pr.timeline.map((i: any) => [i.timestamp, i.state, i.reason, i.testRunId ?? null])).toEqual([
      [t(14), 'merged', 'merge_graph_merge', runs[1]!.id],
      [t(14), 'tests_passed', 'test_run_passed', runs[1]!.id],
      [t(4), 'testing', 'test_run_started', runs[1]!.id],
      [t(4), 'pending', 'merge_item_now_ready', null],
      [t(4), 'not_ready', 'user_requested', null],
      [t(3), 'cancelled', 'user_requested', runs[0]!.id],
      [t(0), 'testing', 'test_run_started', runs[0]!.id],
      [t(0), 'pending', 'merge_item_now_ready', null],
      [t(0), 'not_ready', 'user_requested', null],
    ]);
    // The v1 per-state objects carry the same facts.
    expect(pr.timeline[1].testsPassed).toMatchObject({ reason: 'test_run_passed', testRunId: runs[1]!.id });
    expect(pr.timeline[5].cancellation).toEqual({ reason: 'user_requested', testRunId: runs[0]!.id });
    expect(pr.timeline[2].testRun).toMatchObject({ id: runs[1]!.id, status: 'succeeded', isBisection: false });
  });

  it('names the bisection reasons, the run that verified each merged PR and the run that failed the culprit', async () => {
    await bisected();
    const runs = await c.runs();
    expect(runs).toHaveLength(5);
    const four = await api.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 4 } });
    expect(four.state).toBe('failed');
    const failing = runs.find((r) => r.prNumbers.join() === '4')!;
    expect(four.verifiedByTestRun).toBe(failing.id);
    const steps = chronological(four.timeline ?? []);
    expect(steps.map((s) => `${s.state}:${s.reason}`)).toEqual([
      'not_ready:USER_REQUESTED',
      'pending:MERGE_ITEM_NOW_READY',
      'testing:TEST_RUN_STARTED',
      'pending_failure:TEST_RUN_REQUIRED_STATUS_FAILED',
      'pending:BISECTION_REQUIRED',
      'testing:TEST_RUN_STARTED',
      'pending_failure:TEST_RUN_REQUIRED_STATUS_FAILED',
      'pending:BISECTION_REQUIRED',
      'testing:TEST_RUN_STARTED',
      'pending_failure:TEST_RUN_REQUIRED_STATUS_FAILED',
      'failed:TEST_RUN_REQUIRED_STATUS_FAILED',
    ]);
    const last = steps.at(-1)!;
    expect(last.testRunId).toBe(failing.id);
    expect(last.failureCausingStatuses).toEqual(['ci']);
    const one = await api.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 1 } });
    expect(one.state).toBe('merged');
    expect(runs.find((r) => r.id === one.verifiedByTestRun)).toMatchObject({ prNumbers: [1, 2] });
  });

  it('answers 404 for a PR never submitted', async () => {
    const a = await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 77 }, includeTimeline: true });
    expect(a.status).toBe(404);
  });
});

describe('getSubmittedPullRequests', () => {
  it('returns up to 50 PRs, lists the never-submitted ones in notFound, and refuses 51', async () => {
    await submit(1);
    await submit(2);
    const a = await c.post('getSubmittedPullRequests', {
      ...queue,
      prs: [{ number: 2 }, { number: 9 }, { number: 1 }],
    });
    expect(a.status).toBe(200);
    const body = a.json();
    expect(body.pullRequests.map((p: any) => p.prNumber)).toEqual([2, 1]);
    expect(body.pullRequests[0]).toMatchObject({
      state: 'pending',
      isCurrentlySubmittedToQueue: true,
      readiness: { gitHubMergeability: 'mergeable' },
    });
    expect(body.pullRequests[0].timeline).toBeUndefined();
    expect(body.notFound).toEqual([{ number: 9 }]);

    const withTimeline = await api.getSubmittedPullRequests({ ...queue, prs: [{ number: 1 }], includeTimeline: true });
    expect(withTimeline.pullRequests?.[0]?.timeline?.map((t) => t.state)).toEqual(['testing', 'pending', 'not_ready']);

    const fifty = Array.from({ length: 50 }, (_, i) => ({ number: i + 1 }));
    const ok = await c.post('getSubmittedPullRequests', { ...queue, prs: fifty });
    expect(ok.status).toBe(200);
    expect(ok.json().notFound).toHaveLength(48);
    const tooMany = await c.post('getSubmittedPullRequests', { ...queue, prs: [...fifty, { number: 51 }] });
    expect([tooMany.status, tooMany.text]).toEqual([400, 'prs: expected at most 50 pull requests']);
    expect((await c.post('getSubmittedPullRequests', { ...queue, prs: [] })).status).toBe(400);
    await expect(api.getSubmittedPullRequests({ ...queue, prs: [...fifty, { number: 51 }] })).rejects.toThrow(/prs/);
  });
});

describe('listMergeQueueTestingResults', () => {
  it('has one row per PR per test attempt, with outcome, duration, bisection role and how the trip ended', async () => {
    await bisected();
    const page = await api.listMergeQueueTestingResults({
      ...queue,
      since: new Date(T0).toISOString(),
      until: new Date(T0 + 60 * MIN).toISOString(),
    });
    // ABCD (4 rows), AB (2), CD (2), C (1), D (1).
    expect(page.totalItems).toBe(10);
    const rows = page.testingResults ?? [];
    expect(rows.map((r) => `${r.prNumber}:${r.outcome}:${bisectionRole(r)}:${r.cycleConclusion}`)).toEqual([
      '1:failed:entered_bisection:merged',
      '2:failed:entered_bisection:merged',
      '3:failed:entered_bisection:merged',
      '4:failed:entered_bisection:failed',
      '1:passed:in_bisection:merged',
      '2:passed:in_bisection:merged',
      '3:failed:in_bisection:merged',
      '4:failed:in_bisection:failed',
      '3:passed:in_bisection:merged',
      '4:failed:in_bisection:failed',
    ]);
    expect(rows[0]).toMatchObject({
      startedAt: new Date(T0).toISOString(),
      completedAt: new Date(T0 + 10 * MIN).toISOString(),
      testingDurationMs: 10 * MIN,
      failureReason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
    expect(rows[0]!.testRunId).toBe((await c.runs())[0]!.id);
  });

  it('pages with offset/take (default 50, 1..100) and keeps the window to 45 days', async () => {
    await c.post('updateQueue', { ...queue, concurrency: 3 });
    for (const n of [1, 2, 3]) await submit(n);
    await c.advance(10);
    const all = (await c.post('listMergeQueueTestingResults', queue)).json();
    expect(all.totalItems).toBe(3);
    expect(all.testingResults.map((r: any) => r.prNumber)).toEqual([1, 2, 3]);
    const page = (await c.post('listMergeQueueTestingResults', { ...queue, offset: 1, take: 1 })).json();
    expect(page).toMatchObject({
      totalItems: 3,
      testingResults: [{ prNumber: 2, outcome: 'passed', bisection: null }],
    });
    const since = new Date(T0).toISOString();
    const tooLong = await c.post('listMergeQueueTestingResults', {
      ...queue,
      since,
      until: new Date(T0 + 46 * 86_400_000).toISOString(),
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toMatch(/45 days/);
    const ok = await c.post('listMergeQueueTestingResults', {
      ...queue,
      since,
      until: new Date(T0 + 45 * 86_400_000).toISOString(),
    });
    expect(ok.status).toBe(200);
    expect((await c.post('listMergeQueueTestingResults', { ...queue, take: 101 })).status).toBe(400);
    expect((await c.post('listMergeQueueTestingResults', { ...queue, take: 0 })).status).toBe(400);
    expect((await c.post('listMergeQueueTestingResults', { ...queue, offset: -1 })).status).toBe(400);
    await c.advance(5);
    const later = await c.post('listMergeQueueTestingResults', {
      ...queue,
      since: new Date(T0 + 11 * MIN).toISOString(),
    });
    expect(later.json()).toEqual({ testingResults: [], totalItems: 0 });
    const backwards = await c.post('listMergeQueueTestingResults', {
      ...queue,
      since: new Date(T0 + 11 * MIN).toISOString(),
      until: since,
    });
    expect([backwards.status, backwards.text]).toEqual([400, 'since: must not be after until']);
    await expect(
      api.listMergeQueueTestingResults({ ...queue, since, until: new Date(T0 + 46 * 86_400_000).toISOString() }),
    ).rejects.toThrow(/45 days/);
  });
});

describe('getMergeQueueTestingDetails of a failed run', () => {
  it('lists the check run of the required status that failed, with its URL', async () => {
    await c.post('updateQueue', { ...queue, requiredStatuses: ['build', 'lint'] });
    await fake(1, { breaksBuild: true });
    await submit(1);
    await c.advance(10);
    const [run] = await c.runs();
    const d = await api.getMergeQueueTestingDetails({ ...queue, testRunId: run!.id });
    expect(d.status).toBe('failed');
    expect(d.checkSuites?.[0]?.checkRuns).toEqual([
      { name: 'build', url: `https://ci.emulator.invalid/runs/${run!.id}`, status: 'COMPLETED', conclusion: 'FAILURE' },
      { name: 'lint', url: `https://ci.emulator.invalid/runs/${run!.id}`, status: 'COMPLETED', conclusion: 'FAILURE' },
    ]);
  });

  it('a run past the testing timeout shows TIMED_OUT', async () => {
    await c.post('updateQueue', { ...queue, testingTimeoutMinutes: 30 });
    await fake(1, { outcomes: ['hang'] });
    await submit(1);
    await c.advance(31);
    const [run] = await c.runs();
    const d = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: run!.id })).json();
    expect(d.checkSuites[0].checkRuns[0]).toMatchObject({ status: 'COMPLETED', conclusion: 'TIMED_OUT' });
    const results = (await c.post('listMergeQueueTestingResults', queue)).json();
    expect(results.testingResults[0]).toMatchObject({ outcome: 'timed_out', failureReason: 'TEST_RUN_TIMEOUT' });
  });
});

describe('listPullRequests for statistics', () => {
  it('filters concluded PRs by since/until; stateChangedAt is when they concluded', async () => {
    await submit(1);
    await c.advance(10); // 1 merges at 10
    await submit(2);
    await c.advance(20); // 2 merges at 20
    await submit(3); // still testing
    const page = await api.listConcludedPullRequests({ ...queue, since: new Date(T0 + 15 * MIN).toISOString() });
    expect(page.pullRequests?.map((p) => [p.prNumber, p.state, p.stateChangedAt])).toEqual([
      [2, 'merged', new Date(T0 + 20 * MIN).toISOString()],
    ]);
    const until = (await c.post('listPullRequests', { ...queue, until: new Date(T0 + 15 * MIN).toISOString() })).json();
    expect(until.pullRequests.map((p: any) => p.prNumber)).toEqual([1]);
    // The submission time of each is in its timeline.
    const lookup = await api.getSubmittedPullRequests({ ...queue, prs: [{ number: 2 }], includeTimeline: true });
    const submitted = chronological(lookup.pullRequests?.[0]?.timeline ?? []).find((t) => t.state === 'not_ready');
    expect(submitted?.timestamp).toBe(new Date(T0 + 10 * MIN).toISOString());
  });
});

describe('request string limits', () => {
  it('answers 400 for branch and repo names over 255 characters and titles over 1,024', async () => {
    const long = (n: number) => 'x'.repeat(n);
    const branch = await c.post('createQueue', { repo, targetBranch: long(256) });
    expect([branch.status, branch.text]).toEqual([400, 'targetBranch: expected at most 255 characters']);
    expect((await c.post('createQueue', { repo, targetBranch: long(255) })).status).toBe(200);
    for (const part of ['host', 'owner', 'name'] as const) {
      const a = await c.post('getQueue', { repo: { ...repo, [part]: long(256) }, targetBranch: 'main' });
      expect([a.status, a.text]).toEqual([400, `repo.${part}: expected at most 255 characters`]);
    }
    const title = await fake(1, { title: long(1025) });
    expect([title.status, title.text]).toEqual([400, 'title: expected at most 1024 characters']);
    expect((await fake(1, { title: long(1024) })).status).toBe(200);
    expect((await fake(1, { sha: long(256) })).status).toBe(400);
    expect((await fake(1, { author: long(256) })).status).toBe(400);
    const run = await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: long(513) });
    expect(run.status).toBe(400);
    const targets = await c.post('setImpactedTargets', {
      ...queue,
      pr: { number: 1, sha: 'abc' },
      impactedTargets: [long(1025)],
    });
    expect(targets.status).toBe(400);
    const statuses = await c.post('updateQueue', { ...queue, requiredStatuses: [long(256)] });
    expect(statuses.status).toBe(400);
  });
});
