/**
 * `mq queue simulate --from-history`: the workload fitted from a window of the service's history
 * (the PRs that left the queue and the test attempts `mq queue stats` reads), the backtest that
 * checks the model against that window, and which settings rows differ from the baseline by less
 * than the backtest's error. Pure: epoch ms in, plain data out.
 */
import { classifyFailures } from '../stats/compute.js';
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

  // Arrivals: each merged or failed PR arrived when its last trip began (or when it concluded, when the service did not say).
  const arrivals = modelled.map((p) => (p.submittedAt !== null && p.submittedAt <= p.concludedAt ? p.submittedAt : p.concludedAt)).filter(inWindow);
  const arrivalsPerHour = arrivals.length / hours;
  const days = hours / 24;
  const byWeek = days >= WEEK_PROFILE_MIN_DAYS && arrivals.length >= WEEK_PROFILE_MIN_PRS ? rateProfile(window, arrivals, 168, hourOfWeek) : null;
  const byHour = !byWeek && days >= PROFILE_MIN_DAYS && arrivals.length >= PROFILE_MIN_PRS ? rateProfile(window, arrivals, 24, hourOfDay) : null;

  // Test time: each completed run once (a batch's run is one run), cancelled runs left out.
  const runs = new Map<string, number>();
  for (const a of attempts)
    if (inWindow(a.finishedAt) && a.result !== 'cancelled' && !runs.has(a.runId)) runs.set(a.runId, Math.max(0, a.finishedAt - a.startedAt) / 60_000);
  const durations = [...runs.values()];
  const mean = durations.length > 0 ? durations.reduce((s, x) => s + x, 0) / durations.length : 0;
  const variance = durations.length > 1 ? durations.reduce((s, x) => s + (x - mean) ** 2, 0) / (durations.length - 1) : 0;

  const failures = classifyFailures(window, attempts);
  const real = Math.max(0, failures.prsWithOwnFailure - failures.flakyPrs);
  return {
    window: { since: new Date(window.since).toISOString(), until: new Date(window.until).toISOString(), hours: r4(hours) },
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
    },
  };
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

const rel = (sim: number | null, meas: number | null): number | null => (sim === null || meas === null || meas <= 0 ? null : r4(Math.abs(sim - meas) / meas));

export function backtestOf(measured: BacktestFigures, simulated: BacktestFigures): Backtest {
  const round = (x: number | null, d: number) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);
  const sim = { mergedPerHour: round(simulated.mergedPerHour, 4), timeToMergeP50: round(simulated.timeToMergeP50, 0) };
  return {
    measured,
    simulated: sim,
    error: { mergedPerHour: rel(sim.mergedPerHour, measured.mergedPerHour), timeToMergeP50: rel(sim.timeToMergeP50, measured.timeToMergeP50) },
  };
}

/**
 * Whether a row's difference from the baseline is within the model's error: its merges per hour and
 * its time to merge p50 each differ from the baseline's by no more (relatively) than the backtest
 * missed the measured figure by. An error that could not be measured counts as unbounded: nothing
 * can then be told apart from the baseline on that figure.
 */
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
