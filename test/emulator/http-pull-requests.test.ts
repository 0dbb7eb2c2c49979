/**
 * Pull-request endpoints over real HTTP: the live service's record shape, `OK` for mutations,
 * 404/400 where the service answers them.
 */
import { beforeEach, describe, expect, it } from 'vitest';

import { T0, queue, repo, useEmulator } from './http-helpers.js';

const { client: c } = useEmulator();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
describe('pull requests', () => {
  beforeEach(async () => {
    await c.post('createQueue', queue);
  });

  it('submit answers OK and getSubmittedPullRequest has the live service fields', async () => {
    const a = await c.post('submitPullRequest', { ...queue, pr: { number: 12 } });
    expect([a.status, a.text]).toEqual([200, 'OK']);
    const pr = await c.pr(12);
    expect(pr).toMatchObject({
      state: 'testing',
      stateChangedAt: new Date(T0).toISOString(),
      priorityValue: 100,
      priorityName: 'medium',
      usedDefaultPriorityName: 'medium',
      skipTheLine: false,
      noBatch: false,
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      readiness: {
        hasImpactedTargets: false,
        requiresImpactedTargets: false,
        doesBaseBranchMatch: true,
        gitHubMergeability: 'mergeable',
      },
      prNumber: 12,
      prTitle: 'PR #12',
      prBaseBranch: 'main',
      verifiedByTestRun: null,
    });
    expect(pr.id).toMatch(UUID);
    expect(pr.prSha).toMatch(/^[0-9a-f]{40}$/);
    expect(pr.prAuthor).not.toBe('');
  });

  it('accepts pr.number as a numeric string and priority as a name in any case or a number', async () => {
    expect((await c.post('submitPullRequest', { ...queue, pr: { number: '31' }, priority: 'URGENT' })).status).toBe(
      200,
    );
    expect(await c.pr(31)).toMatchObject({ priorityValue: 0, priorityName: 'urgent', skipTheLine: true });
    await c.post('submitPullRequest', { ...queue, pr: { number: 32 }, priority: 200, noBatch: true });
    expect(await c.pr(32)).toMatchObject({ priorityValue: 200, priorityName: 'low', noBatch: true });
  });

  it('resubmitting a live PR rewrites its priority; the entry id survives cancel and resubmit', async () => {
    await c.post('updateQueue', { ...queue, state: 'paused' });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const first = await c.pr(1);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 }, priority: 'high' });
    expect(await c.pr(1)).toMatchObject({ id: first.id, priorityName: 'high', state: 'not_ready' });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 1 } });
    const cancelled = await c.pr(1);
    expect(cancelled).toMatchObject({ id: first.id, state: 'cancelled', isCurrentlySubmittedToQueue: false });
    expect((await c.post('cancelPullRequest', { ...queue, pr: { number: 1 } })).status).toBe(404);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    expect(await c.pr(1)).toMatchObject({ id: first.id, state: 'not_ready', isCurrentlySubmittedToQueue: true });
  });

  it('404 for a PR never submitted, a cancel of it, and any PR call on an unknown queue', async () => {
    const never = await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 99 } });
    expect(never.status).toBe(404);
    expect(never.text).toContain('#99 has never been submitted');
    expect((await c.post('cancelPullRequest', { ...queue, pr: { number: 99 } })).status).toBe(404);
    expect((await c.post('restartTestsOnPullRequest', { ...queue, pr: { number: 99 } })).status).toBe(404);
    const other = { repo, targetBranch: 'release' };
    const a = await c.post('submitPullRequest', { ...other, pr: { number: 1 } });
    expect([a.status, a.text]).toEqual([404, 'no merge queue exists for branch "release" of github.com/acme/app']);
  });

  it('restartTestsOnPullRequest: 200 on a testing PR (new run), 400 on a pending one', async () => {
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    expect((await c.post('restartTestsOnPullRequest', { ...queue, pr: { number: 1 } })).text).toBe('OK');
    expect((await c.runs()).map((r) => [r.prNumbers[0], r.status])).toEqual([
      [1, 'cancelled'],
      [1, 'in_progress'],
    ]);
    const pending = await c.post('restartTestsOnPullRequest', { ...queue, pr: { number: 2 } });
    expect(pending.status).toBe(400);
    expect(pending.text).toBe(
      'pull request #2 is pending; only testing or pending_failure pull requests can be restarted',
    );
  });

  it('setImpactedTargets stores targets per SHA; they show in the testing details', async () => {
    const sha = 'a'.repeat(40);
    await c.post('/_emulator/pullRequests', { repo, number: 4, sha });
    const a = await c.post('setImpactedTargets', {
      ...queue,
      pr: { number: 4, sha },
      impactedTargets: ['//app:lib', '//app:test'],
    });
    expect([a.status, a.text]).toEqual([200, 'OK']);
    await c.post('submitPullRequest', { ...queue, pr: { number: 4 } });
    expect((await c.pr(4)).readiness.hasImpactedTargets).toBe(true);
    const [run] = await c.runs();
    const details = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: run!.id })).json();
    expect(details.impactedTargetsForTestedPrs).toEqual(['//app:lib', '//app:test']);
    expect(
      (await c.post('setImpactedTargets', { ...queue, pr: { number: 4, sha }, impactedTargets: 'ALL' })).status,
    ).toBe(200);
    const bad = await c.post('setImpactedTargets', { ...queue, pr: { number: 4, sha }, impactedTargets: 'SOME' });
    expect([bad.status, bad.text]).toEqual([400, 'impactedTargets: expected "ALL" or an array of strings']);
  });

  it('getMergeQueueTestingDetails describes a run by its UUID; 404 for an unknown one', async () => {
    await c.post('updateQueue', { ...queue, requiredStatuses: ['build'], concurrency: 2 });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    const runs = await c.runs();
    const id = runs[1]!.id;
    const d = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: id })).json();
    expect(d).toMatchObject({
      requiredStatuses: ['build'],
      requiredStatusesSource: 'merge_instance',
      testBranch: `trunk-merge/pr-2/${id}`,
      createdAt: new Date(T0).toISOString(),
      status: 'in_progress',
      checkSuites: [
        { checkRuns: [{ name: 'build', status: 'IN_PROGRESS', url: `https://ci.emulator.invalid/runs/${id}` }] },
      ],
      statusChecks: [{ context: 'build', state: 'PENDING' }],
      testedPullRequests: [{ prNumber: 2, prUrl: 'https://github.com/acme/app/pull/2', title: 'PR #2' }],
      dependentPrs: [1],
    });
    expect(d.testBranchSha).toMatch(/^[0-9a-f]{40}$/);
    await c.advance(10);
    const done = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: id })).json();
    expect(done.status).toBe('succeeded');
    const missing = await c.post('getMergeQueueTestingDetails', {
      ...queue,
      testRunId: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.status).toBe(404);
  });

  it('listPullRequests pages with take and cursor and filters by state and since', async () => {
    await c.post('updateQueue', { ...queue, concurrency: 1 });
    for (let n = 1; n <= 5; n++) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    const page1 = (await c.post('listPullRequests', { ...queue, take: 2 })).json();
    expect(page1.pullRequests.map((p: any) => p.prNumber)).toEqual([1, 2]);
    const page2 = (await c.post('listPullRequests', { ...queue, take: 2, cursor: page1.nextCursor })).json();
    expect(page2.pullRequests.map((p: any) => p.prNumber)).toEqual([3, 4]);
    const page3 = (await c.post('listPullRequests', { ...queue, take: 2, cursor: page2.nextCursor })).json();
    expect(page3.pullRequests.map((p: any) => p.prNumber)).toEqual([5]);
    expect(page3).not.toHaveProperty('nextCursor');
    const testing = (await c.post('listPullRequests', { ...queue, state: 'TESTING' })).json();
    expect(testing.pullRequests.map((p: any) => p.prNumber)).toEqual([1]);
    await c.advance(10);
    const since = new Date(T0 + 5 * 60_000).toISOString();
    const concluded = (await c.post('listPullRequests', { ...queue, since })).json();
    expect(concluded.pullRequests.map((p: any) => [p.prNumber, p.state])).toEqual([[1, 'merged']]);
    const bad = await c.post('listPullRequests', { ...queue, take: 101 });
    expect([bad.status, bad.text]).toEqual([400, 'take: expected integer 1..100']);
  });
});
