/** reprioritize and PATCH queue-entry: v1's resubmit of a live PR, with Trunk's permissions. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { fails, KEY, MergeQueueOrder, ok, PullRequest, setUp, start, stop, v2 } from './v2-helpers.js';

afterEach(stop);

const PRIO = 'trunk_v2_prio0123456789';
const BATCH = 'trunk_v2_batch0123456789';

async function queued() {
  const c = await start(undefined, {
    rateLimits: false,
    apiKeys: [
      { name: 'ci', key: KEY, permissions: ['merge', 'priority', 'skipBatching', 'direct', 'settings'] },
      { name: 'prio', key: PRIO, permissions: ['priority'] },
      { name: 'batch', key: BATCH, permissions: ['skipBatching'] },
    ],
  });
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 1 });
  const ids: string[] = [];
  for (const number of [1, 2, 3]) {
    const pr = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number }), 201);
    ids.push(pr.id);
  }
  return { c, q, ids };
}

it('reprioritize moves a waiting PR ahead, as v1 sees it', async () => {
  const { c, q, ids } = await queued();
  const pending = async () =>
    (await ok(MergeQueueOrder, v2(c, 'GET', `/v2/merge-queues/${q.id}/order`))).pending.map(
      (p) => p.pullRequest.number,
    );
  expect(await pending()).toEqual([2, 3]);
  const pr = await ok(
    PullRequest,
    v2(c, 'POST', `/v2/pull-requests/${ids[2]}/reprioritize`, { priorityName: 'high' }, PRIO),
  );
  expect(pr.queueEntry).toMatchObject({ priorityName: 'high', priorityValue: 10, skipsTheLine: false });
  expect(await pending()).toEqual([3, 2]);
  expect((await c.pr(3)).priorityName).toBe('high');
  const urgent = await ok(PullRequest, v2(c, 'POST', `/v2/pull-requests/${ids[1]}/reprioritize`, { priorityValue: 0 }));
  expect(urgent.queueEntry).toMatchObject({ priorityValue: 0, skipsTheLine: true });
});

it('PATCH queue-entry changes batching and priority, each behind its permission', async () => {
  const { c, ids } = await queued();
  const path = `/v2/pull-requests/${ids[2]}/queue-entry`;
  const pr = await ok(PullRequest, v2(c, 'PATCH', path, { allowBatching: false }, BATCH));
  expect(pr.queueEntry).toMatchObject({ allowBatching: false, priorityName: 'medium' });
  expect((await c.pr(3)).noBatch).toBe(true);
  await fails(
    v2(c, 'PATCH', path, { allowBatching: true, priorityName: 'low' }, BATCH),
    403,
    'INSUFFICIENT_PERMISSIONS',
  );
  await fails(v2(c, 'PATCH', path, { allowBatching: true }, PRIO), 403, 'INSUFFICIENT_PERMISSIONS');
  await fails(v2(c, 'PATCH', path, { direct: true }, PRIO), 403, 'INSUFFICIENT_PERMISSIONS');
  await fails(
    v2(c, 'POST', `/v2/pull-requests/${ids[2]}/reprioritize`, { priorityValue: 5 }, BATCH),
    403,
    'INSUFFICIENT_PERMISSIONS',
  );
  const both = await ok(PullRequest, v2(c, 'PATCH', path, { allowBatching: true, priorityValue: 50 }));
  expect(both.queueEntry).toMatchObject({ allowBatching: true, priorityValue: 50, priorityName: 'medium' });
  expect((await c.pr(3)).noBatch).toBe(false);
});

it('refuses bad bodies and entries that are not live', async () => {
  const { c, ids } = await queued();
  const re = `/v2/pull-requests/${ids[1]}/reprioritize`;
  const patch = `/v2/pull-requests/${ids[1]}/queue-entry`;
  await fails(v2(c, 'POST', re, {}), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'POST', re, { priorityValue: 1, priorityName: 'high' }), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'POST', re, { priorityValue: 300 }), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'PATCH', patch, {}), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'PATCH', patch, { skipsTheLine: true }), 400, 'VALIDATION_FAILED');
  await ok(PullRequest, v2(c, 'POST', `/v2/pull-requests/${ids[1]}/dequeue`));
  await fails(v2(c, 'POST', re, { priorityName: 'high' }), 409, 'PR_NOT_IN_ACTIVE_STATE');
  await fails(v2(c, 'PATCH', patch, { allowBatching: false }), 409, 'PR_NOT_IN_ACTIVE_STATE');
  await fails(
    v2(c, 'POST', '/v2/pull-requests/00000000-0000-5000-8000-000000000000/reprioritize', { priorityValue: 1 }),
    404,
    'PR_NOT_FOUND',
  );
});
