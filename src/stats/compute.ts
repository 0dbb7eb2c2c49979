// Queue statistics for a window from its concluded PRs, attempts and settings. Pure: epoch ms in, seconds out.
import type { ConcludedPr, QueueSettings, TestAttempt, Window } from './model.js';

export interface QueueStats {
  window: { since: string; until: string };
  prs: { merged: number; failed: number; cancelled: number };
  mergedPerHour: number;
  /** Seconds from submission to merge (the merged PR's last trip). */
  timeToMerge: { p50: number | null; p90: number | null; p95: number | null };
  /** Seconds from submission to the start of its first test run on that trip. */
  waiting: { p50: number | null; p95: number | null };
  /** Seconds from the start of its first test run to the merge. */
  testing: { p50: number | null; p95: number | null };
  runs: { total: number | null; failed: number | null; bisection: number | null; perMergedPr: number | null };
  testMinutesPerMergedPr: number | null;
  /** Of the PRs with a failed run of their own, the share that then passed without a new commit (0..1). */
  flakyShare: number | null;
  /** Merges per hour the current settings allow: concurrency x batch size x 60 / median test minutes. */
  ceilingPerHour: number | null;
}

/** What the charts draw, alongside the figures. */
export interface StatsSeries {
  /** Merges per hour bucket across the window (oldest first). */
  mergesPerHour: Array<{ start: number; count: number }>;
  /** Time to merge of every merged PR, seconds, ascending. */
  timeToMergeSeconds: number[];
  /** When the first PR left the queue or the first test run ended in the window; null for neither. */
  firstAt: number | null;
}

export interface StatsInput {
  window: Window;
  prs: ConcludedPr[];
  attempts: TestAttempt[];
  settings: QueueSettings | null;
}

/** Nearest-rank percentile of ascending values (p in 0..100); null for none. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

const round = (x: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
const secs = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 1000));
const asc = (xs: number[]) => xs.sort((a, b) => a - b);

export interface FailureCounts {
  /** PRs with a failed run of their own (one that tested that PR alone) finishing in the window. */
  prsWithOwnFailure: number;
  /** Of those, the PRs whose failure was followed by a pass without a new commit (flaky). */
  flakyPrs: number;
  /** Own failed runs, in the window, followed by a pass of the same PR without a new commit. */
  flakyRuns: number;
}

/** Flaky, as `mq queue stats` defines it: a PR's own failed run followed later by a pass on the same commit. */
export function classifyFailures(window: Window, allAttempts: TestAttempt[]): FailureCounts {
  const inWindow = (t: number) => t >= window.since && t <= window.until;
  const runSize = new Map<string, number>();
  for (const a of allAttempts) if (inWindow(a.finishedAt)) runSize.set(a.runId, (runSize.get(a.runId) ?? 0) + 1);
  const byPr = new Map<number, TestAttempt[]>();
  for (const a of allAttempts) {
    const list = byPr.get(a.prNumber);
    if (list) list.push(a);
    else byPr.set(a.prNumber, [a]);
  }
  let prsWithOwnFailure = 0;
  let flakyPrs = 0;
  let flakyRuns = 0;
  for (const list of byPr.values()) {
    const own = list.filter(
      (a) => inWindow(a.finishedAt) && a.result === 'failed' && (runSize.get(a.runId) ?? 1) === 1,
    );
    if (own.length === 0) continue;
    prsWithOwnFailure += 1;
    const healed = own.filter((f) =>
      list.some(
        (a) =>
          a.result === 'passed' && a.startedAt >= f.finishedAt && (a.sha == null || f.sha == null || a.sha === f.sha),
      ),
    );
    if (healed.length > 0) flakyPrs += 1;
    flakyRuns += healed.length;
  }
  return { prsWithOwnFailure, flakyPrs, flakyRuns };
}

export function computeStats(input: StatsInput): { stats: QueueStats; series: StatsSeries } {
  const { window } = input;
  const inWindow = (t: number) => t >= window.since && t <= window.until;
  const prs = input.prs.filter((p) => inWindow(p.concludedAt));
  const merged = prs.filter((p) => p.state === 'merged');
  const attempts = input.attempts.filter((a) => inWindow(a.finishedAt));

  const attemptsByPr = new Map<number, TestAttempt[]>();
  for (const a of input.attempts) {
    const list = attemptsByPr.get(a.prNumber);
    if (list) list.push(a);
    else attemptsByPr.set(a.prNumber, [a]);
  }
  for (const list of attemptsByPr.values())
    list.sort((a, b) => a.startedAt - b.startedAt || a.finishedAt - b.finishedAt);

  // Time to merge, split at the start of the first test run of the merging trip.
  const ttm: number[] = [];
  const waiting: number[] = [];
  const testing: number[] = [];
  for (const p of merged) {
    const submitted = p.submittedAt;
    if (submitted === null || submitted > p.concludedAt) continue;
    ttm.push(p.concludedAt - submitted);
    const first = (attemptsByPr.get(p.number) ?? []).find(
      (a) => a.startedAt >= submitted && a.startedAt <= p.concludedAt,
    );
    const start = first ? first.startedAt : p.concludedAt;
    waiting.push(start - submitted);
    testing.push(p.concludedAt - start);
  }
  asc(ttm);
  asc(waiting);
  asc(testing);

  // Runs: each run once, however many PRs it tested.
  const runs = new Map<string, { result: TestAttempt['result']; bisection: boolean; ms: number; prs: number }>();
  for (const a of attempts) {
    const r = runs.get(a.runId);
    if (r) r.prs += 1;
    else
      runs.set(a.runId, {
        result: a.result,
        bisection: a.bisection,
        ms: Math.max(0, a.finishedAt - a.startedAt),
        prs: 1,
      });
  }
  let failedRuns = 0;
  let bisectionRuns = 0;
  let testMs = 0;
  const passedDurations: number[] = [];
  for (const r of runs.values()) {
    if (r.result === 'failed') failedRuns += 1;
    if (r.bisection) bisectionRuns += 1;
    testMs += r.ms;
    if (r.result !== 'cancelled') passedDurations.push(r.ms);
  }

  const { prsWithOwnFailure: withOwnFailure, flakyPrs: flaky } = classifyFailures(window, input.attempts);

  const hours = Math.max(1, window.until - window.since) / 3_600_000;
  const medianTest = percentile(asc(passedDurations), 50);
  const settings = input.settings;
  let ceiling: number | null = null;
  if (settings?.concurrency && medianTest && medianTest > 0) {
    const batch = settings.batch ? Math.max(1, settings.batchingMinSize ?? 1) : 1;
    ceiling = round((settings.concurrency * batch * 3_600_000) / medianTest);
  }

  const stats: QueueStats = {
    window: { since: new Date(window.since).toISOString(), until: new Date(window.until).toISOString() },
    prs: {
      merged: merged.length,
      failed: prs.filter((p) => p.state === 'failed').length,
      cancelled: prs.filter((p) => p.state === 'cancelled').length,
    },
    mergedPerHour: round(merged.length / hours),
    timeToMerge: { p50: secs(percentile(ttm, 50)), p90: secs(percentile(ttm, 90)), p95: secs(percentile(ttm, 95)) },
    waiting: { p50: secs(percentile(waiting, 50)), p95: secs(percentile(waiting, 95)) },
    testing: { p50: secs(percentile(testing, 50)), p95: secs(percentile(testing, 95)) },
    runs: {
      total: runs.size,
      failed: failedRuns,
      bisection: bisectionRuns,
      perMergedPr: merged.length > 0 ? round(runs.size / merged.length) : null,
    },
    testMinutesPerMergedPr: merged.length > 0 ? round(testMs / 60_000 / merged.length) : null,
    flakyShare: withOwnFailure > 0 ? round(flaky / withOwnFailure, 4) : null,
    ceilingPerHour: ceiling,
  };

  // Merges per hour across the window, one bucket per hour (the last one may be partial).
  const buckets = Math.max(1, Math.ceil((window.until - window.since) / 3_600_000));
  const mergesPerHour = Array.from({ length: buckets }, (_, i) => ({ start: window.since + i * 3_600_000, count: 0 }));
  for (const p of merged) {
    const i = Math.min(buckets - 1, Math.floor((p.concludedAt - window.since) / 3_600_000));
    (mergesPerHour[i] as { count: number }).count += 1;
  }
  // A loop, not Math.min(...xs): a window may hold more runs than a call takes arguments.
  let firstAt: number | null = null;
  for (const t of [...prs.map((p) => p.concludedAt), ...attempts.map((a) => a.finishedAt)])
    if (firstAt === null || t < firstAt) firstAt = t;
  return { stats, series: { mergesPerHour, timeToMergeSeconds: ttm.map((ms) => Math.round(ms / 1000)), firstAt } };
}

/** A service that offers no testing history: the figures read from test runs are unknown, not zero. */
export function withoutTestingHistory(stats: QueueStats): QueueStats {
  return {
    ...stats,
    waiting: { p50: null, p95: null },
    testing: { p50: null, p95: null },
    runs: { total: null, failed: null, bisection: null, perMergedPr: null },
    testMinutesPerMergedPr: null,
    flakyShare: null,
    ceilingPerHour: null,
  };
}
