// The v1 history reads (trunk-wire §1.4, §1.15): PRs with timelines, and testing results over ≤ 45 days.
import { badRequest } from './errors.js';
import type { Core } from './lifecycle.js';
import { TERMINAL } from './lifecycle.js';
import type { Entry, QueueRecord, TestRun } from './types.js';
import { pullRequestView, runView, type PullRequestView, type TestingResultView } from './views.js';

export const MAX_BATCH_LOOKUP = 50;
export const MAX_WINDOW_DAYS = 45;
const DAY_MS = 86_400_000;

/** getSubmittedPullRequests: up to 50 PRs; the ones never submitted to this queue are `notFound`. */
export function lookupPullRequests(
  core: Core,
  q: QueueRecord,
  numbers: number[],
  includeTimeline: boolean,
): { pullRequests: PullRequestView[]; notFound: number[] } {
  if (numbers.length === 0) throw badRequest('prs: expected at least one pull request');
  if (numbers.length > MAX_BATCH_LOOKUP) {
    throw badRequest(`prs: at most ${MAX_BATCH_LOOKUP} pull requests per call (got ${numbers.length})`);
  }
  const pullRequests: PullRequestView[] = [];
  const notFound: number[] = [];
  const seen = new Set<number>();
  for (const n of numbers) {
    if (seen.has(n)) continue;
    seen.add(n);
    const e = q.entries[String(n)];
    if (e) pullRequests.push(pullRequestView(core, q, e, includeTimeline));
    else notFound.push(n);
  }
  return { pullRequests, notFound };
}

export interface TestingResultsQuery {
  /** Epoch ms; default: `until` minus 45 days. */
  since?: number;
  /** Epoch ms; default: now. */
  until?: number;
  offset?: number;
  take?: number;
}

/** How the PR's trip that included `runId` ended: the first conclusion after it joined that run. */
function tripConclusion(e: Entry, runId: string): TestingResultView['conclusion'] {
  const h = e.history;
  let i = h.findIndex((item) => item[3] === runId);
  if (i < 0) return null;
  for (; i < h.length; i++) {
    const state = (h[i] as Entry['history'][number])[1];
    if (TERMINAL.has(state)) return state as 'merged' | 'failed' | 'cancelled';
  }
  return null;
}

/** One row per PR of each run's group (base PRs were not under test), finished in the window, paged. */
export function testingResults(
  core: Core,
  q: QueueRecord,
  query: TestingResultsQuery,
): { results: TestingResultView[]; total: number } {
  const take = query.take ?? 50;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(take) || take < 1 || take > 100) throw badRequest('take: expected integer 1..100');
  if (!Number.isInteger(offset) || offset < 0) throw badRequest('offset: expected an integer, 0 or more');
  const until = query.until ?? core.state.now;
  const since = query.since ?? until - MAX_WINDOW_DAYS * DAY_MS;
  if (since > until) throw badRequest('since: must not be after until');
  if (until - since > MAX_WINDOW_DAYS * DAY_MS) {
    throw badRequest(`since, until: the window may span at most ${MAX_WINDOW_DAYS} days; ask for several windows`);
  }
  const { runs, starts, total } = finishedRuns(core, q, since, until);
  const results: TestingResultView[] = [];
  // The first run holding row `offset` (binary search over the rows each run starts at).
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((starts[mid] as number) + (runs[mid] as TestRun).group.length <= offset) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < runs.length && results.length < take; i++) {
    const r = runs[i] as TestRun;
    const view = runView(q, r);
    let index = starts[i] as number;
    for (const n of r.group) {
      if (index++ < offset) continue;
      if (results.length === take) break;
      const e = q.entries[String(n)];
      results.push({ run: view, prNumber: n, conclusion: e ? tripConclusion(e, r.id) : null });
    }
  }
  return { results, total };
}

interface FinishedRuns {
  key: string;
  runs: TestRun[];
  /** The row each run's first PR is at. */
  starts: number[];
  total: number;
}

// Runs finished in the window by finish time (stable), cached per queue until the fingerprint changes.
const finishedCache = new WeakMap<QueueRecord, FinishedRuns>();

function finishedRuns(core: Core, q: QueueRecord, since: number, until: number): FinishedRuns {
  let done = 0;
  let sum = 0;
  for (const id of q.runIds) {
    const c = core.state.runs[id]?.completedAt;
    if (c !== null && c !== undefined) {
      done++;
      sum = (sum + (c % 1_000_000_007)) % 1_000_000_007;
    }
  }
  const key = `${since}:${until}:${q.runIds.length}:${done}:${sum}`;
  const cached = finishedCache.get(q);
  if (cached?.key === key) return cached;
  const runs: TestRun[] = [];
  for (const id of q.runIds) {
    const r = core.state.runs[id];
    if (r && r.completedAt !== null && r.completedAt >= since && r.completedAt <= until) runs.push(r);
  }
  runs.sort((a, b) => (a.completedAt as number) - (b.completedAt as number));
  const starts: number[] = [];
  let total = 0;
  for (const r of runs) {
    starts.push(total);
    total += r.group.length;
  }
  const result = { key, runs, starts, total };
  finishedCache.set(q, result);
  return result;
}
