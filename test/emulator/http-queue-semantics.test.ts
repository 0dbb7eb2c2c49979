/**
 * The queue semantics of issue 6 over HTTP: the refusal during a mode switch, bisection runs in the
 * control API's test-run listing, the fake PR's upToDate field, and the bisection metric series.
 */
import { beforeEach, describe, expect, it } from 'vitest';

import { queue, repo, useEmulator } from './http-helpers.js';

const { client: c } = useEmulator();

beforeEach(async () => {
  await c.post('createQueue', { ...queue, concurrency: 5 });
});

const submit = (n: number) => c.post('submitPullRequest', { ...queue, pr: { number: n } });

describe('issue 6 over HTTP', () => {
  it('refuses setting changes with 400 while switching modes; state changes are accepted', async () => {
    await submit(1);
    const switched = await c.post('updateQueue', { ...queue, mode: 'parallel' });
    expect(switched.json()).toMatchObject({ state: 'switching_modes', mode: 'single' });
    const refused = await c.post('updateQueue', { ...queue, batch: true });
    expect(refused.status).toBe(400);
    expect(refused.type).toBe('text/plain; charset=utf-8');
    expect(refused.text).toContain('is switching modes (to parallel)');
    expect(refused.text).toContain('refused: batch');
    const paused = await c.post('updateQueue', { ...queue, state: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.json().state).toBe('switching_modes');
    await c.post('updateQueue', { ...queue, state: 'running' });
    await c.advance(10);
    expect((await c.post('getQueue', queue)).json()).toMatchObject({
      state: 'running',
      mode: 'parallel',
      batch: false,
    });
  });

  it('marks bisection runs in the test-run listing and reports them under queue_type="bisection"', async () => {
    await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 2, bisectionConcurrency: 3 });
    await c.post('/_emulator/pullRequests', { repo, number: 2, breaksBuild: true });
    await submit(1);
    await submit(2);
    await c.advance(10);
    const runs = (await c.get('/_emulator/testRuns')).json().testRuns;
    expect(runs.map((r: any) => [r.prNumbers, r.basePrNumbers, r.isBisection])).toEqual([
      [[1, 2], [], false],
      [[1], [], true],
      [[2], [1], true],
    ]);
    expect(runs[1].testBranch).toMatch(/-bisection$/);
    const details = await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: runs[2].testBranch });
    expect(details.json()).toMatchObject({
      testedPullRequests: [{ prNumber: 2 }],
      dependentPrs: [1],
      status: 'in_progress',
    });
    const metrics = (await c.get('/v1/getMergeQueueMetrics')).text;
    const b = 'repo="acme/app",branch="main",queue_type="bisection"';
    expect(metrics).toContain(`mq_testing_slots_active{${b}} 2`);
    expect(metrics).toContain(`mq_depth_current{${b}} 2`);
    expect(metrics).toContain('mq_depth_current{repo="acme/app",branch="main",queue_type="main"} 0');
    await c.advance(10);
    const after = (await c.get('/v1/getMergeQueueMetrics')).text;
    expect(after).toContain(`mq_pr_conclusions_1h_total{${b},conclusion="failed"} 1`);
    expect((await c.pr(2)).state).toBe('failed');
  });

  it('takes upToDate on fake PRs and merges such a PR directly into an empty queue', async () => {
    await c.post('updateQueue', { ...queue, directMergeMode: 'always' });
    const fake = await c.post('/_emulator/pullRequests', { repo, number: 4, upToDate: true });
    expect(fake.json()).toMatchObject({ number: 4, upToDate: true });
    expect(fake.json()).not.toHaveProperty('upToDateTip');
    expect((await c.post('/_emulator/pullRequests', { repo, number: 5 })).json().upToDate).toBe(false);
    const bad = await c.post('/_emulator/pullRequests', { repo, number: 5, upToDate: 'yes' });
    expect([bad.status, bad.text]).toEqual([400, 'upToDate: expected true or false']);
    await submit(4);
    expect((await c.pr(4)).state).toBe('merged');
    expect(await c.runs()).toEqual([]);
  });

  it('uploads impacted targets per SHA and reports them in the testing details (parallel mode)', async () => {
    await c.post('updateQueue', { ...queue, mode: 'parallel' });
    await submit(1);
    await submit(2);
    const sha = async (n: number) => (await c.pr(n)).prSha;
    await c.post('setImpactedTargets', { ...queue, pr: { number: 1, sha: await sha(1) }, impactedTargets: ['api'] });
    await c.post('setImpactedTargets', { ...queue, pr: { number: 2, sha: await sha(2) }, impactedTargets: 'ALL' });
    const runs = await c.runs();
    expect(runs.map((r) => [r.prNumbers, r.basePrNumbers])).toEqual([
      [[1], []],
      [[2], [1]],
    ]);
    const details = (await c.post('getMergeQueueTestingDetails', { ...queue, testRunId: runs[1]!.id })).json();
    expect(details).toMatchObject({
      impactedTargets: ['api', 'ALL'],
      impactedTargetsForTestedPrs: ['ALL'],
      dependentPrs: [1],
    });
  });
});
