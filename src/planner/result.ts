/** The data `mq queue simulate` returns (its JSON document), shared by the planner and its HTML report. */
import type { Backtest, FittedInputs } from './history.js';
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
