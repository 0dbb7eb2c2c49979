// What the planner simulates: workload, one row's settings, one run's measures (plain data for workers).
import type { OptimizationMode, QueueMode } from '../domain/vocabulary.js';

export interface SimInputs {
  /** Mean PR submissions per hour (Poisson arrivals). */
  arrivalsPerHour: number;
  /** Optional 24 or 168 hourly rates, indexed by hours since the window began (modulo); absent: flat. */
  arrivalProfile?: number[] | null;
  /** Mean duration of one test run, minutes. */
  testMinutes: number;
  /** Coefficient of variation of the test time (0 = every run takes exactly testMinutes). */
  testTimeSpread: number;
  /** Share of PRs that really break the build (0..1). */
  failureRate: number;
  /** Chance that a run fails although everything in it is good (0..1). */
  flakeRate: number;
  /** Simulated time per run, hours. */
  durationHours: number;
  /** Independent repetitions; the 95% intervals are over these. */
  runs: number;
  seed: number;
  /** Runs in flight at most, main queue and bisection together; null = unlimited. */
  ciCapacity: number | null;
  /** Parallel mode only: each PR touches one of this many independent lanes (impacted targets). */
  lanes: number;
}

/** The queue settings that change how the simulated queue behaves. */
export interface SimSettings {
  mode: QueueMode;
  concurrency: number;
  /** null = not configured: bisection shares the `concurrency` slots. */
  bisectionConcurrency: number | null;
  batch: boolean;
  batchingMinSize: number;
  batchingMaxWaitTimeMinutes: number;
  pendingFailureDepth: number;
  canOptimisticallyMerge: boolean;
  optimizationMode: OptimizationMode;
  testingTimeoutMinutes: number;
}

/** One settings row: a label (what was changed) and the full settings. */
export interface SettingsRow {
  label: string;
  settings: SimSettings;
}

/** Quantile points of the time-to-merge distribution kept per run (0, 5%, ..., 100%). */
export const TTM_POINTS: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);

/** What one simulated run measured over its window. */
export interface RunMetrics {
  arrived: number;
  merged: number;
  failedReal: number;
  /** Good PRs that failed: flaky runs (or a run past the testing timeout). */
  failedFlaky: number;
  /** Test runs started (main and bisection, including ones later cancelled). */
  runsStarted: number;
  /** Runner minutes used: from a run getting a CI runner to its end or cancellation. */
  testMinutes: number;
  /** Time-average of admitted PRs not yet merged or failed. */
  meanDepth: number;
  /** PRs still in the queue when the window ended. */
  backlogAtEnd: number;
  /** Mean seconds from admission to merge or failure, over PRs that concluded in the window. */
  meanTimeInQueueSec: number | null;
  /** Time to merge (submission to merge), seconds, at TTM_POINTS; null when nothing merged. */
  ttmQuantiles: number[] | null;
}
