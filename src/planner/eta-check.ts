// `mq queue eta-check`: the estimator backtested on history. For each PR merged in the window, the queue
// as it stood when the PR was submitted (the PRs ahead, the runs under test) and a profile fitted only
// from the history before that moment; its p50 and p90 set against when the PR merged. Pure.
import type { OrderBatch, QueueOrder } from '../domain/order.js';
import type { QueueInfo } from '../domain/types.js';
import type { ConcludedPr, TestAttempt, Window } from '../stats/model.js';
import { estimateMergeTime, fitEtaProfile } from './eta.js';
import { quantileSorted } from './stats.js';

const DAY = 86_400_000;
/** History lengths the profile is fitted on, days. */
export const ETA_CHECK_HISTORY_DAYS = [1, 3, 7] as const;
export const ETA_CHECK_RUNS = 100;
/** Merged PRs estimated at most, spread evenly over the window (bounds the time a busy queue takes). */
export const ETA_CHECK_MAX_PRS = 300;

export interface EtaCheckInput {
  /** The merged PRs checked are those that concluded in it. */
  window: Window;
  /** Where the history read begins (before the window, for the fits). */
  historyStart: number;
  prs: ConcludedPr[];
  attempts: TestAttempt[];
  queue: QueueInfo;
  runs?: number;
  seed?: number;
  /** Default ETA_CHECK_MAX_PRS. */
  maxPrs?: number;
}

export interface EtaCheckRow {
  historyDays: number;
  /** Merged PRs estimated. */
  count: number;
  /** Merged PRs with no estimate (too little history before them, or none in the simulation). */
  skipped: number;
  /** Shares of merges at or before the p90 and the p50. */
  withinP90: number | null;
  withinP50: number | null;
  /** Median |merged - p50|, seconds, and as a share of the PR's time in queue. */
  medianAbsErrorSec: number | null;
  medianRelError: number | null;
  medianTimeInQueueSec: number | null;
}

export interface EtaCheckResult {
  window: { since: string; until: string };
  runs: number;
  /** Merged PRs in the window, and how many of them were checked (at most ETA_CHECK_MAX_PRS). */
  merged: number;
  checked: number;
  rows: EtaCheckRow[];
}

/** The queue at `t` as history tells it: who was in it ahead of `pr`, and the runs under test then. */
export function queueAt(pr: ConcludedPr, t: number, prs: ConcludedPr[], attempts: TestAttempt[]) {
  const ahead = prs
    .filter(
      (p) =>
        p !== pr &&
        p.submittedAt !== null &&
        (p.submittedAt < t || (p.submittedAt === t && p.number < pr.number)) &&
        p.concludedAt > t,
    )
    .sort((a, b) => (a.submittedAt as number) - (b.submittedAt as number) || a.number - b.number);
  const inQueue = new Set(ahead.map((p) => p.number));
  const runs = new Map<string, { startedAt: number; prs: number[]; bisection: boolean }>();
  for (const a of attempts) {
    if (a.startedAt > t || a.finishedAt <= t || !inQueue.has(a.prNumber)) continue;
    const r = runs.get(a.runId) ?? { startedAt: a.startedAt, prs: [], bisection: a.bisection };
    r.prs.push(a.prNumber);
    runs.set(a.runId, r);
  }
  const testing = new Set([...runs.values()].flatMap((r) => r.prs));
  const batches: OrderBatch[] = [...runs.entries()]
    .sort(([, a], [, b]) => a.startedAt - b.startedAt)
    .map(([runId, r]) => ({
      runId,
      state: 'testing',
      isBisection: r.bisection,
      prs: r.prs.map((number) => ({ number, title: null })),
    }));
  const pending = [...ahead.filter((p) => !testing.has(p.number)), pr].map((p) => ({
    number: p.number,
    title: null,
    schedulability: 'schedulable' as const,
    predictedBatch: null,
    directlyAhead: [],
    heldBy: [],
  }));
  const order: QueueOrder = {
    queueState: 'running',
    mode: null,
    batchingEnabled: null,
    batches,
    pending,
    awaitingAdmission: [],
    awaitingAdmissionTotal: 0,
    approximate: true,
  };
  return { order, runStarts: Object.fromEntries([...runs].map(([id, r]) => [id, r.startedAt])) };
}

const median = (xs: number[]) =>
  xs.length === 0
    ? null
    : quantileSorted(
        [...xs].sort((a, b) => a - b),
        0.5,
      );
const r4 = (x: number | null) => (x === null ? null : Math.round(x * 1e4) / 1e4);

export function runEtaCheck(input: EtaCheckInput, historyDays: readonly number[] = ETA_CHECK_HISTORY_DAYS) {
  const runs = input.runs ?? ETA_CHECK_RUNS;
  const merged = input.prs
    .filter(
      (p) =>
        p.state === 'merged' &&
        p.submittedAt !== null &&
        p.submittedAt <= p.concludedAt &&
        p.concludedAt >= input.window.since &&
        p.concludedAt <= input.window.until,
    )
    .sort((a, b) => a.concludedAt - b.concludedAt || a.number - b.number);
  const max = input.maxPrs ?? ETA_CHECK_MAX_PRS;
  const step = Math.max(1, merged.length / max);
  const checked =
    merged.length <= max
      ? merged
      : Array.from({ length: Math.ceil(merged.length / step) }, (_, i) => merged[Math.floor(i * step)] as ConcludedPr);
  const rows = historyDays.map((days): EtaCheckRow => {
    let p90 = 0;
    let p50 = 0;
    const abs: number[] = [];
    const rel: number[] = [];
    const inQueue: number[] = [];
    for (const pr of checked) {
      const t = pr.submittedAt as number;
      // No peeking: only what had finished or concluded by `t` is fitted.
      const fitWindow = { since: Math.max(input.historyStart, t - days * DAY), until: t };
      const profile = fitEtaProfile(
        fitWindow,
        input.prs.filter((p) => p.concludedAt <= t),
        input.attempts.filter((a) => a.finishedAt <= t),
      );
      const { order, runStarts } = queueAt(pr, t, input.prs, input.attempts);
      const eta = estimateMergeTime(
        { pr: pr.number, now: t, order, queue: input.queue, runStarts, profile },
        { runs, seed: input.seed ?? 1 },
      );
      if (eta.status !== 'available' || eta.source !== 'simulation') continue;
      const took = Math.max(1, pr.concludedAt - t);
      if (pr.concludedAt <= eta.p90) p90++;
      if (pr.concludedAt <= eta.p50) p50++;
      abs.push(Math.abs(pr.concludedAt - eta.p50) / 1000);
      rel.push(Math.abs(pr.concludedAt - eta.p50) / took);
      inQueue.push(took / 1000);
    }
    const n = abs.length;
    return {
      historyDays: days,
      count: n,
      skipped: checked.length - n,
      withinP90: n > 0 ? r4(p90 / n) : null,
      withinP50: n > 0 ? r4(p50 / n) : null,
      medianAbsErrorSec: median(abs) === null ? null : Math.round(median(abs) as number),
      medianRelError: r4(median(rel)),
      medianTimeInQueueSec: median(inQueue) === null ? null : Math.round(median(inQueue) as number),
    };
  });
  const result: EtaCheckResult = {
    window: { since: new Date(input.window.since).toISOString(), until: new Date(input.window.until).toISOString() },
    runs,
    merged: merged.length,
    checked: checked.length,
    rows,
  };
  return result;
}
