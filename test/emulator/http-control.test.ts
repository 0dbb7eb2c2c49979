/**
 * The `/_emulator` control API: scripting fake PRs and CI outcomes, the manual clock, test runs,
 * reset — and its mistakes answered with 400/404 and a message.
 */
import { beforeEach, describe, expect, it } from 'vitest';

import { T0, queue, repo, startTestEmulator, useEmulator } from './http-helpers.js';

const { client: c } = useEmulator();

beforeEach(async () => {
  await c.post('createQueue', { ...queue, concurrency: 5 });
});

const submit = (n: number) => c.post('submitPullRequest', { ...queue, pr: { number: n } });

describe('fake pull requests', () => {
  it('creates and updates a PR; its fields show through getSubmittedPullRequest', async () => {
    const created = await c.post('/_emulator/pullRequests', {
      repo,
      number: 8,
      title: 'Fix the flux capacitor',
      author: 'doc',
      sha: 'b'.repeat(40),
    });
    expect(created.status).toBe(200);
    expect(created.json()).toMatchObject({
      number: 8,
      title: 'Fix the flux capacitor',
      mergeable: true,
      testMinutes: 10,
    });
    await submit(8);
    expect(await c.pr(8)).toMatchObject({
      prTitle: 'Fix the flux capacitor',
      prAuthor: 'doc',
      prSha: 'b'.repeat(40),
      prBaseBranch: 'main',
    });
    const updated = await c.post('/_emulator/pullRequests', { repo, number: 8, title: 'Fix it properly' });
    expect(updated.json()).toMatchObject({ title: 'Fix it properly', author: 'doc' });
  });

  it('a not-mergeable PR waits in not_ready until it becomes mergeable', async () => {
    await c.post('/_emulator/pullRequests', { repo, number: 3, mergeable: false });
    await submit(3);
    expect(await c.pr(3)).toMatchObject({ state: 'not_ready', readiness: { gitHubMergeability: 'not_mergeable' } });
    await c.post('/_emulator/pullRequests', { repo, number: 3, mergeable: true });
    expect((await c.pr(3)).state).toBe('testing');
  });

  it('a PR based on another branch is not ready; a push to an admitted PR cancels it', async () => {
    await c.post('/_emulator/pullRequests', { repo, number: 4, baseBranch: 'develop' });
    await submit(4);
    expect(await c.pr(4)).toMatchObject({ state: 'not_ready', readiness: { doesBaseBranchMatch: false } });
    await submit(5);
    await c.post('/_emulator/pullRequests', { repo, number: 5, sha: 'c'.repeat(40) });
    expect(await c.pr(5)).toMatchObject({ state: 'cancelled', prSha: 'c'.repeat(40) });
  });

  it('scripts outcomes: a flaky first run fails, the retest passes; testMinutes sets run length', async () => {
    await c.post('/_emulator/pullRequests', { repo, number: 1, outcomes: ['FAIL', 'pass'], testMinutes: 5 });
    await submit(1);
    await c.advance(5);
    const failed = await c.pr(1);
    expect(failed.state).toBe('failed');
    await submit(1);
    await c.advance(5);
    expect((await c.pr(1)).state).toBe('merged');
    expect((await c.runs()).map((r) => r.status)).toEqual(['failed', 'succeeded']);
  });

  it('rejects bad input naming the field', async () => {
    const a = await c.post('/_emulator/pullRequests', { repo, number: 1, outcomes: ['explode'] });
    expect([a.status, a.text]).toEqual([400, 'outcomes.0: expected one of pass, fail, hang']);
    const b = await c.post('/_emulator/pullRequests', { repo, number: 1, testMinutes: 0 });
    expect([b.status, b.text]).toEqual([400, 'testMinutes: expected a number of minutes greater than 0']);
  });
});

describe('clock and test runs', () => {
  it('advance processes due events in time order and returns the new time', async () => {
    await c.post('/_emulator/pullRequests', { repo, number: 2, testMinutes: 25 });
    await submit(1);
    await submit(2);
    const a = await c.advance(15);
    expect(a.json()).toEqual({ now: new Date(T0 + 15 * 60_000).toISOString() });
    expect([(await c.pr(1)).state, (await c.pr(2)).state]).toEqual(['merged', 'testing']);
    expect((await c.get('/_emulator/clock')).json()).toMatchObject({
      clock: 'manual',
      now: new Date(T0 + 15 * 60_000).toISOString(),
    });
  });

  it('refuses negative minutes', async () => {
    const a = await c.advance(-1);
    expect([a.status, a.text]).toEqual([400, 'minutes: expected a number of minutes, 0 or more']);
  });

  it('lists runs with their groups, bases and status, filtered by queue', async () => {
    await c.post('createQueue', { repo, targetBranch: 'release' });
    await submit(1);
    await submit(2);
    await c.post('submitPullRequest', { repo, targetBranch: 'release', pr: { number: 9 } });
    const all = await c.runs();
    expect(all).toHaveLength(3);
    const main = (await c.get('/_emulator/testRuns?host=github.com&owner=acme&name=app&branch=main')).json().testRuns;
    expect(
      main.map((r: any) => ({ pr: r.prNumbers, base: r.basePrNumbers, status: r.status, bis: r.isBisection })),
    ).toEqual([
      { pr: [1], base: [], status: 'in_progress', bis: false },
      { pr: [2], base: [1], status: 'in_progress', bis: false },
    ]);
    expect(main[0]).toMatchObject({ createdAt: new Date(T0).toISOString(), completedAt: null });
  });

  it('pages the runs: at most 1,000 an answer, with the total and the offset', async () => {
    for (const n of [1, 2, 3]) await submit(n);
    const page = (q: string) => c.get(`/_emulator/testRuns?${q}`);
    const first = (await page('take=2')).json();
    expect([first.testRuns.map((r: any) => r.prNumbers), first.total, first.offset]).toEqual([[[1], [2]], 3, 0]);
    const rest = (await page('take=2&offset=2')).json();
    expect([rest.testRuns.map((r: any) => r.prNumbers), rest.total, rest.offset]).toEqual([[[3]], 3, 2]);
    expect((await page('offset=9')).json().testRuns).toEqual([]);
    const tooMany = await page('take=1001');
    expect([tooMany.status, tooMany.text]).toEqual([400, 'take: expected integer 1..1000']);
  });

  it('completes a run now; unknown ids are 404, finished ones 400', async () => {
    await submit(1);
    await submit(2);
    const [first, second] = await c.runs();
    const done = await c.post(`/_emulator/testRuns/${second!.id}/complete`, { result: 'failed' });
    expect(done.status).toBe(200);
    expect(done.json()).toMatchObject({ id: second!.id, status: 'failed', completedAt: new Date(T0).toISOString() });
    expect((await c.pr(2)).state).toBe('pending_failure');
    await c.post(`/_emulator/testRuns/${first!.id}/complete`, { result: 'passed' });
    expect([(await c.pr(1)).state, (await c.pr(2)).state]).toEqual(['merged', 'failed']);
    const again = await c.post(`/_emulator/testRuns/${first!.id}/complete`, { result: 'passed' });
    expect([again.status, again.text]).toEqual([400, `test run ${first!.id} already finished (succeeded)`]);
    const unknown = await c.post('/_emulator/testRuns/nope/complete', { result: 'passed' });
    expect([unknown.status, unknown.text]).toEqual([404, 'test run nope not found']);
    const bad = await c.post(`/_emulator/testRuns/${first!.id}/complete`, { result: 'maybe' });
    expect([bad.status, bad.text]).toEqual([400, 'result: expected one of passed, failed']);
  });

  it('reset empties everything', async () => {
    await submit(1);
    expect((await c.post('/_emulator/reset', {})).text).toBe('OK');
    expect((await c.post('getQueue', queue)).status).toBe(404);
    expect(await c.runs()).toEqual([]);
  });

  it('is also reachable under /v1 and needs the token', async () => {
    expect((await c.get('/v1/_emulator/testRuns')).status).toBe(200);
    const anon = await fetch(`${c.origin}/_emulator/reset`, { method: 'POST' });
    expect(anon.status).toBe(401);
    expect((await c.post('getQueue', queue)).status).toBe(200);
  });
});

describe('real clock', () => {
  it('refuses manual advancing and runs the queue on wall time × speed', async () => {
    const real = await startTestEmulator({ clock: 'real', speed: 6000 }); // 10 engine minutes = 100 ms
    try {
      const rc = real.client;
      const a = await rc.advance(1);
      expect(a.status).toBe(400);
      expect(a.text).toContain('--clock manual');
      await rc.post('createQueue', queue);
      await rc.post('submitPullRequest', { ...queue, pr: { number: 1 } });
      expect((await rc.pr(1)).state).toBe('testing');
      // No request needed: the timer set for the run's due time merges it.
      const deadline = Date.now() + 5_000;
      while (
        real.emu.engine.state.queues[Object.keys(real.emu.engine.state.queues)[0]!]?.entries['1']?.state !== 'merged'
      ) {
        if (Date.now() > deadline) throw new Error('run did not complete on the real clock');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await rc.pr(1)).state).toBe('merged');
    } finally {
      await real.emu.close();
    }
  });
});
