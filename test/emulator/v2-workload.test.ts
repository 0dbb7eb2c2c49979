/**
 * A workload over the v2 API (with v1 submits and cancels mixed in) on the manual clock: batching,
 * bisection, failure, merges, pause/drain/resume, a switch to graph mode with impacted targets,
 * reprioritize, restart and dequeue. After each step every v2 read that applies is decoded with the
 * strict schemas and compared with v1's view of the same moment through the mapping table in
 * v2-mapping.ts; v2 views of one thing (by id, in a list, by coordinates) must be equal. It prints
 * the requests made, answers decoded and mismatches found.
 */
import { afterEach, expect, it } from 'vitest';

import { pullRequestId } from '../../src/emulator/http/v2/ids.js';
import { iso } from '../../src/emulator/http/wire.js';
import { queue, repo as repoRef, T0 } from './http-helpers.js';
import { Probe, READS, WRITES } from './v2-agreement.js';
import { after, NEXT, type TimelineItem } from './v2-mapping.js';
import {
  EntryHistory,
  list,
  MergeGraph,
  MergeQueue,
  MergeQueueOrder,
  NoBody,
  PullRequest,
  Repository,
  StateChange,
  start,
  stop,
  TestingResult,
  Transition,
  VerificationRun,
} from './v2-helpers.js';

afterEach(stop);

type Pr = ReturnType<typeof PullRequest.parse>;
type Ids = { repo: ReturnType<typeof Repository.parse>; q: ReturnType<typeof MergeQueue.parse> };

/** What a list read carries of a PR: the same as a read by id, less `hasImpactedTargets`. */
function listed(p: Pr): Pr {
  if (!p.queueEntry) return p;
  const { hasImpactedTargets: _, ...readiness } = p.queueEntry.readiness;
  return { ...p, queueEntry: { ...p.queueEntry, readiness } };
}

const stateOf = ({ id, state, mode, pullRequestsUrl }: Ids['q']) => ({ id, state, mode, pullRequestsUrl });

const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

/** Every page of a v1 list, by `cursor` (listPullRequests) or `offset` (testing results). */
async function v1All(p: Probe, endpoint: string, key: string, body: object, paging: 'cursor' | 'offset') {
  const rows: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const more = paging === 'cursor' ? (cursor ? { cursor } : {}) : { offset: rows.length };
    const a = await p.v1(endpoint, { ...queue, ...body, take: 100, ...more });
    rows.push(...a[key]);
    cursor = a.nextCursor;
    if (paging === 'cursor' ? !cursor : a[key].length === 0 || rows.length >= a.totalItems) return rows;
  }
}

/** What the observed states covered (queue states and modes, entry states, outcomes, bisection). */
const seen = new Set<string>();

async function observe(p: Probe, { repo, q }: Ids, step: string): Promise<void> {
  p.step = step;
  const base = `/v2/merge-queues/${q.id}`;
  p.same('repository by id', await p.get(Repository, `/v2/repositories/${repo.id}`), repo);
  const byUrl = await p.all(list, Repository, '/v2/repositories?providerUrl=https://github.com/acme/app');
  p.same('repository by URL', byUrl, [repo]);

  const v1q = await p.v1('getQueue', queue);
  const v2q = await p.get(MergeQueue, base);
  p.agree('queue', 'queue', v1q, v2q);
  seen.add(`queue ${v2q.state} ${v2q.mode}`);
  const queues = await p.all(list, MergeQueue, `/v2/merge-queues?repositoryId=${repo.id}&targetBranch=main`);
  p.same('queue in /v2/merge-queues', queues, [v2q]);

  // getQueue's enqueuedPullRequests is /order's batches + pending, and /graph's nodes, in order.
  const enqueued: any[] = v1q.enqueuedPullRequests;
  const order = await p.get(MergeQueueOrder, `${base}/order`);
  p.agree('orderHeader', 'order', v1q, order);
  const ordered = [
    ...order.batches.flatMap((b) => b.pullRequests.map((x) => ({ ...x, state: b.state }))),
    ...order.pending.map((x) => ({ ...x.pullRequest, state: 'pending' })),
  ];
  const numbers = (xs: Array<{ number: number }>) => xs.map((x) => x.number);
  p.same(
    'order: numbers in v1 order',
    numbers(ordered),
    enqueued.map((e) => e.prNumber),
  );
  p.agreeAll(
    'ordered',
    'order',
    enqueued,
    ordered,
    (e) => `#${e.prNumber}`,
    (x) => `#${x.number}`,
  );
  const graphMode = v2q.mode === 'graph';
  const graph = await p.get(MergeGraph, `${base}/graph${graphMode ? '?includeImpactedTargets=true' : ''}`);
  p.same(
    'graph: nodes in v1 order',
    graph.nodes.map((n) => n.pullRequestNumber),
    enqueued.map((e) => e.prNumber),
  );
  p.agreeAll(
    'node',
    'graph node',
    enqueued,
    graph.nodes,
    (e) => `#${e.prNumber}`,
    (n) => `#${n.pullRequestNumber}`,
  );

  const v1Listed = await v1All(p, 'listPullRequests', 'pullRequests', {}, 'cursor');
  const v2Listed = await p.all(list, PullRequest, `${base}/pull-requests`);
  p.agreeAll(
    'listed',
    'listed PR',
    v1Listed,
    v2Listed,
    (e) => `#${e.prNumber}`,
    (x) => `#${x.number}`,
  );
  const waiting = v1Listed.filter((e) => e.state === 'not_ready').map((e) => e.prNumber);
  p.same('order: awaitingAdmission = v1 not_ready', numbers(order.awaitingAdmission).sort(), waiting.sort());
  p.same('order: awaitingAdmissionTotal', order.awaitingAdmissionTotal, waiting.length);

  const runs = await p.all(list, VerificationRun, `${base}/verification-runs`);
  const emulated = (await p.control('/_emulator/testRuns')).testRuns as Array<{ id: string }>;
  p.same('verification runs = emulator runs', runs.map((r) => r.id).sort(), emulated.map((r) => r.id).sort());
  for (const run of runs) {
    if (run.isBisection) seen.add('bisection run');
    const byId = await p.get(VerificationRun, `/v2/merge-queue-verification-runs/${run.id}`);
    const { impactedTargets: _, ...listedRun } = byId;
    p.same(`run ${run.id} listed = by id, less impactedTargets`, run, listedRun);
    if (byId.impactedTargets) seen.add('run impactedTargets');
    p.agree('run', `run ${run.id}`, await p.v1('getMergeQueueTestingDetails', { ...queue, testRunId: run.id }), byId);
  }

  const ids: string[] = [];
  const byNumber = new Map(v2Listed.map((x) => [x.number, x]));
  const all = v1Listed.map((e) => e.prNumber).sort((a, b) => a - b);
  const coordinates = `/v2/pull-requests?repositoryId=${repo.id}&number=${all.join(',')}`;
  const lookup = all.length ? await p.all(list, PullRequest, coordinates) : [];
  p.same('coordinates lookup: numbers', numbers(lookup), all);
  const timelines = new Map<number, TimelineItem[]>();
  const histories: Array<{ pullRequestId: string; transitions: unknown[] }> = [];
  for (const n of all) {
    const v1 = await p.v1('getSubmittedPullRequest', { ...queue, pr: { number: n }, includeTimeline: true });
    timelines.set(n, v1.timeline);
    const id = (byNumber.get(n) as Pr).id;
    ids.push(id);
    const v2 = await p.get(PullRequest, `/v2/pull-requests/${id}`);
    p.agree('pullRequest', `PR #${n}`, v1, v2);
    p.same(`PR #${n}: queue list item = list read of GET`, byNumber.get(n), listed(v2));
    const several = all.length > 1;
    p.same(
      `PR #${n}: coordinates item = GET`,
      lookup.find((x) => x.number === n),
      several ? listed(v2) : v2,
    );
    const history = await p.all(list, Transition, `/v2/pull-requests/${id}/queue-entry-history?direction=newest`);
    histories.push({ pullRequestId: id, transitions: history });
    for (const t of history) seen.add(`entry ${t.state}`);
    p.same(`PR #${n} timeline: transitions`, history.length, v1.timeline.length);
    for (const [i, t] of (v1.timeline as unknown[]).entries())
      p.agree('transition', `PR #${n} timeline[${i}]`, t, history[i]);
    const prRuns = await p.all(list, VerificationRun, `/v2/pull-requests/${id}/verification-runs`);
    const tested = runs.filter((r) => r.testedPullRequests.some((t) => t.number === n));
    p.same(`PR #${n} runs = the queue's runs that tested it`, prRuns, tested);
  }
  if (ids.length) {
    const batch = await p.all(list, EntryHistory, `/v2/queue-entry-history?pullRequestIds=${ids}&direction=newest`);
    p.same('batch history = each PR history', batch, histories);
  }

  const since = iso(T0);
  const v1Results = (await v1All(p, 'listMergeQueueTestingResults', 'testingResults', { since }, 'offset')).map(
    (r) => ({ ...r, [NEXT]: after(timelines.get(r.prNumber) ?? [], r.testRunId) }),
  );
  const v2Results = await p.all(list, TestingResult, `${base}/testing-results?since=${since}`);
  for (const r of v2Results) seen.add(`outcome ${r.outcome}`);
  const key1 = (r: any) => `${r.testRunId} #${r.prNumber}`;
  p.agreeAll('testingResult', 'testing result', v1Results, v2Results, key1, (r) => {
    return `${r.verificationRunId} #${r.pullRequestNumber}`;
  });

  const v1Metrics = await p.v1Text('/v1/getMergeQueueMetrics');
  p.same('metrics = v1 metrics', await p.metrics('/v2/merge-queues/metrics'), v1Metrics);
  const mine = samples(v1Metrics).filter((l) => l.includes('branch="main"'));
  p.same('queue metrics = v1 samples of main', samples(await p.metrics(`${base}/metrics`)), mine);
}

// About 1,300 requests: a few seconds, more on a loaded machine.
it('keeps v1 and v2 in agreement, field by field, through a whole workload', { timeout: 60_000 }, async () => {
  const startedAt = Date.now();
  const p = new Probe(await start());
  const submit = (body: object) => p.v2(PullRequest, 'POST', `${base}/pull-requests`, body, 201);
  const v1Submit = (number: number) => p.v1('submitPullRequest', { ...queue, pr: { number } });
  const advance = (minutes: number) => p.control('/_emulator/clock/advance', { minutes });
  const breaks = (number: number) => p.control('/_emulator/pullRequests', { repo: repoRef, number, breaksBuild: true });

  p.step = 'set-up';
  const repo = (await p.all(list, Repository, '/v2/repositories?providerUrl=https://github.com/acme/app'))[0];
  const q = await p.v2(MergeQueue, 'POST', '/v2/merge-queues', { repositoryId: repo?.id, targetBranch: 'main' }, 201);
  const ids = { repo: repo as Ids['repo'], q };
  const base = `/v2/merge-queues/${q.id}`;
  await observe(p, ids, 'created');
  const config = {
    concurrency: 2,
    allowBatching: true,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 5,
    pendingFailureDepth: 1,
  };
  const patched = await p.v2(MergeQueue, 'PATCH', `${base}/config`, config);
  p.same('PATCH config answer = GET', patched, await p.get(MergeQueue, base));
  await breaks(3);

  // Batching, then the failing batch 1+2+3 held (pendingFailure) and bisected: 3 fails, the others merge.
  await submit({ number: 1 });
  await submit({ number: 2, priorityName: 'high' });
  await v1Submit(3);
  await observe(p, ids, 'batch filling');
  await submit({ number: 4, allowBatching: false });
  await v1Submit(5);
  await observe(p, ids, 'batch testing');
  await advance(15);
  await observe(p, ids, 'batch failed');
  await advance(10);
  await observe(p, ids, 'bisection done');
  await advance(30);
  await observe(p, ids, 'settled');

  // Pause, drain, resume; reprioritize, PATCH queue-entry, restart, dequeue (v2) and cancel (v1).
  const state = async (action: string, expected: string) => {
    const change = await p.v2(StateChange, 'POST', `${base}/${action}`);
    p.same(`${action} answer = GET`, change, stateOf(await p.get(MergeQueue, base)));
    p.same(`${action} answer state`, change.state, expected);
    await observe(p, ids, action);
  };
  await state('pause', 'paused');
  for (const number of [6, 7, 8, 9]) await submit({ number });
  await observe(p, ids, 'submitted while paused');
  await state('drain', 'draining');
  await state('resume', 'running');
  const prIds = new Map<number, string>();
  for (const x of await p.all(list, PullRequest, `/v2/pull-requests?repositoryId=${ids.repo.id}&number=6,8,9`))
    prIds.set(x.number, x.id);
  const pr = (n: number) => `/v2/pull-requests/${prIds.get(n)}`;
  await p.v2(PullRequest, 'POST', `${pr(9)}/reprioritize`, { priorityValue: 0 });
  await observe(p, ids, 'reprioritized #9 to 0');
  await p.v2(PullRequest, 'PATCH', `${pr(8)}/queue-entry`, { priorityName: 'low', allowBatching: false });
  await observe(p, ids, 'PATCH queue-entry #8');
  await advance(1);
  await p.v2(PullRequest, 'POST', `${pr(9)}/restart-tests`);
  await observe(p, ids, 'restarted #9');
  await p.v2(PullRequest, 'POST', `${pr(6)}/dequeue`);
  await p.v1('cancelPullRequest', { ...queue, pr: { number: 7 } });
  await observe(p, ids, 'dequeued #6, cancelled #7');

  // The switch to graph mode waits for the PRs in flight; then impacted targets, one PR waiting for
  // them, one failing.
  const switched = await p.v2(StateChange, 'POST', `${base}/switch-modes`, { mode: 'graph' });
  p.same('switch-modes answer = GET', switched, stateOf(await p.get(MergeQueue, base)));
  await observe(p, ids, 'switching to graph');
  await advance(30);
  await observe(p, ids, 'switched to graph');
  await breaks(12);
  const targets: Record<number, object> = {
    10: { impactedTargets: ['//a'] },
    11: { impactedTargets: ['//b'] },
    12: { impactedTargets: ['//a', '//b'] },
    13: { impactsAllTargets: true },
  };
  for (const number of [10, 11, 12, 13, 14]) {
    if (number === 13) await v1Submit(number);
    else await submit({ number });
    if (!targets[number]) continue;
    const { sha } = await p.get(PullRequest, `/v2/pull-requests/${pullRequestId(repoRef, number)}`);
    const put = { repositoryId: ids.repo.id, targetBranch: 'main', number, sha, ...targets[number] };
    await p.v2(NoBody, 'PUT', '/v2/impacted-targets', put, 202);
  }
  await observe(p, ids, 'graph submitted, #14 waits for targets');
  await advance(10);
  await observe(p, ids, 'graph tested');
  await advance(30);
  await observe(p, ids, 'graph settled');

  // A queue is deleted once empty.
  p.step = 'delete';
  const other = { repositoryId: ids.repo.id, targetBranch: 'release' };
  const release = await p.v2(MergeQueue, 'POST', '/v2/merge-queues', other, 201);
  await p.v2(NoBody, 'DELETE', `/v2/merge-queues/${release.id}`, undefined, 204);

  const missed = READS.filter((r) => !p.hit.has(r));
  const unwritten = WRITES.filter((w) => !p.hit.has(w));
  const sent = p.requests.v1 + p.requests.v2 + p.requests.control;
  console.log(
    `v2 workload: ${sent} requests (v2 ${p.requests.v2}, v1 ${p.requests.v1}, control ${p.requests.control}), ` +
      `${p.decoded} v2 answers decoded, ${p.compared} comparisons, ${p.mismatches} mismatches ` +
      `(${p.problems.length} problems in all), ` +
      `${READS.length - missed.length}/${READS.length} v2 read routes, ` +
      `${WRITES.length - unwritten.length}/${WRITES.length} write routes, ${Date.now() - startedAt} ms`,
  );
  expect(p.problems).toEqual([]);
  expect(missed).toEqual([]);
  expect(unwritten).toEqual([]);
  const states = ['notReady', 'pending', 'testing', 'testsPassed', 'pendingFailure', 'merged', 'failed', 'cancelled'];
  const queues = ['running queue', 'paused queue', 'draining queue', 'switchingModes queue', 'running graph'];
  const outcomes = ['passed', 'failed', 'interrupted', 'cancelled'].map((o) => `outcome ${o}`);
  const covered = [...states.map((s) => `entry ${s}`), ...queues.map((q) => `queue ${q}`), ...outcomes];
  covered.push('bisection run', 'run impactedTargets');
  expect(covered.filter((x) => !seen.has(x))).toEqual([]);
});
