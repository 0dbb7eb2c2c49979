/**
 * The history side of the v2 wire against the in-process emulator: for the same state, the v1
 * client's answer and the v2 client's answer are equal (modulo the fields v2 cannot give, named
 * below), and each costs the requests the budget allows (warm id cache: v1's, plus one in parallel
 * for a timeline; cold: two more).
 */
import { beforeEach, describe, expect, it } from 'vitest';

import { MergeQueueClient } from '../../src/api/client.js';
import { HttpClient } from '../../src/api/http.js';
import { STATE_KEYS } from '../../src/api/history.js';
import { V2Client } from '../../src/api/v2/client.js';
import { memoryIdStore } from '../../src/api/v2/ids.js';
import { PERMISSIONS } from '../../src/emulator/http/v2/auth.js';
import { fetchWindow } from '../../src/stats/fetch.js';
import { T0, queue, repo, useEmulator } from '../emulator/http-helpers.js';

const KEY = 'trunk_v2_history0123456789';
const { emu, client: c } = useEmulator({
  apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }],
  rateLimits: false,
});
const MIN = 60_000;

/** v1 timeline fields v2 does not carry: the run's details (behind its own endpoint), v1's per-state objects. */
const TIMELINE_ONLY_V1 = ['testRun', ...STATE_KEYS];
/** v2 keeps these on the run; a timeout is a failed outcome on v2 (v1: timed_out). */
const TESTING_ONLY_V1 = ['testBranch', 'failureReason'];

let v1: MergeQueueClient;
let v2: V2Client;
let ids: ReturnType<typeof memoryIdStore>;
const sent = { v1: [] as string[], v2: [] as string[] };

const http = (baseUrl: string, token: string, api: 'v1' | 'v2', log: string[]) =>
  new HttpClient({
    baseUrl,
    token,
    api,
    userAgent: 'mq-test',
    timeoutMs: 10_000,
    maxRetries: 0,
    debug: (line) => {
      const m = /^> (GET|POST|PUT|PATCH|DELETE) (\S+)/.exec(line);
      if (m) log.push(`${m[1]} ${new URL(m[2] as string).pathname}`);
    },
  });

beforeEach(async () => {
  sent.v1 = [];
  sent.v2 = [];
  ids = memoryIdStore();
  v1 = new MergeQueueClient(http(emu.url, emu.token, 'v1', sent.v1));
  v2 = new V2Client(http(emu.url.replace(/\/v1$/, ''), KEY, 'v2', sent.v2), ids);
  await c.post('createQueue', queue);
});

/** Requests each client sends for `op` (run once on each). */
async function both<T>(op: (api: MergeQueueClient | V2Client) => Promise<T>) {
  sent.v1.length = 0;
  sent.v2.length = 0;
  const a = await op(v1);
  const b = await op(v2);
  return { v1: a, v2: b, requests: { v1: [...sent.v1], v2: [...sent.v2] } };
}

const omit = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
/**
 * What Trunk's v2 sends and the emulator's v2 does not yet: a pendingFailure's reason
 * (`pendingFailure.eventualFailureReason`) and the failing checks (`failed.failureCausingChecks`);
 * their mapping is checked on a Trunk-shaped history below.
 */
const NOT_FROM_EMULATOR = (t: Record<string, unknown>) => [
  'failureCausingStatuses',
  ...(t.state === 'pending_failure' ? ['reason'] : []),
];
const timelineOf = (r: { timeline?: unknown }) =>
  ((r.timeline ?? []) as Array<Record<string, unknown>>).map((t) =>
    omit(t, [...TIMELINE_ONLY_V1, ...NOT_FROM_EMULATOR(t)]),
  );
const record = (r: Record<string, unknown>) => omit(r, ['timeline']);
/** A lookup of several numbers is a list read: Trunk's v2 leaves `readiness.hasImpactedTargets` out of those. */
const listRecord = (r: Record<string, unknown>) => {
  const { hasImpactedTargets: _h, ...readiness } = (r.readiness ?? {}) as Record<string, unknown>;
  return { ...record(r), readiness };
};

const fake = (number: number, extra: Record<string, unknown>) =>
  c.post('/_emulator/pullRequests', { repo, number, ...extra });
const submit = (number: number, target = queue) => c.post('submitPullRequest', { ...target, pr: { number } });

/** #5 cancelled then merged; a batch 1..4 with #4 breaking the build (bisected, #4 fails); #6 cancelled. */
async function workload(): Promise<void> {
  await c.twoTrips(5);
  await c.advance(15);
  await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 4, bisectionConcurrency: 2 });
  await fake(4, { breaksBuild: true });
  for (const n of [1, 2, 3, 4]) await submit(n);
  await c.advance(60);
  await submit(6);
  await c.post('cancelPullRequest', { ...queue, pr: { number: 6 } });
  await c.advance(1);
}

describe('getSubmittedPullRequestWithTimeline on v2', () => {
  it('answers v1 record and timeline (newest first) with the history read alongside the record', async () => {
    await workload();
    for (const n of [5, 4, 1, 6]) {
      ids.entries.clear();
      const cold = await both((api) => api.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: n } }));
      expect(record(cold.v2)).toEqual(record(cold.v1));
      expect(timelineOf(cold.v2)).toEqual(timelineOf(cold.v1));
      expect(cold.v2.timeline?.length).toBeGreaterThan(2);
      // Cold: the repository, then the queue and the PR (resolved with its record), then its history.
      expect(cold.requests.v1).toHaveLength(1);
      expect(cold.requests.v2).toHaveLength(cold.requests.v1.length + 3);
      const warm = await both((api) => api.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: n } }));
      expect(timelineOf(warm.v2)).toEqual(timelineOf(warm.v1));
      expect(warm.requests.v2.sort()).toEqual([
        expect.stringMatching(/^GET \/v2\/pull-requests\/[^/]+$/),
        expect.stringMatching(/^GET \/v2\/pull-requests\/[^/]+\/queue-entry-history$/),
      ]);
    }
  });

  it('resolves a kept PR id the service no longer knows again, once', async () => {
    await workload();
    const first = await v2.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 5 } });
    const key = [...ids.entries.keys()].find((k) => k.startsWith('pr ') && k.endsWith(' 5')) as string;
    const id = ids.entries.get(key);
    ids.entries.set(key, '00000000-0000-5000-8000-000000000000');
    sent.v2.length = 0;
    expect(await v2.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 5 } })).toEqual(first);
    expect(ids.entries.get(key)).toBe(id);
    // The stale id's two reads (404), the lookup by number, then the record and history again.
    expect(sent.v2).toHaveLength(5);
  });

  it('looks a kept queue id up again when no PR asked is in it but some are in another queue', async () => {
    await workload();
    const first = await v2.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 5 } });
    const key = [...ids.entries.keys()].find((k) => k.startsWith('queue ') && k.endsWith(' main')) as string;
    const id = ids.entries.get(key);
    ids.entries.set(key, 'gone0000');
    expect(await v2.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: 5 } })).toEqual(first);
    expect(ids.entries.get(key)).toBe(id);
    ids.entries.set(key, 'gone0000');
    const many = await v2.getSubmittedPullRequests({ ...queue, prs: [{ number: 5 }, { number: 1 }] });
    expect(many.notFound).toEqual([]);
    expect(ids.entries.get(key)).toBe(id);
  });

  it('says not found (exit 3) for a PR never submitted and for one in another queue, as v1 does', async () => {
    await c.post('createQueue', { ...queue, targetBranch: 'release' });
    await submit(8, { ...queue, targetBranch: 'release' });
    for (const n of [8, 77]) {
      const a = await v1.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: n } }).catch((e: unknown) => e);
      const b = await v2.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: n } }).catch((e: unknown) => e);
      expect(a).toMatchObject({ exitCode: 3, status: 404 });
      expect(b).toMatchObject({ exitCode: 3, status: 404 });
    }
  });
});

describe('getSubmittedPullRequests on v2', () => {
  it('answers v1 records, timelines and notFound (unknown, or in another queue) in two parallel reads', async () => {
    await workload();
    await c.post('createQueue', { ...queue, targetBranch: 'release' });
    await submit(8, { ...queue, targetBranch: 'release' });
    const prs = [3, 99, 1, 5, 8, 4, 6, 2].map((number) => ({ number }));
    for (const includeTimeline of [true, false]) {
      ids.entries.clear();
      const cold = await both((api) => api.getSubmittedPullRequests({ ...queue, prs, includeTimeline }));
      const warm = await both((api) => api.getSubmittedPullRequests({ ...queue, prs, includeTimeline }));
      for (const r of [cold, warm]) {
        expect(r.v2.notFound).toEqual(r.v1.notFound);
        expect(r.v2.pullRequests?.map(listRecord)).toEqual(r.v1.pullRequests?.map(listRecord));
        expect(r.v2.pullRequests?.map(timelineOf)).toEqual(r.v1.pullRequests?.map(timelineOf));
        expect(r.requests.v1).toHaveLength(1);
      }
      expect(cold.v1.notFound).toEqual([{ number: 99 }, { number: 8 }]);
      // Cold: repository, then queue and PRs, then the histories; warm: PRs and histories at once.
      expect(cold.requests.v2).toHaveLength(includeTimeline ? 4 : 3);
      expect(warm.requests.v2).toEqual(
        includeTimeline ? ['GET /v2/pull-requests', 'GET /v2/queue-entry-history'] : ['GET /v2/pull-requests'],
      );
    }
  });
});

describe('listMergeQueueTestingResults on v2', () => {
  it("cuts v1's oldest-first offset pages from one walk of the window, in as many requests as v1's pages", async () => {
    await workload();
    const window = { since: new Date(T0).toISOString(), until: new Date(T0 + 200 * MIN).toISOString() };
    await v2.getSubmittedPullRequest({ ...queue, pr: { number: 1 } }); // ids kept
    const pages = await both(async (api) => {
      const out = [];
      for (let offset = 0; offset < 12; offset += 3) {
        out.push(await api.listMergeQueueTestingResults({ ...queue, ...window, offset, take: 3 }));
      }
      return out;
    });
    expect(pages.v1[0]?.totalItems).toBeGreaterThan(6);
    expect(pages.v2.map((p) => p.totalItems)).toEqual(pages.v1.map((p) => p.totalItems));
    const rows = (ps: typeof pages.v1) =>
      ps.map((p) => (p.testingResults ?? []).map((r) => omit(r as Record<string, unknown>, TESTING_ONLY_V1)));
    expect(rows(pages.v2)).toEqual(rows(pages.v1));
    expect(pages.v1.flatMap((p) => p.testingResults ?? []).some((r) => r.bisection === 'in_bisection')).toBe(true);
    // v1 asked four times; v2 walked the (small) window once.
    expect(pages.requests.v1).toHaveLength(4);
    expect(pages.requests.v2).toEqual([expect.stringMatching(/^GET \/v2\/merge-queues\/[^/]+\/testing-results$/)]);
  });
});

describe('listConcludedPullRequests on v2', () => {
  it("answers v1's entries (v2 lists newest-enqueued first) with concludedAfter/concludedBefore", async () => {
    await workload();
    await v2.getSubmittedPullRequest({ ...queue, pr: { number: 1 } }); // ids kept
    const req = { since: new Date(T0).toISOString(), until: new Date(T0 + 200 * MIN).toISOString(), take: 50 };
    for (const state of ['merged', 'failed', 'cancelled'] as const) {
      const r = await both((api) => api.listConcludedPullRequests({ ...queue, ...req, state }));
      const byNumber = (p: typeof r.v1) => [...(p.pullRequests ?? [])].sort((a, b) => a.prNumber! - b.prNumber!);
      expect(byNumber(r.v2)).toEqual(byNumber(r.v1));
      expect(r.v1.pullRequests?.length).toBeGreaterThan(0);
      expect(r.requests.v2).toHaveLength(r.requests.v1.length);
    }
    expect(sent.v2.at(-1)).toMatch(/^GET \/v2\/merge-queues\/[^/]+\/pull-requests$/);
  });
});

describe('a window of history (mq queue stats, simulate --from-history) on v2', () => {
  it('reads the same PRs and attempts as v1, in the same number of requests', async () => {
    await workload();
    await v2.getSubmittedPullRequest({ ...queue, pr: { number: 1 } }); // ids kept
    const settings = { concurrency: 1, batch: true, batchingMinSize: 4 };
    const window = { since: T0, until: T0 + 200 * MIN };
    const r = await both((api) => fetchWindow(api, queue, window, undefined, settings));
    const sorted = <T>(xs: T[]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sorted(r.v2.prs)).toEqual(sorted(r.v1.prs));
    expect(sorted(r.v2.attempts)).toEqual(sorted(r.v1.attempts));
    expect(r.v1.attempts.length).toBeGreaterThan(6);
    expect(r.v2.requests).toBe(r.v1.requests);
    // v1's one timeline batch is two reads on v2: the PRs, then their histories.
    expect(r.requests.v2.filter((x) => !/pull-requests$|queue-entry-history$/.test(x))).toHaveLength(1);
    expect(r.requests.v2).toHaveLength(r.requests.v1.length + 1);
  });
});

describe('a window of more than one page on v2', () => {
  it("follows v2's cursors: as many requests as v1's offset pages, the same rows", async () => {
    await c.post('updateQueue', { ...queue, concurrency: 50 });
    for (let n = 1; n <= 130; n++) await submit(n);
    await c.advance(60);
    await v2.getSubmittedPullRequest({ ...queue, pr: { number: 1 } }); // ids kept
    const settings = { concurrency: 50, batch: false, batchingMinSize: null };
    const window = { since: T0, until: T0 + 120 * MIN };
    const r = await both((api) => fetchWindow(api, queue, window, undefined, settings));
    const sorted = <T>(xs: T[]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(r.v1.attempts).toHaveLength(130);
    expect(sorted(r.v2.attempts)).toEqual(sorted(r.v1.attempts));
    expect(sorted(r.v2.prs)).toEqual(sorted(r.v1.prs));
    const testing = (xs: string[]) => xs.filter((x) => /testing-results$|TestingResults$/i.test(x));
    expect(testing(r.requests.v1)).toHaveLength(2);
    expect(testing(r.requests.v2)).toHaveLength(2);
    // Each timeline batch of v1 (50 PRs) is two reads on v2: the PRs and their histories.
    const batches = r.requests.v1.filter((x) => x.endsWith('getSubmittedPullRequests')).length;
    expect(batches).toBe(3);
    expect(r.requests.v2).toHaveLength(r.requests.v1.length + batches);
  });
});

describe('bad requests on v2', () => {
  it('are refused as on v1 (exit 2, naming the field), with nothing sent', async () => {
    const prs = Array.from({ length: 51 }, (_, i) => ({ number: i + 1 }));
    const since = new Date(T0).toISOString();
    const until = new Date(T0 + 46 * 24 * 60 * MIN).toISOString();
    const r = await both((api) =>
      Promise.all(
        [
          api.getSubmittedPullRequests({ ...queue, prs }),
          api.listMergeQueueTestingResults({ ...queue, since, until }),
          api.listConcludedPullRequests({ ...queue, take: 101 }),
          api.getSubmittedPullRequestWithTimeline({ ...queue, pr: { number: -1 } }),
        ].map((p) => p.then(String, (e: { exitCode: number; message: string }) => `${e.exitCode} ${e.message}`)),
      ),
    );
    expect(r.v2).toEqual(r.v1);
    expect(r.v1.every((m) => m.startsWith('2 '))).toBe(true);
    expect(r.requests).toEqual({ v1: [], v2: [] });
  });
});
