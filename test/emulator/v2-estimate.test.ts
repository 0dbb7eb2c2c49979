/**
 * GET /v2/pull-requests/{id}/queue-entry-estimate: a forward run of a copy of the queue, every test
 * passing, compared with what the queue then does on the manual clock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';

import { QueueEngine } from '../../src/emulator/engine/index.js';
import { type Client, queue, repo, T0 } from './http-helpers.js';
import { fails, KEY, list, ok, PullRequest, READER, setUp, start, stop, Transition, UUID, v2 } from './v2-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  await stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const isoTime = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
/** Trunk's published fields (status, reason, computedAt, kind, estimatedAt) and the emulator's own. */
const Estimate = z.union([
  z.strictObject({
    status: z.literal('unavailable'),
    computedAt: isoTime,
    reason: z.enum(['notInQueue', 'notReady', 'queuePaused', 'beyondHorizon', 'notScheduled', 'wouldNotMerge']),
  }),
  z.strictObject({
    status: z.literal('available'),
    computedAt: isoTime,
    kind: z.literal('merge'),
    estimatedAt: isoTime,
    testingStartsAt: z.optional(isoTime),
    testingEndsAt: z.optional(isoTime),
    pullRequestsAhead: z.int().gte(0),
  }),
  z.strictObject({
    status: z.literal('available'),
    computedAt: isoTime,
    kind: z.literal('pendingFailureResolution'),
    estimatedAt: isoTime,
    waitingOn: z.array(z.strictObject({ id: z.string().regex(UUID), number: z.int() })),
  }),
]);

const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const estimate = (c: Client, id: string, key = KEY) =>
  ok(Estimate, v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`, undefined, key));

async function submitted(c: Client, qid: string, numbers: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const number of numbers)
    ids.push((await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${qid}/pull-requests`, { number }), 201)).id);
  return ids;
}

async function transitions(c: Client, id: string) {
  return (await ok(list(Transition), v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-history?limit=100`))).data;
}

const lastAt = (ts: Array<{ state: string; changedAt: string }>, state: string) =>
  ts.filter((t) => t.state === state).at(-1)?.changedAt;

it('estimates the merge from a forward run, and the queue then merges it at that time', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 2 });
  for (const [number, testMinutes] of [
    [1, 10],
    [2, 25],
    [3, 5],
    [4, 7],
  ] as const)
    await c.post('/_emulator/pullRequests', { repo, number, testMinutes });
  const ids = await submitted(c, q.id, [1, 2, 3, 4]);
  await c.advance(3);
  const runs = await c.runs();
  const e = await estimate(c, ids[3] as string, READER);
  // 1 and 2 test from T0; 3 starts at 10 and passes at 15, 4 tests 15..22; 2 merges at 25, then 3 and 4.
  expect(e).toEqual({
    status: 'available',
    computedAt: at(3),
    kind: 'merge',
    estimatedAt: at(25),
    testingStartsAt: at(15),
    testingEndsAt: at(22),
    pullRequestsAhead: 3,
  });
  expect(await c.runs()).toEqual(runs);
  await c.advance(60);
  const ts = await transitions(c, ids[3] as string);
  expect(lastAt(ts, 'merged')).toBe(e.status === 'available' && e.estimatedAt);
  expect([lastAt(ts, 'testing'), lastAt(ts, 'testsPassed')]).toEqual([at(15), at(22)]);
});

/** Estimates every PR, lets the queue run, and compares each merge with its estimate. */
async function expectEstimatesMet(c: Client, ids: string[]) {
  const estimates = [];
  for (const id of ids) estimates.push(await estimate(c, id));
  await c.advance(24 * 60);
  for (const [i, id] of ids.entries()) {
    const e = estimates[i];
    if (e?.status !== 'available' || e.kind !== 'merge') throw new Error(`no merge estimate: ${JSON.stringify(e)}`);
    const ts = await transitions(c, id);
    expect([lastAt(ts, 'merged'), lastAt(ts, 'testing'), lastAt(ts, 'testsPassed')]).toEqual([
      e.estimatedAt,
      e.testingStartsAt,
      e.testingEndsAt,
    ]);
  }
}

it('matches what the queue does when batching, and in graph mode', async () => {
  const c = await start();
  const { repo: r, q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 2, batch: true, batchingMinSize: 2 });
  for (const [number, testMinutes] of [
    [1, 10],
    [2, 25],
    [3, 5],
    [4, 7],
    [5, 12],
  ] as const)
    await c.post('/_emulator/pullRequests', { repo, number, testMinutes });
  await expectEstimatesMet(c, await submitted(c, q.id, [1, 2, 3, 4, 5]));
  await v2(c, 'POST', `/v2/merge-queues/${q.id}/switch-modes`, { mode: 'graph' });
  await v2(c, 'PATCH', `/v2/merge-queues/${q.id}/config`, { concurrency: 2, allowBatching: false });
  const targets = { 11: ['a'], 12: ['b'], 13: ['a', 'c'], 14: ['b'] } as const;
  const ids: string[] = [];
  for (const n of [11, 12, 13, 14] as const) {
    await c.post('/_emulator/pullRequests', { repo, number: n, testMinutes: n - 5 });
    const pr = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: n }), 201);
    ids.push(pr.id);
    const body = { repositoryId: r.id, targetBranch: 'main', number: n, sha: pr.sha, impactedTargets: targets[n] };
    expect((await v2(c, 'PUT', '/v2/impacted-targets', body)).status).toBe(202);
  }
  await c.advance(1);
  await expectEstimatesMet(c, ids);
});

it('assumes every test passes: a scripted failure and a hang in flight merge in the estimate', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 2 });
  await c.post('/_emulator/pullRequests', { repo, number: 1, outcomes: ['fail'] });
  await c.post('/_emulator/pullRequests', { repo, number: 2, outcomes: ['hang'], testMinutes: 12 });
  const ids = await submitted(c, q.id, [1, 2]);
  expect(await estimate(c, ids[1] as string)).toMatchObject({ kind: 'merge', estimatedAt: at(12) });
  expect((await c.runs()).map((r) => r.status)).toEqual(['in_progress', 'in_progress']);
  expect((await c.pr(1)).state).toBe('testing');
});

it('for a pending failure, names the PRs it waits on and when it resolves', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 2 });
  await c.post('/_emulator/pullRequests', { repo, number: 2, outcomes: ['fail'], testMinutes: 3 });
  const ids = await submitted(c, q.id, [1, 2]);
  await c.advance(4);
  expect((await c.pr(2)).state).toBe('pending_failure');
  expect(await estimate(c, ids[1] as string)).toEqual({
    status: 'available',
    computedAt: at(4),
    kind: 'pendingFailureResolution',
    estimatedAt: at(10),
    waitingOn: [{ id: ids[0], number: 1 }],
  });
  await c.advance(10);
  const ts = await transitions(c, ids[1] as string);
  expect([ts.at(-1)?.state, ts.at(-1)?.changedAt]).toEqual(['failed', at(10)]);
});

it('answers unavailable, with a reason, for a paused queue, a PR not ready and a PR no longer queued', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('/_emulator/pullRequests', { repo, number: 3, mergeable: false });
  const ids = await submitted(c, q.id, [1, 2, 3]);
  expect(await estimate(c, ids[2] as string)).toMatchObject({ status: 'unavailable', reason: 'notReady' });
  await v2(c, 'POST', `/v2/pull-requests/${ids[1]}/dequeue`);
  expect(await estimate(c, ids[1] as string)).toEqual({
    status: 'unavailable',
    computedAt: at(0),
    reason: 'notInQueue',
  });
  await c.advance(30);
  expect((await c.pr(1)).state).toBe('merged');
  expect(await estimate(c, ids[0] as string)).toMatchObject({ status: 'unavailable', reason: 'notInQueue' });
  const four = (await submitted(c, q.id, [4]))[0] as string;
  expect((await v2(c, 'POST', `/v2/merge-queues/${q.id}/pause`)).status).toBe(200);
  expect(await estimate(c, four)).toMatchObject({ status: 'unavailable', reason: 'queuePaused' });
  await fails(
    v2(c, 'GET', '/v2/pull-requests/00000000-0000-5000-8000-000000000000/queue-entry-estimate'),
    404,
    'PR_NOT_FOUND',
  );
});

it('refuses ESTIMATE_NOT_ENABLED on a queue switched off, a choice kept in the data dir', async () => {
  dir = await mkdtemp(join(tmpdir(), 'mq-v2-estimate-'));
  let c = await start(dir);
  const { q } = await setUp(c);
  const [id] = (await submitted(c, q.id, [1])) as [string];
  await ok(Estimate, v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`));
  expect((await c.post('/_emulator/queues/estimates', { ...queue, enabled: false })).json()).toEqual({
    enabled: false,
  });
  await fails(v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`), 404, 'ESTIMATE_NOT_ENABLED');
  await stop();
  c = await start(dir);
  await fails(v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`), 404, 'ESTIMATE_NOT_ENABLED');
  await c.post('/_emulator/queues/estimates', { ...queue, enabled: true });
  await ok(Estimate, v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`));
});

it('with estimates off at start, queues refuse them unless switched on one by one', async () => {
  const c = await start(undefined, { rateLimits: false, estimates: false });
  const { q } = await setUp(c);
  const [id] = (await submitted(c, q.id, [1])) as [string];
  await fails(v2(c, 'GET', `/v2/pull-requests/${id}/queue-entry-estimate`), 404, 'ESTIMATE_NOT_ENABLED');
  await c.post('/_emulator/queues/estimates', { ...queue, enabled: true });
  expect(await estimate(c, id)).toMatchObject({ kind: 'merge', estimatedAt: at(10) });
});

it('counts against the per-key limit of pull-request reads (5 a second)', async () => {
  const wall = 5_000_000_000;
  const c = await start(undefined, { rateLimitClock: () => wall });
  const { q } = await setUp(c);
  const [id] = (await submitted(c, q.id, [1])) as [string];
  const path = `/v2/pull-requests/${id}/queue-entry-estimate`;
  for (let i = 0; i < 5; i++) await ok(Estimate, v2(c, 'GET', path));
  await fails(v2(c, 'GET', path), 429, 'RATE_LIMIT_EXCEEDED');
  await ok(Estimate, v2(c, 'GET', path, undefined, READER));
});

it('answers for a queue of 1,000 PRs in well under a second, without changing the state, bounded in time', () => {
  const engine = new QueueEngine();
  const ref = { repo, targetBranch: 'main' };
  engine.createQueue({ ...ref, concurrency: 5 }, T0);
  for (let n = 1; n <= 1000; n++) engine.submit({ ...ref, pr: { number: n } }, T0);
  const before = JSON.stringify(engine.state);
  const started = performance.now();
  const last = engine.estimate({ ...ref, pr: { number: 1000 } }, T0);
  expect(performance.now() - started).toBeLessThan(1000);
  // Five in flight, 10 minutes each, each merge admitting the next: 200 rounds of 10 minutes.
  expect(last).toMatchObject({ status: 'available', kind: 'merge', ahead: 999 });
  expect(JSON.stringify(engine.state)).toBe(before);
  // One at a time, 1,000 runs of 20 minutes is past the 7-day horizon.
  const slow = { repo: { ...repo, name: 'slow' }, targetBranch: 'main' };
  engine.createQueue(slow, T0);
  for (let n = 1; n <= 1000; n++) {
    engine.upsertFakePr({ repo: slow.repo, number: n, testMinutes: 20 }, T0);
    engine.submit({ ...slow, pr: { number: n } }, T0);
  }
  expect(engine.estimate({ ...slow, pr: { number: 1000 } }, T0)).toEqual({
    status: 'unavailable',
    reason: 'beyondHorizon',
  });
});

it('gives up after 10,000 events of the forward run, inside the 7 days', () => {
  const engine = new QueueEngine();
  const ref = { repo, targetBranch: 'main' };
  engine.createQueue(ref, T0);
  for (let n = 1; n <= 10_001; n++) {
    engine.upsertFakePr({ repo, number: n, testMinutes: 0.1 }, T0);
    engine.submit({ ...ref, pr: { number: n } }, T0);
  }
  expect(engine.estimate({ ...ref, pr: { number: 9_999 } }, T0)).toMatchObject({ kind: 'merge' });
  expect(engine.estimate({ ...ref, pr: { number: 10_001 } }, T0)).toEqual({
    status: 'unavailable',
    reason: 'beyondHorizon',
  });
});
