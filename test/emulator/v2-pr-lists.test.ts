/**
 * v2's pull-request lists: resolving by head branch (number or branch, baseBranch, open first) and
 * the queue list's author and concluded-window filters, each bound into the paging cursor.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';

import type { Client } from './http-helpers.js';
import { queue, repo as v1Repo } from './http-helpers.js';
import { ErrorResponse, fails, list, ok, PullRequest, setUp, start, stop, v2 } from './v2-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  await stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const fakePr = (c: Client, number: number, fields: Record<string, unknown>) =>
  c.post('/_emulator/pullRequests', { repo: v1Repo, number, ...fields });
const submit = (c: Client, number: number) => c.post('submitPullRequest', { ...queue, pr: { number } });
const numbers = (p: { data: Array<{ number: number }> }) => p.data.map((r) => r.number);

it('resolves a pull request by its head branch, the open one first, kept across a restart', async () => {
  dir = await mkdtemp(join(tmpdir(), 'mq-v2-branch-'));
  let c = await start(dir);
  const { repo } = await setUp(c);
  expect((await fakePr(c, 7, { branch: 'feature/x' })).json()).toMatchObject({ branch: 'feature/x' });
  await submit(c, 7);
  await submit(c, 8);
  const resolve = (query: string) =>
    ok(list(PullRequest), v2(c, 'GET', `/v2/pull-requests?repositoryId=${repo.id}&${query}`));
  const seven = await resolve('branch=feature/x');
  expect(seven.data).toHaveLength(1);
  expect(seven.data[0]).toMatchObject({ number: 7, branch: 'feature/x', baseBranch: 'main' });
  expect(numbers(await resolve('branch=pr-8'))).toEqual([8]);
  expect(numbers(await resolve('branch=feature/x&baseBranch=main'))).toEqual([7]);
  expect(numbers(await resolve('branch=feature/x&baseBranch=dev'))).toEqual([]);
  expect(await resolve('branch=nowhere')).toEqual({ data: [], nextCursor: null, hasMore: false });
  const base = `/v2/pull-requests?repositoryId=${repo.id}`;
  await fails(v2(c, 'GET', `${base}&number=7&branch=feature/x`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', base), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${base}&number=7&baseBranch=main`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${base}&branch=`), 400, 'VALIDATION_FAILED');

  // A branch reused: the merged PR until an open one comes from it.
  await fakePr(c, 10, { branch: 'reused' });
  await submit(c, 10);
  await c.advance(60);
  expect((await c.pr(10)).state).toBe('merged');
  expect(numbers(await resolve('branch=reused'))).toEqual([10]);
  await fakePr(c, 11, { branch: 'reused' });
  await submit(c, 11);
  expect(numbers(await resolve('branch=reused'))).toEqual([11]);

  await stop();
  c = await start(dir);
  expect(numbers(await resolve('branch=feature/x'))).toEqual([7]);
});

it('filters a queue list by author and by when entries concluded, both bounds inclusive', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await fakePr(c, 1, { author: 'octocat' });
  await fakePr(c, 3, { author: 'octocat' });
  await submit(c, 1);
  await c.advance(60);
  await submit(c, 2);
  await submit(c, 3);
  await c.post('cancelPullRequest', { ...queue, pr: { number: 2 } });
  // Cancelled then resubmitted: it still concluded in the window.
  await submit(c, 2);
  const path = `/v2/merge-queues/${q.id}/pull-requests`;
  const get = (query: string) => ok(list(PullRequest), v2(c, 'GET', `${path}?${query}`));
  expect(numbers(await get('author=octocat'))).toEqual([3, 1]);
  expect(numbers(await get('author=nobody'))).toEqual([]);
  const merged = (await get('state=merged')).data[0];
  const mergedAt = merged?.queueEntry?.stateChangedAt as string;
  expect(merged?.number).toBe(1);
  expect(numbers(await get(`concludedAfter=${mergedAt}&concludedBefore=${mergedAt}`))).toEqual([1]);
  const later = new Date(Date.parse(mergedAt) + 1).toISOString();
  expect(numbers(await get(`concludedAfter=${later}`))).toEqual([2]);
  expect(numbers(await get(`concludedBefore=${later}`))).toEqual([1]);
  expect(numbers(await get(`concludedAfter=${later}&state=pending,testing`))).toEqual([2]);

  for (const [param, value] of [
    ['concludedAfter', 'yesterday'],
    ['concludedBefore', '2026-13-01T00:00:00Z'],
    ['author', ''],
  ]) {
    const a = await v2(c, 'GET', `${path}?${param}=${value}`);
    expect(a.status).toBe(400);
    expect(ErrorResponse.parse(a.json()).error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(a.json().error.message).toMatch(new RegExp(`^${param}: `));
  }
  await fails(v2(c, 'GET', `${path}?concludedAfter=${later}&concludedBefore=${mergedAt}`), 400, 'VALIDATION_FAILED');

  const first = await get('author=octocat&limit=1');
  expect(first.hasMore).toBe(true);
  expect(numbers(await get(`author=octocat&limit=1&cursor=${first.nextCursor}`))).toEqual([1]);
  await fails(v2(c, 'GET', `${path}?author=other&cursor=${first.nextCursor}`), 400, 'INVALID_CURSOR');
  await fails(v2(c, 'GET', `${path}?cursor=${first.nextCursor}`), 400, 'INVALID_CURSOR');
  const windowed = await get(`concludedBefore=${later}&author=octocat&limit=1&concludedAfter=${mergedAt}`);
  expect(windowed.hasMore).toBe(false);
  const all = await get('limit=1');
  await fails(v2(c, 'GET', `${path}?concludedAfter=${mergedAt}&cursor=${all.nextCursor}`), 400, 'INVALID_CURSOR');
});
