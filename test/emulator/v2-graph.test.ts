/** GET /graph: admitted PRs in v1's order, edges where impacted targets overlap, transitively reduced. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import {
  fails,
  list,
  MergeGraph,
  MergeQueue,
  ok,
  PullRequest,
  Repository,
  setUp,
  start,
  stop,
  v2,
} from './v2-helpers.js';

afterEach(stop);

it('links each PR to the earlier ones it overlaps, dropping edges implied through another PR', async () => {
  const c = await start();
  const repo = (await ok(list(Repository), v2(c, 'GET', '/v2/repositories?providerUrl=https://github.com/acme/app')))
    .data[0]!;
  const body = { repositoryId: repo.id, targetBranch: 'main', mode: 'graph', concurrency: 1 };
  const q = await ok(MergeQueue, v2(c, 'POST', '/v2/merge-queues', body), 201);
  const targets: Record<number, string[]> = { 1: ['//a'], 2: ['//b'], 3: ['//a', '//b'], 4: ['//a'], 5: ['//c'] };
  for (const [n, t] of Object.entries(targets)) {
    const pr = await ok(
      PullRequest,
      v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: Number(n) }),
      201,
    );
    const put = { repositoryId: repo.id, targetBranch: 'main', number: pr.number, sha: pr.sha, impactedTargets: t };
    expect((await v2(c, 'PUT', '/v2/impacted-targets', put)).status).toBe(202);
  }
  const graph = await ok(MergeGraph, v2(c, 'GET', `/v2/merge-queues/${q.id}/graph`));
  const v1 = (await c.post('getQueue', queue)).json().enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber);
  expect(graph.nodes.map((n) => n.pullRequestNumber)).toEqual(v1);
  expect(v1).toHaveLength(5);
  expect(graph.nodes[0]).toMatchObject({
    state: 'testing',
    priorityValue: 100,
    skipsTheLine: false,
    allowsBatching: true,
  });
  expect(graph.nodes[0]?.verificationRunId).toBe((await c.runs())[0]?.id);
  expect(graph.nodes[0]?.impactedTargets).toBeUndefined();
  expect(graph.edges.map((e) => [e.fromPullRequestNumber, e.toPullRequestNumber])).toEqual([
    [1, 3],
    [2, 3],
    [3, 4],
  ]);
  const detailed = await ok(MergeGraph, v2(c, 'GET', `/v2/merge-queues/${q.id}/graph?includeImpactedTargets=true`));
  expect(detailed.nodes[2]).toMatchObject({ impactedTargets: ['//a', '//b'], totalImpactedTargets: 2 });
  expect(detailed.edges[2]).toEqual({
    fromPullRequestNumber: 3,
    toPullRequestNumber: 4,
    commonImpactedTargets: ['//a'],
    totalCommonImpactedTargets: 1,
  });
  await fails(v2(c, 'GET', `/v2/merge-queues/${q.id}/graph?includeImpactedTargets=yes`), 400, 'VALIDATION_FAILED');
});

it('is a chain in queue mode', async () => {
  const c = await start();
  const { q } = await setUp(c);
  for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  const graph = await ok(MergeGraph, v2(c, 'GET', `/v2/merge-queues/${q.id}/graph`));
  expect(graph.edges.map((e) => [e.fromPullRequestNumber, e.toPullRequestNumber])).toEqual([
    [1, 2],
    [2, 3],
  ]);
});
