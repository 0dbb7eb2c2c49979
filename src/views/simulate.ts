/**
 * Pure views of a `mq queue simulate` result: table rows (best value of each column marked with
 * `*`), markdown, and plain tab-separated lines. The JSON document is the result itself.
 */
import type { RowResult, SimulateResult } from '../planner/index.js';
import type { Cell, Paint, Row } from '../output/render.js';
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

export function rowLabel(r: RowResult): string {
  return r.keepsUp ? r.label : `${r.label} (falls behind)`;
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
    `${Math.round(i.arrivalsPerHour * 100) / 100} PRs/h`,
    `tests ${Math.round(i.testMinutes * 10) / 10}m (spread ${pct(i.testTimeSpread)})`,
    `${pct(i.failureRate)} break the build`,
    `${pct(i.flakeRate)} flaky runs`,
    `${Math.round(i.durationHours * 10) / 10}h x ${i.runs} runs`,
    `seed ${i.seed}`,
    i.ciCapacity === null ? 'CI capacity unlimited' : `CI capacity ${i.ciCapacity} runs`,
    `baseline: ${i.baseline === 'queue' ? 'queue settings' : 'service defaults'}`,
  ].join(', ');
}

export const FOOTNOTE = 'mean ±half-width of the 95% interval over runs; * = best in column (among rows that keep up); TTM = time from submission to merge';

/** Plain output: one line per row and column (row label, column key, mean, lo, hi), then the recommendation. */
export function simulatePlainLines(result: SimulateResult): string[] {
  const out: string[] = [];
  for (const r of result.results) {
    for (const c of SIMULATE_COLUMNS) {
      const e = c.get(r);
      out.push([r.label, c.key, e.mean ?? '', e.lo ?? '', e.hi ?? ''].join('\t'));
    }
  }
  out.push(['recommendation', result.recommendation.label, result.recommendation.text].join('\t'));
  return out;
}
