/** Queue-entry history over v2: v1's timeline, oldest first by default, for one PR or several. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { EntryHistory, fails, list, ok, PullRequest, setUp, start, stop, Transition, v2 } from './v2-helpers.js';

afterEach(stop);

async function merged() {
  const c = await start();
  const { q } = await setUp(c);
  const ids: string[] = [];
  for (const number of [1, 2]) {
    ids.push((await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number }), 201)).id);
  }
  await c.advance(60);
  const v1 = async (n: number) =>
    (await c.post('getSubmittedPullRequest', { ...queue, pr: { number: n }, includeTimeline: true })).json().timeline;
  return { c, ids, v1 };
}

it("maps one PR's timeline, oldest first, newest first on request, in pages", async () => {
  const { c, ids, v1 } = await merged();
  const timeline = await v1(1);
  expect(timeline.length).toBeGreaterThan(2);
  // v1 is newest first with lowercase reasons; v2 oldest first, UPPERCASE, none while testing.
  const expected = [...timeline].reverse().map((t: any) => ({
    pullRequestId: ids[0],
    state: t.state.replace(/_([a-z])/g, (_: string, ch: string) => ch.toUpperCase()),
    changedAt: t.timestamp,
    reason: t.state === 'testing' ? null : t.reason.toUpperCase(),
    ...(t.testRunId ? { verificationRunId: t.testRunId } : {}),
  }));
  const path = `/v2/pull-requests/${ids[0]}/queue-entry-history`;
  const all = await ok(list(Transition), v2(c, 'GET', path));
  expect(all.data).toEqual(expected);
  expect(all.data.at(-1)?.state).toBe('merged');
  const newest = await ok(list(Transition), v2(c, 'GET', `${path}?direction=newest&limit=2&includeTotal=true`));
  expect(newest).toMatchObject({ hasMore: true, total: expected.length });
  expect(newest.data).toEqual([...expected].reverse().slice(0, 2));
  const next = await ok(list(Transition), v2(c, 'GET', `${path}?direction=newest&limit=2&cursor=${newest.nextCursor}`));
  expect(next.data).toEqual([...expected].reverse().slice(2, 4));
  await fails(v2(c, 'GET', `${path}?cursor=${newest.nextCursor}`), 400, 'INVALID_CURSOR');
  await fails(v2(c, 'GET', `${path}?direction=sideways`), 400, 'VALIDATION_FAILED');
  await fails(
    v2(c, 'GET', '/v2/pull-requests/00000000-0000-5000-8000-000000000000/queue-entry-history'),
    404,
    'PR_NOT_FOUND',
  );
});

it('answers several PRs, paged by PR, leaving out unknown ids', async () => {
  const { c, ids } = await merged();
  const unknown = '00000000-0000-5000-8000-000000000000';
  const path = `/v2/queue-entry-history?pullRequestIds=${ids[1]},${unknown},${ids[0]}`;
  const both = await ok(list(EntryHistory), v2(c, 'GET', path));
  expect(both.data.map((h) => h.pullRequestId)).toEqual([ids[1], ids[0]]);
  const one = await ok(list(Transition), v2(c, 'GET', `/v2/pull-requests/${ids[1]}/queue-entry-history`));
  expect(both.data[0]?.transitions).toEqual(one.data);
  const first = await ok(list(EntryHistory), v2(c, 'GET', `${path}&limit=1`));
  expect(first.data.map((h) => h.pullRequestId)).toEqual([ids[1]]);
  const second = await ok(list(EntryHistory), v2(c, 'GET', `${path}&limit=1&cursor=${first.nextCursor}`));
  expect(second).toMatchObject({ hasMore: false, nextCursor: null });
  expect(second.data.map((h) => h.pullRequestId)).toEqual([ids[0]]);
  await fails(v2(c, 'GET', '/v2/queue-entry-history'), 400, 'VALIDATION_FAILED');
  const many = Array.from({ length: 51 }, () => unknown).join(',');
  await fails(v2(c, 'GET', `/v2/queue-entry-history?pullRequestIds=${many}`), 400, 'VALIDATION_FAILED');
});
