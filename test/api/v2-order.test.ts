/**
 * Order, graph and estimate through both clients on one emulator: v2 serves them, v1 implies the
 * order from its queue record (marked approximate) and has no graph or estimate.
 */
import { afterEach, expect, it } from 'vitest';
import { MergeQueueClient } from '../../src/api/client.js';
import { HttpClient } from '../../src/api/http.js';
import { V2Client } from '../../src/api/v2/client.js';
import { memoryIdStore } from '../../src/api/v2/ids.js';
import { queue, TOKEN } from '../emulator/http-helpers.js';
import { KEY, start, stop } from '../emulator/v2-helpers.js';

afterEach(stop);

async function clients() {
  const c = await start();
  await c.post('createQueue', queue);
  const base = c.emu.url;
  const http = (api: 'v1' | 'v2') =>
    new HttpClient({
      baseUrl: api === 'v1' ? base : base.replace(/\/v1$/, ''),
      api,
      token: api === 'v1' ? TOKEN : KEY,
      userAgent: 'mq-test',
      timeoutMs: 5000,
    });
  return { c, v1: new MergeQueueClient(http('v1')), v2: new V2Client(http('v2'), memoryIdStore()) };
}

it('the same PRs in the same order on both; v2 says which run and what holds what', async () => {
  const { c, v1, v2 } = await clients();
  await c.post('updateQueue', { ...queue, concurrency: 1, batch: false });
  for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  const [a, b] = await Promise.all([v1.getOrder(queue), v2.getOrder(queue)]);
  const flat = (o: typeof a) => [
    ...o.batches.flatMap((x) => x.prs.map((p) => p.number)),
    ...o.pending.map((p) => p.number),
  ];
  expect(flat(a)).toEqual([1, 2, 3]);
  expect(flat(b)).toEqual([1, 2, 3]);
  expect(a.approximate).toBe(true);
  expect(b.approximate).toBe(false);
  expect(b.batches[0]?.runId).toEqual((await c.runs())[0]?.id);
  expect(b.batches[0]?.state).toBe('testing');
  expect(b.pending.map((p) => p.schedulability)).toEqual(['schedulable', 'schedulable']);
  expect(b).toMatchObject({ queueState: 'running', mode: 'single' });
});

it('graph: v2 serves the parallel queue graph; v1 refuses with a hint (exit 5)', async () => {
  const { c, v1, v2 } = await clients();
  await c.post('updateQueue', { ...queue, mode: 'parallel' });
  for (const n of [1, 2]) {
    await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    const pr = await c.pr(n);
    await c.post('setImpactedTargets', { ...queue, pr: { number: n, sha: pr.prSha }, impactedTargets: ['//app'] });
  }
  const g = await v2.getGraph({ ...queue, impactedTargets: true });
  expect(g.nodes.map((n) => n.number).sort()).toEqual([1, 2]);
  expect(g.edges).toContainEqual(expect.objectContaining({ from: 1, to: 2, commonTargets: ['//app'] }));
  await expect(v1.getGraph(queue)).rejects.toMatchObject({ exitCode: 5, why: 'the v1 API has no dependency graph' });
});

it("estimate: v2 gives the emulator's; none on v1; none where the queue serves none", async () => {
  const { c, v1, v2 } = await clients();
  for (const n of [1, 2]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  const e = await v2.getEstimate({ ...queue, pr: { number: 2 } });
  expect(e).toMatchObject({ status: 'available', kind: 'merge', pullRequestsAhead: 1 });
  expect(e?.status === 'available' && e.estimatedAt).toBeGreaterThan(0);
  expect(await v1.getEstimate({ ...queue, pr: { number: 2 } })).toBeUndefined();
  await c.post('/_emulator/queues/estimates', { ...queue, enabled: false });
  expect(await v2.getEstimate({ ...queue, pr: { number: 2 } })).toBeUndefined();
});
