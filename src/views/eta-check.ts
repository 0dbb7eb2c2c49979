/** `mq queue eta-check`: the estimator's calibration and error per history length, as rows. */
import { plainColumns } from '../output/plain.js';
import type { Row } from '../output/render.js';
import type { EtaCheckResult } from '../planner/eta-check.js';
import { formatDuration } from '../util/duration.js';

export const ETA_CHECK_HEADERS = ['History', 'PRs', 'Within p90', 'Within p50', 'Median error', 'Error/time'];

/** `mq queue eta-check` piped: shares as fractions, durations in seconds, '' when no figure. */
export const ETA_CHECK_PLAIN = plainColumns('one line per history length', [
  'history_days',
  'count',
  'skipped',
  'within_p90',
  'within_p50',
  'median_abs_error',
  'median_rel_error',
  'median_time_in_queue',
]);

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`);
const dur = (s: number | null) => (s === null ? 'n/a' : formatDuration(s * 1000));
const raw = (x: number | null) => (x === null ? '' : String(x));

export function etaCheckRows(r: EtaCheckResult): Row[] {
  return r.rows.map((row) => [
    `${row.historyDays}d`,
    String(row.count),
    pct(row.withinP90),
    pct(row.withinP50),
    dur(row.medianAbsErrorSec),
    pct(row.medianRelError),
  ]);
}

export function etaCheckPlainRows(r: EtaCheckResult): Row[] {
  return r.rows.map((row) =>
    ETA_CHECK_PLAIN.row({
      history_days: String(row.historyDays),
      count: String(row.count),
      skipped: String(row.skipped),
      within_p90: raw(row.withinP90),
      within_p50: raw(row.withinP50),
      median_abs_error: raw(row.medianAbsErrorSec),
      median_rel_error: raw(row.medianRelError),
      median_time_in_queue: raw(row.medianTimeInQueueSec),
    }),
  );
}

/** The merged PRs left out for too little history before them, per history length; null when none. */
export function etaCheckSkipped(r: EtaCheckResult): string | null {
  if (r.rows.every((row) => row.skipped === 0)) return null;
  const days = r.rows.map((row) => `${row.historyDays}d`).join(' / ');
  return `Skipped for too little history before them: ${r.rows.map((row) => row.skipped).join(' / ')} PRs (${days}).`;
}

/** What the figures mean, under the table. */
export const ETA_CHECK_NOTE =
  'Each PR merged in the window, estimated as the queue stood when it was submitted, with a profile fitted on ' +
  'the history length before that moment only; within p90/p50: share of merges at or before that quantile ' +
  '(a calibrated p90 covers about 90%); error: median distance of the merge from the p50, and as a share of ' +
  "the PR's time in queue. Settings are today's.";
