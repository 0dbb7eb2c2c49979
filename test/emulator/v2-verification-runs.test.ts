/** Verification runs over v2: v1's test runs by the same id, a queue's and a PR's, newest first. */
import { afterEach, expect, it } from 'vitest';

import { queue, T0 } from './http-helpers.js';
import { fails, list, ok, PullRequest, setUp, start, stop, v2, VerificationRun } from './v2-helpers.js';

afterEach(stop);

async function tested() {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, concurrency: 3 });
  await c.post('/_emulator/pullRequests', { repo: queue.repo, number: 2, breaksBuild: true });
  const ids: string[] = [];
  for (const number of [1, 2, 3]) {
    ids.push((await ok(PullRequest, v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, { number }), 201)).id);
  }
  await c.advance(60);
  return { c, q, ids, runs: await c.runs() };
}

it('gets a run by its v1 id, with the PRs it tested and those it was tested on top of', async () => {
  const { c, ids, runs } = await tested();
  const run = runs.find((r) => r.prNumbers.includes(2) && r.basePrNumbers.length > 0)!;
  const v1 = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: run.id })).json();
  const got = await ok(VerificationRun, v2(c, 'GET', `/v2/merge-queue-verification-runs/${run.id}`));
  expect(got).toMatchObject({
    id: run.id,
    status: 'failed',
    isBisection: false,
    testBranch: v1.testBranch,
    testBranchSha: v1.testBranchSha,
    testBranchCommitUrl: `https://github.com/acme/app/commit/${v1.testBranchSha}`,
    requiredStatuses: v1.requiredStatuses,
    checks: [],
  });
  expect(got.testedPullRequests.map((p) => [p.id, p.number])).toEqual([[ids[1], 2]]);
  expect(got.dependentPullRequests.map((p) => p.number)).toEqual(run.basePrNumbers);
  expect(got.testedPullRequests[0]?.sha).toMatch(/^[0-9a-f]{40}$/);
  expect(got.testedPullRequests[0]?.sha).toBe((await c.pr(2)).prSha);
  await fails(v2(c, 'GET', `/v2/merge-queue-verification-runs/${run.id}-bisection`), 404, 'VERIFICATION_RUN_NOT_FOUND');
  await fails(v2(c, 'GET', '/v2/merge-queue-verification-runs/nope'), 404, 'VERIFICATION_RUN_NOT_FOUND');
});

it("lists a queue's runs and a PR's runs newest first, filtered by status", async () => {
  const { c, q, ids, runs } = await tested();
  const all = await ok(list(VerificationRun), v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?limit=100`));
  expect(all.data.map((r) => r.id).sort()).toEqual(runs.map((r) => r.id).sort());
  const created = all.data.map((r) => r.createdAt);
  expect([...created].sort().reverse()).toEqual(created);
  const failed = await ok(
    list(VerificationRun),
    v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?status=failed`),
  );
  expect(failed.data.map((r) => r.id).sort()).toEqual(
    runs
      .filter((r) => r.status === 'failed')
      .map((r) => r.id)
      .sort(),
  );
  const later = new Date(T0 + 24 * 3600_000).toISOString();
  const none = await ok(
    list(VerificationRun),
    v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?createdAfter=${later}`),
  );
  expect(none.data).toEqual([]);
  const mine = await ok(list(VerificationRun), v2(c, 'GET', `/v2/pull-requests/${ids[2]}/verification-runs`));
  expect(mine.data.map((r) => r.id).sort()).toEqual(
    runs
      .filter((r) => r.prNumbers.includes(3))
      .map((r) => r.id)
      .sort(),
  );
  expect(mine.data.every((r) => r.testedPullRequests.some((p) => p.number === 3))).toBe(true);
  const page1 = await ok(list(VerificationRun), v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?limit=1`));
  await fails(
    v2(c, 'GET', `/v2/pull-requests/${ids[2]}/verification-runs?cursor=${page1.nextCursor}`),
    400,
    'INVALID_CURSOR',
  );
  await fails(
    v2(c, 'GET', `/v2/pull-requests/${ids[2]}/verification-runs?createdAfter=${later}`),
    400,
    'VALIDATION_FAILED',
  );
  await fails(v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?status=passed`), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs?createdAfter=soon`), 400, 'VALIDATION_FAILED');
});

it("gives a run read by id its commits' impacted targets, all and the tested PRs' only; lists leave them out", async () => {
  const c = await start();
  const { q } = await setUp(c);
  await c.post('updateQueue', { ...queue, mode: 'parallel', concurrency: 3 });
  const upload = async (number: number, impactedTargets: string[] | 'ALL') => {
    const { prSha } = await c.pr(number);
    await c.post('setImpactedTargets', { ...queue, pr: { number, sha: prSha }, impactedTargets });
  };
  for (const n of [1, 2]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await upload(1, ['//b', '//a']);
  await upload(2, ['//a', '//c']);
  const second = (await c.runs()).find((r) => r.prNumbers.includes(2))!;
  const got = await ok(VerificationRun, v2(c, 'GET', `/v2/merge-queue-verification-runs/${second.id}`));
  expect(got.impactedTargets).toEqual({
    all: { impactsAllTargets: false, impactedTargets: ['//a', '//b', '//c'], totalImpactedTargets: 3 },
    testedPullRequestsOnly: { impactsAllTargets: false, impactedTargets: ['//a', '//c'], totalImpactedTargets: 2 },
  });
  const listed = await ok(list(VerificationRun), v2(c, 'GET', `/v2/merge-queues/${q.id}/verification-runs`));
  expect(listed.data.some((r) => 'impactedTargets' in r)).toBe(false);
  await c.post('submitPullRequest', { ...queue, pr: { number: 3 } });
  await upload(3, 'ALL');
  const third = (await c.runs()).find((r) => r.prNumbers.includes(3))!;
  const all = await ok(VerificationRun, v2(c, 'GET', `/v2/merge-queue-verification-runs/${third.id}`));
  expect(all.impactedTargets?.all).toEqual({ impactsAllTargets: true, impactedTargets: [], totalImpactedTargets: 0 });
});
