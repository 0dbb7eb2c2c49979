/** The data `mq queue simulate` returns (its JSON document), shared by the planner and its HTML report. */
import type { SimInputs, SimSettings } from './model.js';
import type { Estimate } from './stats.js';

export interface RowResult {
  label: string;
  settings: SimSettings;
  /** False when the queue fell behind: the backlog at the end was over 10% of arrivals (and over 10 PRs). */
  keepsUp: boolean;
  mergedPerHour: Estimate;
  /** Seconds from submission to merge; distribution = mean over runs of the quantiles at `points`. */
  timeToMerge: { p50: Estimate; p95: Estimate; points: number[]; distribution: Array<number | null> };
  runsPerMergedPr: Estimate;
  testMinutesPerMergedPr: Estimate;
  meanDepth: Estimate;
  failedPerDay: { real: Estimate; flaky: Estimate };
  backlogAtEnd: Estimate;
  /** --from-history only: this row differs from the baseline by less than the backtest's error (never a result). */
  withinModelError?: boolean;
}

export interface Recommendation {
  label: string;
  text: string;
}

export interface SimulateResult {
  inputs: SimInputs & { baseline: 'queue' | 'defaults'; fitted?: FittedInputs };
  /** --from-history only: the window replayed with the queue's settings, simulated against measured. */
  backtest?: Backtest;
  results: RowResult[];
  recommendation: Recommendation;
}

export interface FittedInputs {
  window: { since: string; until: string; hours: number };
  /** Submissions per hour over the window (PRs that merged or failed; cancelled ones are not modelled). */
  arrivalsPerHour: number;
  /** hour-of-week with two weeks and enough PRs (weekdays apart), else hour-of-day with enough days/PRs, else flat. */
  arrivalsShape: 'hour-of-week' | 'hour-of-day' | 'flat';
  /** With hour-of-day: 24 submission rates per hour, index = UTC hour of day; else null. */
  arrivalsByHourOfDay: number[] | null;
  /** With hour-of-week: 168 submission rates per hour, index = UTC day of week (0 = Sunday) x 24 + hour; else null. */
  arrivalsByHourOfWeek: number[] | null;
  /** Mean and coefficient of variation of the completed (passed or failed) runs' durations. */
  testMinutes: number;
  testTimeSpread: number;
  /** Share of PRs that failed on their own: a failed run of their own, not merged on that commit. */
  failureRate: number;
  /** Share of completed runs of a PR's own that failed and were followed by a pass, or a merge, on the same commit. */
  flakeRate: number;
  /** What the fit is based on. */
  samples: {
    prs: number;
    merged: number;
    failed: number;
    cancelled: number;
    runs: number;
    prsWithOwnFailure: number;
    flakyRuns: number;
    /** PRs whose own failures were all flaky (they passed later, or merged, on the same commit). */
    flakyPrs?: number;
  };
}

/** Every figure of the table, measured or simulated; null when not known. */
export interface BacktestFigures {
  mergedPerHour: number | null;
  /** Seconds. */
  timeToMergeP50: number | null;
  timeToMergeP95?: number | null;
  runsPerMergedPr?: number | null;
  testMinutesPerMergedPr?: number | null;
  meanDepth?: number | null;
  /** Measured: PRs that failed per day; simulated: breaking PRs failed per day. */
  failedPerDayReal?: number | null;
  /** Measured: PRs whose own failures were all flaky, per day; simulated: good PRs failed by flakes per day. */
  failedPerDayFlaky?: number | null;
}

export interface Backtest {
  measured: BacktestFigures;
  simulated: BacktestFigures;
  /** Relative error |simulated - measured| / measured (0.1 = 10%); null when not measured. */
  error: BacktestFigures;
}
