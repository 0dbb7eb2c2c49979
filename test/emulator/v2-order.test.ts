/** GET /order: v1's enqueuedPullRequests (admitted PRs) is batches + pending; awaitingAdmission the rest. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { MergeQueueOrder, ok, setUp, start, stop, v2 } from './v2-helpers.js';

afterEach(stop);

it('cuts the queue into runs, waiting PRs and PRs not yet admitted, as v1 orders them', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', {
    ...queue,
    concurrency: 2,
    batch: true,
    batchingMinSize: 2,
    batchingMaxWaitTimeMinutes: 10,
  });
  await c.post('/_emulator/pullRequests', { repo: queue.repo, number: 9, mergeable: false });
  for (const n of [1, 2, 3, 4, 5, 6, 9]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  const order = await ok(MergeQueueOrder, v2(c, 'GET', `/v2/merge-queues/${q.id}/order`));
  const v1 = (await c.post('getQueue', queue)).json().enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber);
  const flat = [
    ...order.batches.flatMap((b) => b.pullRequests.map((p) => p.number)),
    ...order.pending.map((p) => p.pullRequest.number),
  ];
  expect(flat).toEqual(v1);
  expect(order).toMatchObject({
    mode: 'queue',
    queueState: 'running',
    batchingEnabled: true,
    awaitingAdmissionTotal: 1,
  });
  expect(order.batches.map((b) => [b.state, b.pullRequests.length])).toEqual([
    ['testing', 2],
    ['testing', 2],
  ]);
  const runs = await c.runs();
  expect(order.batches.map((b) => b.verificationRunId)).toEqual(runs.map((r) => r.id));
  expect(
    order.pending.map((p) => [p.pullRequest.number, p.directlyAhead.map((a) => a.number), p.schedulability]),
  ).toEqual([
    [5, [4], 'schedulable'],
    [6, [5], 'schedulable'],
  ]);
  expect(order.awaitingAdmission.map((p) => p.number)).toEqual([9]);
});

it('in graph mode, a waiting PR is directly behind the PRs ahead whose targets overlap its own', async () => {
  const c = await start();
  const { repo, q } = await setUp(c);
  await v2(c, 'POST', `/v2/merge-queues/${q.id}/switch-modes`, { mode: 'graph' });
  await v2(c, 'PATCH', `/v2/merge-queues/${q.id}/config`, { concurrency: 1 });
  const targets = { 1: ['a'], 2: ['b'], 3: ['a', 'c'] } as const;
  for (const n of [1, 2, 3] as const) {
    const pr = (await v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: n })).json();
    const put = await v2(c, 'PUT', '/v2/impacted-targets', {
      repositoryId: repo.id,
      targetBranch: 'main',
      number: n,
      sha: pr.sha,
      impactedTargets: targets[n],
    });
    expect(put.status).toBe(202);
  }
  const order = await ok(MergeQueueOrder, v2(c, 'GET', `/v2/merge-queues/${q.id}/order`));
  expect(order.mode).toBe('graph');
  const three = order.pending.find((p) => p.pullRequest.number === 3);
  expect(three?.directlyAhead.map((a) => a.number)).toEqual([1]);
});
