/**
 * Pure views of a `mq queue simulate` result: table rows (best value of each column marked with
 * `*`), markdown, and plain tab-separated lines. The JSON document is the result itself.
 */
import type { RowResult, SimulateResult } from '../planner/index.js';
import { plainColumns } from '../output/plain.js';
import type { Cell, Paint, Row } from '../output/render.js';
import type { TableFit } from '../output/width.js';
import type { Estimate } from '../planner/stats.js';

interface Column {
  key: string;
  label: string;
  get: (r: RowResult) => Estimate;
  better: 'high' | 'low' | null;
  format: (x: number) => string;
}

const fixed = (d: number) => (x: number) => x.toFixed(d);
function duration(seconds: number): string {
  const m = seconds / 60;
  if (Math.abs(m) < 90) return `${Math.round(m)}m`;
  return `${(m / 60).toFixed(1)}h`;
}

export const SIMULATE_COLUMNS: Column[] = [
  { key: 'merged_per_hour', label: 'Merged/h', get: (r) => r.mergedPerHour, better: 'high', format: fixed(2) },
  { key: 'ttm_p50', label: 'TTM p50', get: (r) => r.timeToMerge.p50, better: 'low', format: duration },
  { key: 'ttm_p95', label: 'TTM p95', get: (r) => r.timeToMerge.p95, better: 'low', format: duration },
  { key: 'runs_per_merged', label: 'Runs/PR', get: (r) => r.runsPerMergedPr, better: 'low', format: fixed(2) },
  { key: 'test_min_per_merged', label: 'Test min/PR', get: (r) => r.testMinutesPerMergedPr, better: 'low', format: fixed(1) },
  { key: 'mean_depth', label: 'Depth', get: (r) => r.meanDepth, better: 'low', format: fixed(1) },
  { key: 'failed_real_per_day', label: 'Failed/d real', get: (r) => r.failedPerDay.real, better: null, format: fixed(1) },
  { key: 'failed_flaky_per_day', label: 'Failed/d flaky', get: (r) => r.failedPerDay.flaky, better: 'low', format: fixed(1) },
];

export const SIMULATE_HEADERS = ['Settings', ...SIMULATE_COLUMNS.map((c) => c.label)];
/** On a narrow terminal the settings are cut, then the secondary figures go. */
export const SIMULATE_FIT: TableFit = { truncate: ['Settings'], drop: ['Failed/d real', 'Depth', 'Test min/PR', 'TTM p95', 'Runs/PR'], min: 24 };

/** `12.3 ±0.4` (the 95% interval reaches that far above the mean), or `n/a`. */
export function formatEstimate(e: Estimate, format: (x: number) => string): string {
  if (e.mean === null) return 'n/a';
  if (e.hi === null) return format(e.mean);
  return `${format(e.mean)} ±${format(e.hi - e.mean)}`;
}

/**
 * For each column, the displayed mean that is best (ties all marked), among the rows that keep up
 * when any does: the figures of a row that falls behind depend on how long the window was.
 */
function bestTexts(all: RowResult[]): Array<string | null> {
  const up = all.filter((r) => r.keepsUp);
  const results = up.length > 0 ? up : all;
  return SIMULATE_COLUMNS.map((c) => {
    if (c.better === null) return null;
    const means = results.map((r) => c.get(r).mean).filter((x): x is number => x !== null);
    if (means.length < 1 || all.length < 2) return null;
    const best = c.better === 'high' ? Math.max(...means) : Math.min(...means);
    return c.format(best);
  });
}

export const WITHIN_ERROR = "within the model's error";

export function rowLabel(r: RowResult): string {
  const notes = [...(r.keepsUp ? [] : ['falls behind']), ...(r.withinModelError ? [WITHIN_ERROR] : [])];
  return notes.length === 0 ? r.label : `${r.label} (${notes.join('; ')})`;
}

/** Table rows; the best value of each column carries a `*` (and is bold/green on a terminal). */
export function simulateRows(result: SimulateResult, mark?: Paint): Row[] {
  const best = bestTexts(result.results);
  return result.results.map((r) => [
    rowLabel(r),
    ...SIMULATE_COLUMNS.map((c, i): Cell => {
      const e = c.get(r);
      const text = formatEstimate(e, c.format);
      const isBest = best[i] !== null && e.mean !== null && (r.keepsUp || result.results.every((x) => !x.keepsUp)) && c.format(e.mean) === best[i];
      return isBest ? { value: `${text} *`, ...(mark ? { paint: mark } : {}) } : { value: text };
    }),
  ]);
}

export function inputsLine(result: SimulateResult): string {
  const i = result.inputs;
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  return [
    `${i.fitted ? 'fitted from history: ' : ''}${Math.round(i.arrivalsPerHour * 100) / 100} PRs/h${i.fitted?.arrivalsShape === 'hour-of-week' ? ' (by hour of the week)' : i.fitted?.arrivalsShape === 'hour-of-day' ? ' (by hour of day)' : ''}`,
    `tests ${Math.round(i.testMinutes * 10) / 10}m (spread ${pct(i.testTimeSpread)})`,
    `${pct(i.failureRate)} break the build`,
    `${pct(i.flakeRate)} flaky runs`,
    `${Math.round(i.durationHours * 10) / 10}h x ${i.runs} runs`,
    `seed ${i.seed}`,
    i.ciCapacity === null ? 'CI capacity unlimited' : `CI capacity ${i.ciCapacity} runs`,
    `baseline: ${i.baseline === 'queue' ? 'queue settings' : 'service defaults'}`,
  ].join(', ');
}

const relPct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`);
const mins = (s: number | null) => (s === null ? 'n/a' : duration(s));

/** --from-history: the fitted workload and the backtest, one line each; none without it. */
export function historyLines(result: SimulateResult): string[] {
  const f = result.inputs.fitted;
  const b = result.backtest;
  if (!f || !b) return [];
  const shape = f.arrivalsShape === 'hour-of-week' ? 'by hour of the week' : f.arrivalsShape === 'hour-of-day' ? 'by hour of day' : 'flat';
  return [
    `fitted from ${f.window.since} to ${f.window.until}: ${f.samples.prs} PRs, ${f.samples.runs} finished runs (cancelled ones left out); arrivals ${shape}`,
    `backtest (the window replayed with the queue's settings): merged/h measured ${b.measured.mergedPerHour ?? 'n/a'}, simulated ${b.simulated.mergedPerHour ?? 'n/a'} (error ${relPct(b.error.mergedPerHour)}); ` +
      `TTM p50 measured ${mins(b.measured.timeToMergeP50)}, simulated ${mins(b.simulated.timeToMergeP50)} (error ${relPct(b.error.timeToMergeP50)}); ` +
      `a row closer to the baseline than this is ${WITHIN_ERROR}, not a result`,
  ];
}

export const FOOTNOTE = 'mean ±half-width of the 95% interval over runs; * = best in column (among rows that keep up); TTM = time from submission to merge';

/** `mq queue simulate` piped: the estimates, then tagged lines for rows within the model's error, the backtest and the recommendation. */
export const SIMULATE_PLAIN = {
  estimate: plainColumns('one line per row and figure', ['row', 'figure', 'mean', 'lo', 'hi']),
  withinError: plainColumns("then one line per row closer to the baseline than the model's error", ['row'], 'within_model_error'),
  backtest: plainColumns('with --from-history, one line per backtested figure', ['figure', 'measured', 'simulated', 'error'], 'backtest'),
  recommendation: plainColumns('last, the recommendation', ['row', 'text'], 'recommendation'),
};

const raw = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

/** Plain output: one line per row and figure (row label, figure key, mean, lo, hi), then the tagged lines. */
export function simulatePlainRows(result: SimulateResult): Row[] {
  const P = SIMULATE_PLAIN;
  const out: Row[] = [];
  for (const r of result.results) {
    for (const c of SIMULATE_COLUMNS) {
      const e = c.get(r);
      out.push(P.estimate.row({ row: r.label, figure: c.key, mean: raw(e.mean), lo: raw(e.lo), hi: raw(e.hi) }));
    }
  }
  for (const r of result.results) if (r.withinModelError) out.push(P.withinError.row({ row: r.label }));
  const b = result.backtest;
  if (b) {
    out.push(
      P.backtest.row({
        figure: 'merged_per_hour',
        measured: raw(b.measured.mergedPerHour),
        simulated: raw(b.simulated.mergedPerHour),
        error: raw(b.error.mergedPerHour),
      }),
    );
    out.push(
      P.backtest.row({
        figure: 'ttm_p50',
        measured: raw(b.measured.timeToMergeP50),
        simulated: raw(b.simulated.timeToMergeP50),
        error: raw(b.error.timeToMergeP50),
      }),
    );
  }
  out.push(P.recommendation.row({ row: result.recommendation.label, text: result.recommendation.text }));
  return out;
}

/** The plain lines as text (tab-joined), as `-o plain` prints them. */
export function simulatePlainLines(result: SimulateResult): string[] {
  return simulatePlainRows(result).map((r) => r.map((c) => (typeof c === 'string' ? c : c.value)).join('\t'));
}
