/** Metrics over v2: v1's Prometheus exposition, for every queue, one repository's, or one queue. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { fails, MergeQueue, ok, setUp, start, stop, v2 } from './v2-helpers.js';

afterEach(stop);

async function text(answer: Promise<{ status: number; text: string; headers: Headers }>) {
  const a = await answer;
  expect(a.status, a.text).toBe(200);
  expect(a.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  return a.text;
}

it("answers v1's exposition for every queue, a repository's and one queue's", async () => {
  const c = await start();
  const { repo, q } = await setUp(c);
  const release = await ok(
    MergeQueue,
    v2(c, 'POST', '/v2/merge-queues', { repositoryId: repo.id, targetBranch: 'release' }),
    201,
  );
  for (const n of [1, 2]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await c.advance(5);
  const v1 = (await c.get('/v1/getMergeQueueMetrics')).text;
  expect(v1).toContain('mq_depth_current{repo="acme/app",branch="main",queue_type="main"} 2');
  expect(await text(v2(c, 'GET', '/v2/merge-queues/metrics'))).toBe(v1);
  expect(await text(v2(c, 'GET', `/v2/merge-queues/metrics?repositoryId=${repo.id}`))).toBe(v1);
  const one = await text(v2(c, 'GET', `/v2/merge-queues/${q.id}/metrics`));
  expect(one).toContain('branch="main"');
  expect(one).not.toContain('branch="release"');
  expect(await text(v2(c, 'GET', `/v2/merge-queues/${release.id}/metrics`))).toContain(
    'mq_depth_current{repo="acme/app",branch="release",queue_type="main"} 0',
  );
  await fails(
    v2(c, 'GET', '/v2/merge-queues/metrics?repositoryId=00000000-0000-5000-8000-000000000000'),
    404,
    'REPOSITORY_NOT_FOUND',
  );
  await fails(v2(c, 'GET', '/v2/merge-queues/zzzzzzzz/metrics'), 404, 'MERGE_QUEUE_NOT_FOUND');
});
