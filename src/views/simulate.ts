// Views of a `mq queue simulate` result: table (best value per column marked `*`), markdown, plain.
import type { RowResult, SimulateResult } from '../planner/index.js';
import { plainColumns } from '../output/plain.js';
import { type Cell, type Paint, type Row, wrapToWidth } from '../output/render.js';
import { safeLine } from '../output/sanitize.js';
import { displayWidth, fitColumns, type TableFit, tableWidth } from '../output/width.js';
import type { BacktestFigures } from '../planner/result.js';
import type { Estimate } from '../planner/stats.js';
import { durationIn, durationUnit } from '../util/duration.js';

interface Column {
  key: string;
  label: string;
  get: (r: RowResult) => Estimate;
  better: 'high' | 'low' | null;
  /** Decimals of a plain figure; `duration` for seconds shown in minutes or hours. */
  digits: number | 'duration';
}

export const SIMULATE_COLUMNS: Column[] = [
  { key: 'merged_per_hour', label: 'Merged/h', get: (r) => r.mergedPerHour, better: 'high', digits: 2 },
  { key: 'ttm_p50', label: 'TTM p50', get: (r) => r.timeToMerge.p50, better: 'low', digits: 'duration' },
  { key: 'ttm_p95', label: 'TTM p95', get: (r) => r.timeToMerge.p95, better: 'low', digits: 'duration' },
  { key: 'runs_per_merged', label: 'Runs/PR', get: (r) => r.runsPerMergedPr, better: 'low', digits: 2 },
  { key: 'test_min_per_merged', label: 'Test min/PR', get: (r) => r.testMinutesPerMergedPr, better: 'low', digits: 1 },
  { key: 'mean_depth', label: 'Depth', get: (r) => r.meanDepth, better: 'low', digits: 1 },
  { key: 'failed_real_per_day', label: 'Failed/d real', get: (r) => r.failedPerDay.real, better: null, digits: 1 },
  { key: 'failed_flaky_per_day', label: 'Failed/d flaky', get: (r) => r.failedPerDay.flaky, better: 'low', digits: 1 },
];

export const SIMULATE_HEADERS = ['Settings', ...SIMULATE_COLUMNS.map((c) => c.label)];
/** On a narrow terminal the secondary figures go; a settings label is never cut (the rows are numbered instead). */
export const SIMULATE_FIT: TableFit = { drop: ['Failed/d real', 'Depth', 'Test min/PR', 'TTM p95', 'Runs/PR'] };

/** How a column's figures read: a fixed number of decimals, or a duration (its ± in the unit of its mean). */
type Format = (x: number, mean?: number) => string;
function formatterOf(c: Column): Format {
  const digits = c.digits;
  if (digits !== 'duration') return (x) => x.toFixed(digits);
  return (x, mean) => durationIn(x, durationUnit([mean ?? x]));
}

/** `12.3 ±0.4` (the 95% interval reaches that far above the mean), or `n/a`. */
export function formatEstimate(e: Estimate, format: Format): string {
  if (e.mean === null) return 'n/a';
  if (e.hi === null) return format(e.mean);
  return `${format(e.mean)} ±${format(e.hi - e.mean, e.mean)}`;
}

/** Per column, the best displayed mean among rows that keep up, when two or more do (ties all marked). */
function bestTexts(all: RowResult[], formats: Format[]): Array<string | null> {
  const up = all.filter((r) => r.keepsUp);
  return SIMULATE_COLUMNS.map((c, i) => {
    const means = up.map((r) => c.get(r).mean).filter((x): x is number => x !== null);
    if (c.better === null || means.length < 2) return null;
    return (formats[i] as Format)(c.better === 'high' ? Math.max(...means) : Math.min(...means));
  });
}

export const WITHIN_ERROR = "within the model's error";

export function rowLabel(r: RowResult): string {
  const notes = [...(r.keepsUp ? [] : ['falls behind']), ...(r.withinModelError ? [WITHIN_ERROR] : [])];
  return notes.length === 0 ? r.label : `${r.label} (${notes.join('; ')})`;
}

/** Table rows; the best value of each column carries a `*` (and is bold/green on a terminal). */
export function simulateRows(result: SimulateResult, mark?: Paint): Row[] {
  const formats = SIMULATE_COLUMNS.map(formatterOf);
  const best = bestTexts(result.results, formats);
  return result.results.map((r) => [
    rowLabel(r),
    ...SIMULATE_COLUMNS.map((c, i): Cell => {
      const e = c.get(r);
      const format = formats[i] as Format;
      const text = formatEstimate(e, format);
      const isBest = best[i] !== null && e.mean !== null && r.keepsUp && format(e.mean) === best[i];
      return isBest ? { value: `${text} *`, ...(mark ? { paint: mark } : {}) } : { value: text };
    }),
  ]);
}

/** Whether a table with whole settings labels fits `width` once the secondary figures are dropped. */
function labelsFit(headers: string[], rows: Row[], width: number): boolean {
  const text = (c: Row[number] | undefined) => safeLine(typeof c === 'string' ? c : (c?.value ?? ''));
  const natural = headers.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(text(r[i])))));
  const { widths } = fitColumns(headers, natural, SIMULATE_FIT, width);
  return tableWidth(widths) <= width;
}

/** The terminal table: whole labels if they fit `width`, else numbered rows with a settings legend. */
export function simulateTable(
  result: SimulateResult,
  width?: number,
  mark?: Paint,
): { headers: string[]; rows: Row[]; legend: string[] } {
  const rows = simulateRows(result, mark);
  if (width === undefined || labelsFit(SIMULATE_HEADERS, rows, width))
    return { headers: SIMULATE_HEADERS, rows, legend: [] };
  const legend = result.results.flatMap((r, i) => {
    const tag = `${i + 1}  `;
    return wrapToWidth(safeLine(rowLabel(r)), Math.max(10, width - tag.length)).map(
      (l, k) => `${k === 0 ? tag : ' '.repeat(tag.length)}${l}`,
    );
  });
  return {
    headers: ['#', ...SIMULATE_HEADERS.slice(1)],
    rows: rows.map((r, i) => [String(i + 1), ...r.slice(1)]),
    legend,
  };
}

export function inputsLine(result: SimulateResult): string {
  const i = result.inputs;
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const shape = i.fitted?.arrivalsShape;
  const by = shape === 'hour-of-week' ? ' (by hour of the week)' : shape === 'hour-of-day' ? ' (by hour of day)' : '';
  return [
    `${i.fitted ? 'fitted from history: ' : ''}${Math.round(i.arrivalsPerHour * 100) / 100} PRs/h${by}`,
    `tests ${Math.round(i.testMinutes * 10) / 10}m (spread ${pct(i.testTimeSpread)})`,
    `${pct(i.failureRate)} break the build`,
    `${pct(i.flakeRate)} flaky runs`,
    `${Math.round(i.durationHours * 10) / 10}h x ${i.runs} runs`,
    `seed ${i.seed}`,
    i.ciCapacity === null ? 'CI capacity unlimited' : `CI capacity ${i.ciCapacity} runs`,
    `baseline: ${i.baseline === 'queue' ? 'queue settings' : 'service defaults'}`,
  ].join(', ');
}

const relPct = (x: number | null | undefined) => (x == null ? 'n/a' : `${Math.round(x * 1000) / 10}%`);

/** --from-history: what the fit read, one line (the fitted workload is in the inputs line); none without it. */
export function historyLines(result: SimulateResult): string[] {
  const f = result.inputs.fitted;
  if (!f || !result.backtest) return [];
  const s = f.samples;
  const shape =
    f.arrivalsShape === 'hour-of-week'
      ? 'by hour of the week'
      : f.arrivalsShape === 'hour-of-day'
        ? 'by hour of day'
        : 'flat';
  return [
    `history read: ${f.window.since} to ${f.window.until} (${Math.round(f.window.hours * 10) / 10}h), ` +
      `${s.prs} merged or failed PRs, ${s.runs} finished test runs (cancelled ones left out); ` +
      `PRs that failed on their own (not merged on that commit): ${s.prsWithOwnFailure - (s.flakyPrs ?? 0)}, ` +
      `only by flakes (passed or merged later on it): ${s.flakyPrs ?? 'n/a'}; ` +
      `flaky runs: ${s.flakyRuns}; arrivals ${shape}`,
  ];
}

export const BACKTEST_HEADERS = ['Backtest', 'Measured', 'Simulated', 'Error'];
const BACKTEST_ROWS: Array<[keyof BacktestFigures, string, string, number | 'duration']> = [
  ['mergedPerHour', 'merged_per_hour', 'Merged/h', 2],
  ['timeToMergeP50', 'ttm_p50', 'TTM p50', 'duration'],
  ['timeToMergeP95', 'ttm_p95', 'TTM p95', 'duration'],
  ['runsPerMergedPr', 'runs_per_merged', 'Runs/PR', 2],
  ['testMinutesPerMergedPr', 'test_min_per_merged', 'Test min/PR', 1],
  ['meanDepth', 'mean_depth', 'Depth', 1],
  ['failedPerDayReal', 'failed_real_per_day', 'Failed/d real', 1],
  ['failedPerDayFlaky', 'failed_flaky_per_day', 'Failed/d flaky', 1],
];

/** --from-history: the backtest as table rows (figure, measured, simulated, error in percent), in the table's units. */
export function backtestRows(result: SimulateResult): string[][] {
  const b = result.backtest;
  if (!b) return [];
  return BACKTEST_ROWS.map(([key, , label, digits]) => {
    const m = b.measured[key] ?? null;
    const sim = b.simulated[key] ?? null;
    const unit = durationUnit([m, sim]);
    const f = (x: number | null) =>
      x === null ? 'n/a' : digits === 'duration' ? durationIn(x, unit) : x.toFixed(digits);
    return [label, f(m), f(sim), relPct(b.error[key])];
  });
}

export const BACKTEST_NOTE =
  "backtest: the window replayed with the queue's settings, against what it measured " +
  '(error = |simulated - measured| / measured); ' +
  `a row closer to the baseline than the errors of merged/h and TTM p50 is ${WITHIN_ERROR}, not a result`;

/** What the table's marks and figures mean, wrapped to `width` when given. */
export function simulateLegend(result: SimulateResult, width?: number): string[] {
  const up = result.results.filter((r) => r.keepsUp).length;
  const best =
    up >= 2
      ? `* = best in column among the ${up} rows that keep up (a row that falls behind is never marked)`
      : `no * (best in column): ${up === 1 ? 'only one row keeps up' : 'no row keeps up'}, and a row that ` +
        `falls behind is never marked`;
  const lines = ['mean ±half-width of the 95% interval over runs; TTM = time from submission to merge', best];
  return width === undefined ? lines : lines.flatMap((l) => wrapToWidth(l, width));
}

/** `mq queue simulate` piped: estimates, then tagged lines for rows within the model's error, backtest, advice. */
export const SIMULATE_PLAIN = {
  estimate: plainColumns('one line per row and figure', ['row', 'figure', 'mean', 'lo', 'hi']),
  withinError: plainColumns(
    "then one line per row closer to the baseline than the model's error",
    ['row'],
    'within_model_error',
  ),
  backtest: plainColumns(
    'with --from-history, one line per backtested figure',
    ['figure', 'measured', 'simulated', 'error'],
    'backtest',
  ),
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
    for (const [key, figure] of BACKTEST_ROWS) {
      if (b.measured[key] === undefined && b.simulated[key] === undefined) continue;
      out.push(
        P.backtest.row({
          figure,
          measured: raw(b.measured[key]),
          simulated: raw(b.simulated[key]),
          error: raw(b.error[key]),
        }),
      );
    }
  }
  out.push(P.recommendation.row({ row: result.recommendation.label, text: result.recommendation.text }));
  return out;
}

/** The plain lines as text (tab-joined), as `-o plain` prints them. */
export function simulatePlainLines(result: SimulateResult): string[] {
  return simulatePlainRows(result).map((r) => r.map((c) => (typeof c === 'string' ? c : c.value)).join('\t'));
}
