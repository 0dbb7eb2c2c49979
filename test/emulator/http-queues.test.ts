/**
 * Queue endpoints and metrics over real HTTP: every setting, queue order, the live service's
 * status codes, Prometheus exposition.
 */
import { describe, expect, it } from 'vitest';

import { queue, repo, useEmulator } from './http-helpers.js';

const { client: c } = useEmulator();

const SETTINGS = [
  'state',
  'branch',
  'concurrency',
  'testingTimeoutMinutes',
  'mode',
  'canOptimisticallyMerge',
  'pendingFailureDepth',
  'batch',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'bisectionConcurrency',
  'requiredStatuses',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
];

describe('queues', () => {
  it('createQueue answers OK, then 409 for the same branch', async () => {
    const a = await c.post('createQueue', { ...queue, mode: 'SINGLE', concurrency: 3 });
    expect([a.status, a.text, a.type]).toEqual([200, 'OK', 'text/plain; charset=utf-8']);
    const again = await c.post('createQueue', queue);
    expect(again.status).toBe(409);
    expect(again.text).toBe('A merge queue already exists for branch "main" in this repository');
    expect(again.type).toBe('text/plain; charset=utf-8');
  });

  it('getQueue returns every setting and the enqueued PRs in queue order; 404 for an unknown queue', async () => {
    expect((await c.post('getQueue', queue)).status).toBe(404);
    await c.post('createQueue', { ...queue, concurrency: 1 });
    for (const n of [5, 6]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 7 }, priority: 'high' });
    const q = (await c.post('getQueue', queue)).json();
    for (const k of SETTINGS) expect(q).toHaveProperty(k);
    expect(q).toMatchObject({
      state: 'running',
      branch: 'main',
      mode: 'single',
      concurrency: 1,
      mergeMethod: 'squash',
    });
    expect(q.enqueuedPullRequests.map((e: any) => [e.prNumber, e.state])).toEqual([
      [5, 'testing'],
      [7, 'pending'],
      [6, 'pending'],
    ]);
    expect(Object.keys(q.enqueuedPullRequests[0]).sort()).toEqual(
      [
        'id',
        'state',
        'stateChangedAt',
        'priorityValue',
        'priorityName',
        'usedDefaultPriorityName',
        'skipTheLine',
        'noBatch',
        'prNumber',
        'prTitle',
        'prSha',
        'prBaseBranch',
        'prAuthor',
      ].sort(),
    );
  });

  it('getQueue leaves out not-ready and finished PRs', async () => {
    await c.post('createQueue', queue);
    await c.post('/_emulator/pullRequests', { repo, number: 1, mergeable: false });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 3 } });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 3 } });
    expect((await c.pr(1)).state).toBe('not_ready');
    const q = (await c.post('getQueue', queue)).json();
    expect(q.enqueuedPullRequests.map((e: any) => e.prNumber)).toEqual([2]);
  });

  it('updateQueue stores every field, accepts enums in any case and returns the queue without PRs', async () => {
    await c.post('createQueue', queue);
    // Answered as sent, but the enums: in lower case whatever their case.
    const same = {
      concurrency: 4,
      bisectionConcurrency: 8,
      testingTimeoutMinutes: 90,
      pendingFailureDepth: 2,
      canOptimisticallyMerge: true,
      batch: true,
      batchingMaxWaitTimeMinutes: 7,
      batchingMinSize: 3,
      commentsEnabled: false,
      commandsEnabled: false,
      createPrsForTestingBranches: false,
      optimizationMode: 'bisection_skip_redundant_tests',
      statusCheckEnabled: false,
      requiredStatuses: ['build', 'lint'],
    };
    const enums = { state: 'PAUSED', mode: 'Parallel', directMergeMode: 'ALWAYS', mergeMethod: 'MERGE_COMMIT' };
    const a = await c.post('updateQueue', { ...queue, ...same, ...enums });
    expect(a.status).toBe(200);
    const body = a.json();
    expect(body).not.toHaveProperty('enqueuedPullRequests');
    expect(body).toMatchObject({
      ...same,
      state: 'paused',
      mode: 'parallel',
      directMergeMode: 'always',
      mergeMethod: 'merge_commit',
    });
    const { enqueuedPullRequests, ...settings } = (await c.post('getQueue', queue)).json();
    expect(enqueuedPullRequests).toEqual([]);
    expect(settings).toEqual(body);
    // v1: an empty list is ignored; deleteRequiredStatuses clears the override.
    expect((await c.post('updateQueue', { ...queue, requiredStatuses: [] })).json().requiredStatuses).toEqual([
      'build',
      'lint',
    ]);
    expect((await c.post('updateQueue', { ...queue, deleteRequiredStatuses: true })).json().requiredStatuses).toEqual(
      [],
    );
  });

  it('updateQueue refuses switching_modes and out-of-range values without changing anything', async () => {
    await c.post('createQueue', queue);
    const bad = await c.post('updateQueue', { ...queue, state: 'switching_modes', concurrency: 9 });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('state: expected one of running, paused, draining');
    const zero = await c.post('updateQueue', { ...queue, concurrency: 0 });
    expect([zero.status, zero.text]).toEqual([400, 'concurrency: expected integer 1..4294967295']);
    expect((await c.post('getQueue', queue)).json()).toMatchObject({ state: 'running', concurrency: 1 });
  });

  it('deleteQueue: a missing queue is a no-op, a non-empty one is refused with the count', async () => {
    expect((await c.post('deleteQueue', queue)).status).toBe(200);
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    const refused = await c.post('deleteQueue', queue);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('2 pull requests still in it');
    await c.post('cancelPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 2 } });
    expect((await c.post('deleteQueue', queue)).text).toBe('OK');
    expect((await c.post('getQueue', queue)).status).toBe(404);
  });
});

describe('metrics', () => {
  it('serves the documented families per repo and branch as Prometheus text', async () => {
    await c.post('createQueue', { ...queue, concurrency: 3 });
    await c.post('createQueue', { repo: { ...repo, name: 'other' }, targetBranch: 'dev' });
    await c.post('/_emulator/pullRequests', { repo, number: 2, breaksBuild: true });
    for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    await c.advance(10);
    const a = await c.get('/v1/getMergeQueueMetrics');
    expect(a.status).toBe(200);
    expect(a.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const labels = 'repo="acme/app",branch="main",queue_type="main"';
    expect(a.text).toContain('# TYPE mq_depth_current gauge');
    // At 10 min: PR 1 merged, PR 2 (breaks the build) failed, PR 3 retesting without it.
    expect(a.text).toContain(`mq_depth_current{${labels}} 1`);
    expect(a.text).toContain(`mq_awaiting_mergeability{${labels}} 0`);
    expect(a.text).toContain(`mq_testing_slots_active{${labels}} 1`);
    expect(a.text).toContain(`mq_pr_conclusions_1h_total{${labels},conclusion="merged"} 1`);
    expect(a.text).toContain(`mq_pr_conclusions_1h_total{${labels},conclusion="failed"} 1`);
    expect(a.text).toContain(`mq_pr_conclusions_1h_total{${labels},conclusion="cancelled"} 0`);
    expect(a.text).toContain(`mq_pr_restarts_1h_total{${labels}} 0`);
    expect(a.text).toContain('# TYPE mq_pr_wait_duration_1h_seconds histogram');
    for (const le of ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf']) {
      expect(a.text).toContain(`mq_pr_time_in_queue_1h_seconds_bucket{le="${le}",${labels}}`);
    }
    // PRs 1 and 2 left after 600 s; all three started testing at once.
    expect(a.text).toContain(`mq_pr_time_in_queue_1h_seconds_bucket{le="300",${labels}} 0`);
    expect(a.text).toContain(`mq_pr_time_in_queue_1h_seconds_bucket{le="600",${labels}} 2`);
    expect(a.text).toContain(`mq_pr_test_duration_1h_seconds_count{${labels}} 2`);
    expect(a.text).toContain(`mq_pr_wait_duration_1h_seconds_count{${labels}} 3`);
    expect(a.text).toContain('repo="acme/other",branch="dev"');
    const filtered = await c.get('/v1/getMergeQueueMetrics?repo=acme/other&repoHost=github.com');
    expect(filtered.text).toContain('repo="acme/other"');
    expect(filtered.text).not.toContain('repo="acme/app"');
  });

  it('repo and repoHost go together', async () => {
    const a = await c.get('/v1/getMergeQueueMetrics?repo=acme/app');
    expect([a.status, a.text]).toEqual([400, 'repoHost: required when repo is given']);
    const b = await c.get('/v1/getMergeQueueMetrics?repoHost=github.com');
    expect([b.status, b.text]).toEqual([400, 'repo: required when repoHost is given']);
  });
});
