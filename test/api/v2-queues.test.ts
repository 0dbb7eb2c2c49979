/**
 * The queue side of the v2 wire against the in-process emulator: for the same state, each
 * operation's answer on v2 equals v1's (modulo the fields named below), and the requests each
 * makes are counted on both.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MergeQueueClient } from '../../src/api/client.js';
import { HttpClient } from '../../src/api/http.js';
import type { Queue } from '../../src/api/schemas.js';
import { V2Client } from '../../src/api/v2/client.js';
import { memoryIdStore } from '../../src/api/v2/ids.js';
import { QUEUE_SETTINGS } from '../../src/domain/queue-settings.js';
import { ApiError } from '../../src/errors.js';
import { type Client, queue } from '../emulator/http-helpers.js';
import { KEY, start, stop } from '../emulator/v2-helpers.js';

/** Sent by Trunk's v1 (and mapped from v2's config), not by the emulator's v1. */
const V2_ONLY = ['notReadyTimeoutHours', 'testBranchConstructionMode'];
/** The emulator's v2 keeps no per-check records (`checks: []`); its v1 makes them up from the required statuses. */
const NO_CHECKS_ON_EMULATOR_V2 = ['checkSuites', 'statusChecks'];

const without = (o: object | undefined, keys: string[]) =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => !keys.includes(k)));

let c: Client;
let v1: MergeQueueClient;
let v2: V2Client;
const sent = { v1: [] as string[], v2: [] as string[] };

function http(api: 'v1' | 'v2') {
  return new HttpClient({
    baseUrl: api === 'v1' ? c.emu.url : c.origin,
    api,
    token: api === 'v1' ? c.emu.token : KEY,
    userAgent: 'mq-test',
    timeoutMs: 10_000,
    debug: (line) => {
      const m = /^> ([A-Z]+) (\S+)/.exec(line);
      if (m) sent[api].push(`${m[1]} ${new URL(m[2] as string).pathname}`);
    },
  });
}

/** Runs `f` and returns what it gave with the requests each client sent meanwhile. */
async function counted<T>(f: () => Promise<T>): Promise<{ value: T; v1: string[]; v2: string[] }> {
  sent.v1 = [];
  sent.v2 = [];
  const value = await f();
  return { value, v1: [...sent.v1], v2: [...sent.v2] };
}

beforeEach(async () => {
  c = await start();
  v1 = new MergeQueueClient(http('v1'));
  v2 = new V2Client(http('v2'), memoryIdStore());
  expect((await c.post('createQueue', { ...queue, concurrency: 2 })).status).toBe(200);
});
afterEach(stop);

/** Batched runs, a pending PR, a not-ready PR (absent from v1's list) and a failing batch. */
async function busyQueue(): Promise<void> {
  await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 10 });
  await c.post('/_emulator/pullRequests', { repo: queue.repo, number: 9, mergeable: false });
  for (const n of [1, 2, 3, 4, 5, 6, 9]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await c.post('submitPullRequest', { ...queue, pr: { number: 7 }, priority: 'high' });
}

describe('getQueue', () => {
  it('equals v1: settings, then the admitted PRs in queue order; three reads at once when the ids are known', async () => {
    await busyQueue();
    const cold = await counted(() => v2.getQueue(queue));
    const warm = await counted(() => Promise.all([v1.getQueue(queue), v2.getQueue(queue)]));
    const [one, two] = warm.value;
    expect((one.enqueuedPullRequests ?? []).length).toBeGreaterThan(4);
    expect(without(two, V2_ONLY)).toEqual(one);
    expect(cold.value).toEqual(two);
    expect(two.notReadyTimeoutHours).toBe(0);
    expect(two.testBranchConstructionMode).toBe('rename_temp_branch');
    expect(warm.v1).toEqual(['POST /v1/getQueue']);
    expect(warm.v2.map((l) => l.replace(/merge-queues\/\w+/, 'merge-queues/ID')).sort()).toEqual([
      'GET /v2/merge-queues/ID',
      'GET /v2/merge-queues/ID/order',
      'GET /v2/merge-queues/ID/pull-requests',
    ]);
    // A cold cache adds the repository and the queue lookups.
    expect(cold.v2.length).toBe(warm.v2.length + 2);
  });

  it('a kept queue id the service no longer knows is resolved again, once', async () => {
    const ids = memoryIdStore();
    const client = new V2Client(http('v2'), ids);
    await client.getQueueState(queue);
    const key = [...ids.entries.keys()].find((k) => k.startsWith('queue ')) ?? '';
    const id = ids.get(key);
    ids.set(key, 'stale000');
    const r = await counted(() => client.getQueue(queue));
    expect(without(r.value, V2_ONLY)).toEqual(await v1.getQueue(queue));
    expect(ids.get(key)).toBe(id);
    // Three reads answered 404, the lookup, then the three again.
    expect(r.v2.length).toBe(7);
  });

  it('an unknown branch is not found (exit 3) on both', async () => {
    const other = { ...queue, targetBranch: 'nope' };
    const [a, b] = await Promise.all([v1.getQueue(other).catch((e) => e), v2.getQueue(other).catch((e) => e)]);
    expect(a).toBeInstanceOf(ApiError);
    expect(b).toBeInstanceOf(ApiError);
    expect(b.exitCode).toBe(a.exitCode);
  });
});

it('getQueueState: the state alone, one read each', async () => {
  await v1.updateQueue({ ...queue, state: 'draining' });
  await v2.getQueueState(queue);
  const r = await counted(() => Promise.all([v1.getQueueState(queue), v2.getQueueState(queue)]));
  expect(r.value).toEqual(['draining', 'draining']);
  expect([r.v1.length, r.v2.length]).toEqual([1, 1]);
});

/** A valid value for a setting that differs from what a new queue has. */
function valueFor(s: (typeof QUEUE_SETTINGS)[number], current: unknown): unknown {
  if (s.kind === 'bool') return !current;
  if (s.kind === 'int' || s.kind === 'minutes') return (typeof current === 'number' ? current : 1) + 2;
  if (s.kind === 'list') return ['ci/build', 'ci/lint'];
  return (s.values as readonly string[]).find((v) => v !== current);
}

describe('updateQueue', () => {
  const release = { ...queue, targetBranch: 'release' };
  beforeEach(async () => {
    expect((await c.post('createQueue', { ...release, concurrency: 2 })).status).toBe(200);
    await v2.getQueue(release);
  });
  const same = (a: Queue | undefined, b: Queue | undefined) =>
    expect(without(b, [...V2_ONLY, 'branch'])).toEqual(without(a, ['branch']));

  it('every setting of the registry: one PATCH of the config, answered as v1 answers', async () => {
    const before = (await v1.getQueue(queue)) as Record<string, unknown>;
    const settings: Record<string, unknown> = {};
    for (const s of QUEUE_SETTINGS)
      if (s.field !== 'state' && s.field !== 'mode') settings[s.field] = valueFor(s, before[s.field]);
    const r = await counted(() =>
      Promise.all([v1.updateQueue({ ...queue, ...settings }), v2.updateQueue({ ...release, ...settings })]),
    );
    same(r.value[0], r.value[1]);
    expect(r.value[1]).toMatchObject(settings);
    expect(r.value[1]?.enqueuedPullRequests).toBeUndefined();
    expect(r.v1).toEqual(['POST /v1/updateQueue']);
    expect(r.v2).toEqual([expect.stringMatching(/^PATCH \/v2\/merge-queues\/\w+\/config$/)]);

    const cleared = await counted(() =>
      Promise.all([
        v1.updateQueue({ ...queue, deleteRequiredStatuses: true }),
        v2.updateQueue({ ...release, deleteRequiredStatuses: true }),
      ]),
    );
    same(cleared.value[0], cleared.value[1]);
    expect(cleared.value[1]?.requiredStatuses).toEqual([]);
  });

  it('state and mode: the action or the switch, with the settings read alongside', async () => {
    for (const change of [
      { state: 'paused' },
      { state: 'draining' },
      { state: 'running' },
      { mode: 'parallel' },
    ] as const) {
      const r = await counted(() =>
        Promise.all([v1.updateQueue({ ...queue, ...change }), v2.updateQueue({ ...release, ...change })]),
      );
      same(r.value[0], r.value[1]);
      expect(r.value[1]).toMatchObject(change);
      expect(r.v1.length).toBe(1);
      const actions: Record<string, string> = { paused: 'pause', draining: 'drain', running: 'resume' };
      const action = 'state' in change && change.state ? actions[change.state] : 'switch-modes';
      expect(r.v2.sort()).toEqual([
        expect.stringMatching(/^GET \/v2\/merge-queues\/\w+$/),
        expect.stringMatching(new RegExp(`^POST /v2/merge-queues/\\w+/${action}$`)),
      ]);
    }
  });

  it('a mode switch with settings while PRs are tested: the settings go first (v2 refuses them during a switch)', async () => {
    await busyQueue();
    await v2.getQueueState(queue);
    const r = await counted(() => v2.updateQueue({ ...queue, mode: 'parallel', concurrency: 3 }));
    expect(r.value).toMatchObject({ state: 'switching_modes', concurrency: 3 });
    expect(r.v2.map((l) => l.replace(/merge-queues\/\w+/, 'merge-queues/ID'))).toEqual([
      'PATCH /v2/merge-queues/ID/config',
      'POST /v2/merge-queues/ID/switch-modes',
    ]);
    expect(await v1.getQueue(queue)).toMatchObject({ state: 'switching_modes', concurrency: 3 });
  });

  it('a dry run describes each request and sends none', async () => {
    const described: string[] = [];
    const dry = new V2Client(http('v2'), memoryIdStore(), { dryRun: (d) => described.push(`${d.method} ${d.url}`) });
    await dry.getQueueState(release);
    const r = await counted(() => dry.updateQueue({ ...release, state: 'paused', mode: 'parallel', concurrency: 3 }));
    expect(r.value).toBeUndefined();
    expect(r.v2).toEqual([]);
    expect(
      described.map((d) => d.replace(/merge-queues\/\w+/, 'merge-queues/ID').replace(/^(\w+) \S+\/v2/, '$1 /v2')),
    ).toEqual([
      'PATCH /v2/merge-queues/ID/config',
      'POST /v2/merge-queues/ID/pause',
      'POST /v2/merge-queues/ID/switch-modes',
    ]);
    expect(await v2.getQueueState(release)).toBe('running');
  });
});

describe('createQueue and deleteQueue', () => {
  it('create: one request with a known repository, and the new id is kept', async () => {
    const a = { ...queue, targetBranch: 'a' };
    const b = { ...queue, targetBranch: 'b' };
    await v2.getQueue(queue);
    const made = await counted(() =>
      Promise.all([
        v1.createQueue({ ...a, mode: 'parallel', concurrency: 3 }),
        v2.createQueue({ ...b, mode: 'parallel', concurrency: 3 }),
      ]),
    );
    expect([made.v1, made.v2]).toEqual([['POST /v1/createQueue'], ['POST /v2/merge-queues']]);
    const read = await counted(() => Promise.all([v1.getQueue(a), v2.getQueue(b)]));
    expect(without(read.value[1], [...V2_ONLY, 'branch'])).toEqual(without(read.value[0], ['branch']));
    expect(read.value[1]).toMatchObject({ mode: 'parallel', concurrency: 3, branch: 'b' });
    expect(read.v2.length).toBe(3);

    const again = await v2.createQueue(b).catch((e) => e);
    expect(again).toBeInstanceOf(ApiError);
    expect(again.status).toBe(409);

    const gone = await counted(() => Promise.all([v1.deleteQueue(a), v2.deleteQueue(b)]));
    expect([gone.v1, gone.v2.map((l) => l.replace(/\w+$/, 'ID'))]).toEqual([
      ['POST /v1/deleteQueue'],
      ['DELETE /v2/merge-queues/ID'],
    ]);
    const [x, y] = await Promise.all([v1.getQueue(a).catch((e) => e), v2.getQueue(b).catch((e) => e)]);
    expect(y.exitCode).toBe(x.exitCode);
  });

  it('delete: a queue with PRs in it is refused with the exit code of v1', async () => {
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const [x, y] = await Promise.all([v1.deleteQueue(queue).catch((e) => e), v2.deleteQueue(queue).catch((e) => e)]);
    expect(y).toBeInstanceOf(ApiError);
    expect(y.code).toBe('QUEUE_HAS_ACTIVE_ENTRIES');
    expect(y.exitCode).toBe(x.exitCode);
  });
});

it('metrics: the same exposition, for a repository or all, one request each with the id known', async () => {
  await busyQueue();
  await c.advance(3);
  const one = { repo: 'acme/app', repoHost: 'github.com' };
  await v2.getMergeQueueMetrics(one);
  const r = await counted(() =>
    Promise.all([
      v1.getMergeQueueMetrics(one),
      v2.getMergeQueueMetrics(one),
      v1.getMergeQueueMetrics({}),
      v2.getMergeQueueMetrics({}),
    ]),
  );
  expect(r.value[1]).toEqual(r.value[0]);
  expect(r.value[3]).toEqual(r.value[2]);
  expect(r.value[0].body).toContain('repo="acme/app"');
  expect(r.v2.sort()).toEqual(['GET /v2/merge-queues/metrics', 'GET /v2/merge-queues/metrics']);
  expect(r.v1.length).toBe(2);
});

it('listPullRequests: the same entries for a state, newest first on v2', async () => {
  await busyQueue();
  await v2.getQueue(queue);
  const r = await counted(() =>
    Promise.all([
      v1.listPullRequests({ ...queue, state: 'not_ready' }),
      v2.listPullRequests({ ...queue, state: 'not_ready' }),
      v1.listPullRequests({ ...queue, take: 3 }),
      v2.listPullRequests({ ...queue, take: 3 }),
    ]),
  );
  expect(r.value[1]).toEqual(r.value[0]);
  expect(r.value[1].pullRequests?.map((p) => p.prNumber)).toEqual([9]);
  const byNumber = (p: { pullRequests?: Array<{ prNumber?: number | null }> | null }) =>
    [...(p.pullRequests ?? [])].sort((x, y) => (x.prNumber ?? 0) - (y.prNumber ?? 0));
  expect(r.value[3].pullRequests?.map((p) => p.prNumber)).toEqual([7, 9, 6]);
  expect(r.value[3].nextCursor).toEqual(expect.any(String));
  const all = await v1.listPullRequests(queue);
  for (const e of byNumber(r.value[3])) expect(all.pullRequests).toContainEqual(e);
  expect([r.v1.length, r.v2.length]).toEqual([2, 2]);
});

describe('getMergeQueueTestingDetails', () => {
  it("equals v1's (the emulator's v2 has no checks), a bisection run's id taken with v1's suffix", async () => {
    await busyQueue();
    await c.advance(3);
    const runs = await c.runs();
    expect(runs.length).toBeGreaterThan(1);
    for (const run of runs) {
      const id = run.id;
      const r = await counted(() =>
        Promise.all([
          v1.getMergeQueueTestingDetails({ ...queue, testRunId: id }),
          v2.getMergeQueueTestingDetails({ ...queue, testRunId: id }),
        ]),
      );
      expect(without(r.value[1], NO_CHECKS_ON_EMULATOR_V2)).toEqual(without(r.value[0], NO_CHECKS_ON_EMULATOR_V2));
      expect([r.v1.length, r.v2.length]).toEqual([1, 1]);
    }
    const suffixed = await v2.getMergeQueueTestingDetails({ ...queue, testRunId: `${runs[0]?.id}-bisection` });
    expect(suffixed.testBranch).toContain(runs[0]?.id);
  });
});
