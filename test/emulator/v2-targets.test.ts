/** PUT /v2/impacted-targets admits a graph-mode PR as v1's setImpactedTargets does. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { fails, list, MergeQueue, ok, PullRequest, READER, Repository, start, stop, v2 } from './v2-helpers.js';

afterEach(stop);

it('uploads targets by number or head branch, ALL as impactsAllTargets, and the PR is admitted', async () => {
  const c = await start();
  const repo = (await ok(list(Repository), v2(c, 'GET', '/v2/repositories?providerUrl=https://github.com/acme/app')))
    .data[0]!;
  const q = await ok(
    MergeQueue,
    v2(c, 'POST', '/v2/merge-queues', { repositoryId: repo.id, targetBranch: 'main', mode: 'graph' }),
    201,
  );
  const one = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 1 }), 201);
  const two = await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number: 2 }), 201);
  expect(one.queueEntry).toMatchObject({
    state: 'notReady',
    readiness: { requiresImpactedTargets: true, hasImpactedTargets: false },
  });

  const put = (body: Record<string, unknown>, key?: string) =>
    v2(c, 'PUT', '/v2/impacted-targets', { repositoryId: repo.id, targetBranch: 'main', ...body }, key);
  const accepted = await put({ number: 1, sha: one.sha, impactedTargets: ['//a:lib'] });
  expect([accepted.status, accepted.text]).toEqual([202, '']);
  expect(accepted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect((await put({ branch: two.branch, sha: two.sha, impactsAllTargets: true })).status).toBe(202);

  for (const p of [one, two]) {
    const now = await ok(PullRequest, v2(c, 'GET', `/v2/pull-requests/${p.id}`));
    expect(now.queueEntry?.readiness.hasImpactedTargets).toBe(true);
    expect(now.queueEntry?.state).not.toBe('notReady');
    expect((await c.pr(p.number)).readiness.hasImpactedTargets).toBe(true);
  }

  await fails(put({ number: 1, branch: 'pr-1', sha: one.sha, impactsAllTargets: true }), 400, 'VALIDATION_FAILED');
  await fails(put({ number: 1, sha: one.sha }), 400, 'VALIDATION_FAILED');
  await fails(put({ number: 1, sha: one.sha, impactsAllTargets: false }), 400, 'VALIDATION_FAILED');
  await fails(put({ branch: 'feature/x', sha: one.sha, impactsAllTargets: true }), 404, 'PR_NOT_FOUND');
  await fails(put({ number: 1, sha: one.sha, impactsAllTargets: true }, READER), 403, 'INSUFFICIENT_PERMISSIONS');
  await fails(
    put({ repositoryId: '00000000-0000-5000-8000-000000000000', number: 1, sha: 'abc', impactsAllTargets: true }),
    404,
    'REPOSITORY_NOT_FOUND',
  );
  await fails(
    put({ targetBranch: 'release', number: 1, sha: 'abc', impactsAllTargets: true }),
    404,
    'REPOSITORY_NOT_FOUND',
  );
  expect((await c.post('getQueue', queue)).status).toBe(200);
});
