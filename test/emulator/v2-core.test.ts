/**
 * The v2 API beside v1 on one engine: ids, Bearer keys, the error envelope, the core operations
 * and paging. Answers are decoded with strict schemas written from Trunk's published field lists.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import {
  fails,
  KEY,
  list,
  MergeQueue,
  ok,
  PullRequest,
  READER,
  Repository,
  setUp,
  StateChange,
  start,
  stop,
  v2,
} from './v2-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  await stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

it('serves a PR submitted through v2 to v1 and the other way round, with stable ids', async () => {
  const c = await start();
  const { repo, q } = await setUp(c);
  const viaV2 = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 1 }), 201);
  expect(viaV2).toMatchObject({ number: 1, repositoryId: repo.id, queueEntry: { mergeQueueId: q.id } });
  expect((await c.post('submitPullRequest', { ...queue, pr: { number: 2 } })).status).toBe(200);

  const found = await ok(list(PullRequest), v2(c, 'GET', `/v2/pull-requests?repositoryId=${repo.id}&number=2,1`));
  expect(found.data.map((p) => p.number)).toEqual([1, 2]);
  for (const p of found.data) {
    const v1 = await c.pr(p.number);
    // The mapping table: v1 field -> v2 field.
    expect(p).toMatchObject({
      number: v1.prNumber,
      title: v1.prTitle,
      sha: v1.prSha,
      baseBranch: v1.prBaseBranch,
      author: v1.prAuthor,
    });
    expect(p.isCurrentlySubmittedToQueue).toBe(v1.isCurrentlySubmittedToQueue);
    expect(p.queueEntry).toMatchObject({
      id: v1.id,
      state: v1.state.replace(/_([a-z])/g, (_: string, l: string) => l.toUpperCase()),
      stateChangedAt: v1.stateChangedAt,
      priorityValue: v1.priorityValue,
      priorityName: v1.priorityName,
      skipsTheLine: v1.skipTheLine,
      allowBatching: !v1.noBatch,
      direct: v1.forceEnqueued,
    });
    // A lookup of several numbers is a list read: it leaves hasImpactedTargets out; a read by id
    // and a lookup of one number carry it.
    expect(p.queueEntry?.readiness).not.toHaveProperty('hasImpactedTargets');
    const byId = await ok(PullRequest, v2(c, 'GET', `/v2/pull-requests/${p.id}`));
    expect(byId.queueEntry?.readiness.hasImpactedTargets).toBe(false);
    expect(byId).toMatchObject(p);
    const one = `/v2/pull-requests?repositoryId=${repo.id}&number=${p.number}`;
    expect((await ok(list(PullRequest), v2(c, 'GET', one))).data).toEqual([byId]);
  }
  const listed = await ok(list(PullRequest), v2(c, 'GET', `/v2/merge-queues/${q.id}/pull-requests`));
  expect(listed.data.map((p) => 'hasImpactedTargets' in (p.queueEntry?.readiness ?? {}))).toEqual([false, false]);
  expect(await ok(Repository, v2(c, 'GET', `/v2/repositories/${repo.id}`))).toEqual(repo);
  expect(await ok(MergeQueue, v2(c, 'GET', `/v2/merge-queues/${q.id}`))).toEqual(q);
});

it('keeps every id across a restart of a data dir', async () => {
  dir = await mkdtemp(join(tmpdir(), 'mq-v2-'));
  let c = await start(dir);
  const { repo, q } = await setUp(c);
  const pr = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 5 }), 201);
  await stop();
  c = await start(dir);
  expect((await ok(MergeQueue, v2(c, 'GET', `/v2/merge-queues/${q.id}`))).repositoryId).toBe(repo.id);
  const again = await ok(PullRequest, v2(c, 'GET', `/v2/pull-requests/${pr.id}`));
  expect(again.queueEntry?.id).toBe(pr.queueEntry?.id);
});

it('takes Bearer keys only, in the envelope, and refuses a write a key may not make', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await fails(c.request('GET', '/v2/merge-queues'), 401, 'AUTHENTICATION_REQUIRED');
  await fails(v2(c, 'GET', '/v2/merge-queues', undefined, 'trunk_v2_wrong'), 401, 'INVALID_TOKEN');
  await fails(v2(c, 'GET', '/v2/merge-queues', undefined, c.token), 401, 'INVALID_TOKEN');
  // A v2 key on v1 is refused.
  expect((await c.request('POST', '/v1/getQueue', queue, { 'x-api-token': KEY })).status).toBe(401);
  expect(
    (await c.request('POST', '/v1/getQueue', queue, { 'x-api-token': '', authorization: `Bearer ${KEY}` })).status,
  ).toBe(401);
  // A key with no permission reads but cannot write.
  await ok(list(MergeQueue), v2(c, 'GET', '/v2/merge-queues', undefined, READER));
  await fails(
    v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 1 }, READER),
    403,
    'INSUFFICIENT_PERMISSIONS',
  );
  await fails(v2(c, 'POST', `/v2/merge-queues/${q.id}/pause`, undefined, READER), 403, 'INSUFFICIENT_PERMISSIONS');
  expect((await c.pr(1).catch((e: Error) => e.message)) as string).toMatch(/404/);
  // Malformed bodies and unknown paths answer in the envelope too.
  await fails(v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, '{"number":'), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', '/v2/nothing-here'), 404, 'NOT_FOUND');
});

it('answers the core operations with their documented codes', async () => {
  const c = await start();
  const { repo, q } = await setUp(c);
  await fails(
    v2(c, 'POST', '/v2/merge-queues', { repositoryId: repo.id, targetBranch: 'main' }),
    409,
    'QUEUE_ALREADY_EXISTS',
  );
  await fails(
    v2(c, 'POST', '/v2/merge-queues', { repositoryId: repo.id, targetBranch: 'x', extra: 1 }),
    400,
    'VALIDATION_FAILED',
  );
  await fails(v2(c, 'GET', '/v2/merge-queues/nope0000'), 404, 'MERGE_QUEUE_NOT_FOUND');
  await fails(v2(c, 'GET', '/v2/pull-requests/00000000-0000-5000-8000-000000000000'), 404, 'PR_NOT_FOUND');
  const pr = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 3 }), 201);
  await fails(v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 3 }), 409, 'PR_ALREADY_ENQUEUED');
  await fails(v2(c, 'DELETE', `/v2/merge-queues/${q.id}`), 409, 'QUEUE_HAS_ACTIVE_ENTRIES');
  expect((await ok(StateChange, v2(c, 'POST', `/v2/merge-queues/${q.id}/pause`))).state).toBe('paused');
  expect((await ok(StateChange, v2(c, 'POST', `/v2/merge-queues/${q.id}/drain`))).state).toBe('draining');
  expect((await ok(StateChange, v2(c, 'POST', `/v2/merge-queues/${q.id}/resume`))).state).toBe('running');
  expect((await c.post('getQueue', queue)).json().state).toBe('running');
  const runs = (await c.runs()).length;
  const restarted = await ok(PullRequest, v2(c, 'POST', `/v2/pull-requests/${pr.id}/restart-tests`));
  expect(restarted.queueEntry?.state).toBe('testing');
  expect(await c.runs()).toHaveLength(runs + 1);
  const gone = await ok(PullRequest, v2(c, 'POST', `/v2/pull-requests/${pr.id}/dequeue`));
  expect(gone).toMatchObject({ isCurrentlySubmittedToQueue: false, queueEntry: { state: 'cancelled' } });
  expect((await c.pr(3)).state).toBe('cancelled');
  await fails(v2(c, 'POST', `/v2/pull-requests/${pr.id}/dequeue`), 409, 'PR_NOT_IN_ACTIVE_STATE');
  const del = await v2(c, 'DELETE', `/v2/merge-queues/${q.id}`);
  expect(del.status).toBe(204);
  expect(del.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  await fails(v2(c, 'GET', `/v2/merge-queues/${q.id}`), 404, 'MERGE_QUEUE_NOT_FOUND');
});

it('pages lists with limit, a cursor bound to its operation and filter, and includeTotal', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, state: 'paused' });
  for (let n = 1; n <= 5; n++) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  const path = `/v2/merge-queues/${q.id}/pull-requests`;
  const first = await ok(list(PullRequest), v2(c, 'GET', `${path}?limit=2&includeTotal=true`));
  expect(first).toMatchObject({ hasMore: true, total: 5 });
  expect(first.data.map((p) => p.number)).toEqual([5, 4]);
  const second = await ok(list(PullRequest), v2(c, 'GET', `${path}?limit=2&cursor=${first.nextCursor}`));
  expect(second.data.map((p) => p.number)).toEqual([3, 2]);
  expect(second.total).toBeUndefined();
  const last = await ok(list(PullRequest), v2(c, 'GET', `${path}?limit=2&cursor=${second.nextCursor}`));
  expect(last).toMatchObject({ hasMore: false, nextCursor: null });
  expect(last.data.map((p) => p.number)).toEqual([1]);
  await fails(v2(c, 'GET', `${path}?limit=2&state=notReady&cursor=${first.nextCursor}`), 400, 'INVALID_CURSOR');
  await fails(v2(c, 'GET', `/v2/merge-queues?cursor=${first.nextCursor}`), 400, 'INVALID_CURSOR');
  await fails(v2(c, 'GET', `${path}?cursor=garbage`), 400, 'INVALID_CURSOR');
  await fails(v2(c, 'GET', `${path}?limit=101`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${path}?limit=0`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${path}?state=not_ready`), 400, 'VALIDATION_FAILED');
  const waiting = await ok(list(PullRequest), v2(c, 'GET', `${path}?state=notReady,testing`));
  expect(waiting.data.map((p) => p.number)).toEqual([5, 4, 3, 2, 1]);
  expect((await ok(list(PullRequest), v2(c, 'GET', `${path}?state=merged`))).data).toEqual([]);
});
