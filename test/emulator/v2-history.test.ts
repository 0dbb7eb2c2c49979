/** A queue's testing results over v2 agree with v1's, newest first, in pages whose window stays fixed. */
import { afterEach, expect, it } from 'vitest';

import { queue, T0 } from './http-helpers.js';
import { fails, list, ok, setUp, start, stop, TestingResult, v2 } from './v2-helpers.js';

afterEach(stop);

it('maps every v1 row, newest first, and keeps until fixed across pages', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('/_emulator/pullRequests', { repo: queue.repo, number: 2, breaksBuild: true });
  for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await c.advance(60);
  const since = new Date(T0).toISOString();
  const v1 = (await c.post('listMergeQueueTestingResults', { ...queue, since })).json();
  expect(v1.totalItems).toBeGreaterThan(2);
  const path = `/v2/merge-queues/${q.id}/testing-results?since=${since}&limit=2`;
  const first = await ok(list(TestingResult), v2(c, 'GET', `${path}&includeTotal=true`));
  expect(first.total).toBe(v1.totalItems);
  // More testing after the first page does not move the window of the pages after it.
  await c.post('submitPullRequest', { ...queue, pr: { number: 4 } });
  await c.advance(60);
  const rows = [...first.data];
  let cursor = first.nextCursor;
  while (cursor !== null) {
    const next = await ok(list(TestingResult), v2(c, 'GET', `${path}&cursor=${cursor}`));
    rows.push(...next.data);
    cursor = next.nextCursor;
  }
  const expected = [...v1.testingResults].reverse().map((r: any) => ({
    pullRequestNumber: r.prNumber,
    endedAt: r.completedAt,
    testingDurationMs: r.testingDurationMs,
    outcome: r.outcome,
    ...(r.cycleConclusion ? { entryConclusion: r.cycleConclusion } : {}),
    isBisection: r.isBisection,
    startedBisection: r.startedBisection,
    verificationRunId: r.testRunId,
  }));
  expect(rows).toEqual(expected);
  expect(rows.some((r) => r.outcome === 'failed')).toBe(true);
});

it('refuses a missing or malformed since and a window over 45 days', async () => {
  const c = await start();
  const { q } = await setUp(c);
  const path = `/v2/merge-queues/${q.id}/testing-results`;
  await fails(v2(c, 'GET', path), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${path}?since=yesterday`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${path}?since=2025-01-01T00:00:00Z&until=2025-03-01T00:00:00Z`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `${path}?since=2025-01-01T00:00:00Z&cursor=WyJ4Il0`), 400, 'INVALID_CURSOR');
});

it('reads a run cut short as interrupted for a PR that stays queued, cancelled for one that left', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 2 });
  for (const n of [1, 2]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await c.post('restartTestsOnPullRequest', { ...queue, pr: { number: 1 } });
  await c.post('cancelPullRequest', { ...queue, pr: { number: 2 } });
  const since = new Date(T0).toISOString();
  const v1 = (await c.post('listMergeQueueTestingResults', { ...queue, since })).json().testingResults;
  expect(v1.map((r: any) => [r.prNumber, r.outcome])).toEqual([
    [1, 'cancelled'],
    [2, 'cancelled'],
  ]);
  const rows = (await ok(list(TestingResult), v2(c, 'GET', `/v2/merge-queues/${q.id}/testing-results?since=${since}`)))
    .data;
  // #1 restarted (it is retested): interrupted; #2 dequeued while testing: cancelled.
  expect(rows.map((r) => [r.pullRequestNumber, r.outcome])).toEqual([
    [2, 'cancelled'],
    [1, 'interrupted'],
  ]);
});
