// `mq queue simulate --from-history`: the workload fitted from a window of history, the backtest of the
// model on it, and which rows differ from the baseline by less than its error. Pure.
import type { QueueStats } from '../stats/compute.js';
import type { ConcludedPr, TestAttempt, Window } from '../stats/model.js';
import type { Backtest, BacktestFigures, FittedInputs, RowResult } from './result.js';

export type { Backtest, BacktestFigures, FittedInputs };

const HOUR = 3_600_000;
/** An hour-of-day profile needs at least this many days of history and this many submissions. */
export const PROFILE_MIN_DAYS = 3;
export const PROFILE_MIN_PRS = 200;
/** An hour-of-week profile (weekdays apart) needs two full weeks and this many submissions. */
export const WEEK_PROFILE_MIN_DAYS = 14;
export const WEEK_PROFILE_MIN_PRS = 1000;

const hourOfDay = (t: number) => new Date(t).getUTCHours();
const hourOfWeek = (t: number) => new Date(t).getUTCDay() * 24 + new Date(t).getUTCHours();

/** Rate in each slot (UTC hour of day or of week): submissions in the slot / hours the window spent in it. */
function rateProfile(window: Window, arrivals: number[], slots: number, slotOf: (t: number) => number): number[] {
  const counts = new Array<number>(slots).fill(0);
  const exposure = new Array<number>(slots).fill(0);
  for (const t of arrivals) counts[slotOf(t)] = (counts[slotOf(t)] as number) + 1;
  for (let at = window.since; at < window.until; ) {
    const next = Math.min(window.until, Math.floor(at / HOUR) * HOUR + HOUR);
    exposure[slotOf(at)] = (exposure[slotOf(at)] as number) + (next - at) / HOUR;
    at = next;
  }
  return counts.map((c, h) => r4((exposure[h] as number) > 0 ? c / (exposure[h] as number) : 0));
}
/** Below these the fit says too little: the command refuses rather than simulate noise. */
export const MIN_PRS = 10;
export const MIN_RUNS = 5;

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Fits the simulation inputs to a window's concluded PRs and test attempts. */
export function fitHistory(window: Window, prs: ConcludedPr[], attempts: TestAttempt[]): FittedInputs {
  const inWindow = (t: number) => t >= window.since && t <= window.until;
  const concluded = prs.filter((p) => inWindow(p.concludedAt));
  const modelled = concluded.filter((p) => p.state !== 'cancelled');
  const hours = Math.max(1, window.until - window.since) / HOUR;

  // Arrivals: each merged or failed PR arrived when its last trip began (else, when it concluded).
  const arrivals = modelled
    .map((p) => (p.submittedAt !== null && p.submittedAt <= p.concludedAt ? p.submittedAt : p.concludedAt))
    .filter(inWindow);
  const arrivalsPerHour = arrivals.length / hours;
  const days = hours / 24;
  const byWeek =
    days >= WEEK_PROFILE_MIN_DAYS && arrivals.length >= WEEK_PROFILE_MIN_PRS
      ? rateProfile(window, arrivals, 168, hourOfWeek)
      : null;
  const byHour =
    !byWeek && days >= PROFILE_MIN_DAYS && arrivals.length >= PROFILE_MIN_PRS
      ? rateProfile(window, arrivals, 24, hourOfDay)
      : null;

  // Test time: each completed run once (a batch's run is one run), cancelled runs left out.
  const runs = new Map<string, number>();
  for (const a of attempts)
    if (inWindow(a.finishedAt) && a.result !== 'cancelled' && !runs.has(a.runId))
      runs.set(a.runId, Math.max(0, a.finishedAt - a.startedAt) / 60_000);
  const durations = [...runs.values()];
  const mean = durations.length > 0 ? durations.reduce((s, x) => s + x, 0) / durations.length : 0;
  const variance =
    durations.length > 1 ? durations.reduce((s, x) => s + (x - mean) ** 2, 0) / (durations.length - 1) : 0;

  const failures = ownFailures(window, concluded, attempts);
  const real = failures.prsWithOwnFailure - failures.flakyPrs;
  return {
    window: {
      since: new Date(window.since).toISOString(),
      until: new Date(window.until).toISOString(),
      hours: r4(hours),
    },
    arrivalsPerHour: r4(arrivalsPerHour),
    arrivalsShape: byWeek ? 'hour-of-week' : byHour ? 'hour-of-day' : 'flat',
    arrivalsByHourOfDay: byHour,
    arrivalsByHourOfWeek: byWeek,
    testMinutes: r4(mean),
    testTimeSpread: r4(mean > 0 ? Math.sqrt(variance) / mean : 0),
    failureRate: r4(modelled.length > 0 ? Math.min(1, real / modelled.length) : 0),
    flakeRate: r4(durations.length > 0 ? Math.min(0.99, failures.flakyRuns / durations.length) : 0),
    samples: {
      prs: modelled.length,
      merged: concluded.filter((p) => p.state === 'merged').length,
      failed: concluded.filter((p) => p.state === 'failed').length,
      cancelled: concluded.filter((p) => p.state === 'cancelled').length,
      runs: durations.length,
      prsWithOwnFailure: failures.prsWithOwnFailure,
      flakyRuns: failures.flakyRuns,
      flakyPrs: failures.flakyPrs,
    },
  };
}

/** Each PR's own failures (tested alone): flaky if it later passed or merged on that commit. */
function ownFailures(window: Window, concluded: ConcludedPr[], attempts: TestAttempt[]) {
  const inWindow = (t: number) => t >= window.since && t <= window.until;
  const runSize = new Map<string, number>();
  for (const a of attempts) runSize.set(a.runId, (runSize.get(a.runId) ?? 0) + 1);
  const byPr = new Map<number, TestAttempt[]>();
  for (const a of attempts) byPr.set(a.prNumber, [...(byPr.get(a.prNumber) ?? []), a]);
  const merged = new Set(concluded.filter((p) => p.state === 'merged').map((p) => p.number));
  const same = (a?: string | null, b?: string | null) => a == null || b == null || a === b;
  let prsWithOwnFailure = 0;
  let flakyPrs = 0;
  let flakyRuns = 0;
  for (const [pr, list] of byPr) {
    const own = list.filter((a) => inWindow(a.finishedAt) && a.result === 'failed' && runSize.get(a.runId) === 1);
    if (own.length === 0) continue;
    const passes = list.filter((a) => a.result === 'passed').sort((a, b) => a.finishedAt - b.finishedAt);
    const mergedSha = merged.has(pr) ? (passes.at(-1)?.sha ?? null) : undefined;
    const healed = own.filter(
      (f) =>
        passes.some((a) => a.finishedAt > f.finishedAt && same(a.sha, f.sha)) ||
        (mergedSha !== undefined && same(mergedSha, f.sha)),
    );
    prsWithOwnFailure += 1;
    if (healed.length === own.length) flakyPrs += 1;
    flakyRuns += healed.length;
  }
  return { prsWithOwnFailure, flakyPrs, flakyRuns };
}

/** The hour-of-week or hour-of-day profile turned to the simulation's clock: index 0 = the window's first hour. */
export function profileFrom(fitted: FittedInputs): number[] | null {
  const since = Date.parse(fitted.window.since);
  const week = fitted.arrivalsByHourOfWeek ?? null;
  if (week) return Array.from({ length: 168 }, (_, i) => week[(hourOfWeek(since) + i) % 168] as number);
  const byHour = fitted.arrivalsByHourOfDay;
  if (!byHour) return null;
  return Array.from({ length: 24 }, (_, i) => byHour[(hourOfDay(since) + i) % 24] as number);
}

const rel = (sim: number | null, meas: number | null): number | null =>
  sim === null || meas === null || meas <= 0 ? null : r4(Math.abs(sim - meas) / meas);

/** The figures the backtest sets side by side: every figure of the table. */
export const BACKTEST_KEYS = [
  'mergedPerHour',
  'timeToMergeP50',
  'timeToMergeP95',
  'runsPerMergedPr',
  'testMinutesPerMergedPr',
  'meanDepth',
  'failedPerDayReal',
  'failedPerDayFlaky',
] as const satisfies ReadonlyArray<keyof BacktestFigures>;

/** The simulated row's figures, as the backtest compares them. */
export function simulatedFigures(r: RowResult): BacktestFigures {
  return {
    mergedPerHour: r.mergedPerHour.mean,
    timeToMergeP50: r.timeToMerge.p50.mean,
    timeToMergeP95: r.timeToMerge.p95.mean,
    runsPerMergedPr: r.runsPerMergedPr.mean,
    testMinutesPerMergedPr: r.testMinutesPerMergedPr.mean,
    meanDepth: r.meanDepth.mean,
    failedPerDayReal: r.failedPerDay.real.mean,
    failedPerDayFlaky: r.failedPerDay.flaky.mean,
  };
}

/** What the window measured: the stats figures, mean PRs in queue, failed and all-flaky PRs per day. */
export function measuredFigures(
  window: Window,
  stats: QueueStats,
  prs: ConcludedPr[],
  fitted: FittedInputs,
): BacktestFigures {
  const span = Math.max(1, window.until - window.since);
  let inQueue = 0;
  for (const p of prs) {
    if (p.state === 'cancelled' || p.submittedAt === null) continue;
    inQueue += Math.max(0, Math.min(p.concludedAt, window.until) - Math.max(p.submittedAt, window.since));
  }
  const days = span / (24 * HOUR);
  return {
    mergedPerHour: stats.mergedPerHour,
    timeToMergeP50: stats.timeToMerge.p50,
    timeToMergeP95: stats.timeToMerge.p95,
    runsPerMergedPr: stats.runs.perMergedPr,
    testMinutesPerMergedPr: stats.testMinutesPerMergedPr,
    meanDepth: r4(inQueue / span),
    failedPerDayReal: r4(fitted.samples.failed / days),
    failedPerDayFlaky: r4((fitted.samples.flakyPrs ?? 0) / days),
  };
}

export function backtestOf(measured: BacktestFigures, simulated: BacktestFigures): Backtest {
  const sim = {} as BacktestFigures;
  const error = {} as BacktestFigures;
  for (const k of BACKTEST_KEYS) {
    const v = simulated[k] ?? null;
    sim[k] = v === null ? null : k === 'timeToMergeP50' || k === 'timeToMergeP95' ? Math.round(v) : r4(v);
    error[k] = rel(sim[k] ?? null, measured[k] ?? null);
  }
  return { measured, simulated: sim, error };
}

/** Whether a row is within the backtest's error of the baseline (merges/h and TTM p50; unmeasured = unbounded). */
export function withinModelError(row: RowResult, baseline: RowResult, error: BacktestFigures): boolean {
  const close = (a: number | null, b: number | null, err: number | null) => {
    if (err === null) return true;
    if (a === null || b === null) return a === b;
    if (b === 0) return a === 0;
    return Math.abs(a - b) / Math.abs(b) <= err;
  };
  return (
    close(row.mergedPerHour.mean, baseline.mergedPerHour.mean, error.mergedPerHour) &&
    close(row.timeToMerge.p50.mean, baseline.timeToMerge.p50.mean, error.timeToMergeP50)
  );
}
