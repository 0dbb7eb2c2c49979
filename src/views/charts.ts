// Queue-statistics charts for a terminal, and the bins, ticks and scales the HTML report shares.
import type { QueueStats, StatsSeries } from '../stats/compute.js';
import { wrapToWidth } from '../output/render.js';
import { formatDuration } from '../util/duration.js';

const LEVELS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** Sums consecutive values so that at most `width` remain (each group covers the same number of inputs). */
export function fitToWidth(values: number[], width: number): { values: number[]; per: number } {
  const w = Math.max(1, Math.floor(width));
  if (values.length <= w) return { values: [...values], per: 1 };
  const per = Math.ceil(values.length / w);
  const out: number[] = [];
  for (let i = 0; i < values.length; i += per) out.push(values.slice(i, i + per).reduce((a, b) => a + b, 0));
  return { values: out, per };
}

export interface Bin {
  /** Seconds, inclusive. */
  from: number;
  /** Seconds, exclusive (the last bin includes its end). */
  to: number;
  count: number;
}

const NICE_STEPS = [
  1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
];

/** Equal-width bins over ascending durations (seconds), at most `bins`, on round boundaries (5m, 10m, 1h, …). */
export function histogram(sortedSeconds: number[], bins = 8): Bin[] {
  if (sortedSeconds.length === 0) return [];
  const min = sortedSeconds[0] as number;
  const max = sortedSeconds[sortedSeconds.length - 1] as number;
  const want = Math.max(1, (max - min) / bins);
  let step = NICE_STEPS.find((s) => s >= want) ?? Math.ceil(want / 604_800) * 604_800;
  let start = Math.floor(min / step) * step;
  // Rounding the start down may need one bin more than asked; widen the step instead.
  const count = () => Math.max(1, Math.ceil((max - start) / step));
  // The last bin includes its end, so a maximum on a boundary needs no extra bin.
  while (count() > bins) {
    step = NICE_STEPS.find((s) => s > step) ?? step * 2;
    start = Math.floor(min / step) * step;
  }
  const n = count();
  const out: Bin[] = Array.from({ length: n }, (_, i) => ({
    from: start + i * step,
    to: start + (i + 1) * step,
    count: 0,
  }));
  for (const s of sortedSeconds) (out[Math.min(n - 1, Math.floor((s - start) / step))] as Bin).count += 1;
  return out;
}

export const binLabel = (b: Bin) => `${formatDuration(b.from * 1000)}–${formatDuration(b.to * 1000)}`;

const HOUR = 3_600_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
const day = (d: Date) => `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;

/** A tick's label: the date at a UTC midnight (`Nov 20`), else the hour (`06:00`); at most 6 cells. */
export function tickLabel(t: number): string {
  const d = new Date(t);
  return d.getUTCHours() === 0 && d.getUTCMinutes() === 0 ? day(d) : hhmm(d);
}

/** `Nov 21 06:00 UTC`, for notes. */
export function whenLabel(t: number): string {
  const d = new Date(t);
  return `${day(d)} ${hhmm(d)} UTC`;
}

const TICK_HOURS = [1, 2, 3, 6, 12, 24, 48, 168, 336, 720];

/** Round UTC times (whole hours, or midnights) in [since, until), at least `minHours` apart. */
export function timeTicks(since: number, until: number, minHours: number): number[] {
  const step = (TICK_HOURS.find((h) => h >= minHours) ?? Math.ceil(minHours / 24) * 24) * HOUR;
  const out: number[] = [];
  for (let t = Math.ceil(since / step) * step; t < until; t += step) out.push(t);
  return out;
}

const NICE = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The smallest round number (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k) at least `x`. */
export function niceTop(x: number): number {
  if (!(x > 0)) return 1;
  const e = 10 ** Math.floor(Math.log10(x));
  return (NICE.find((n) => n * e >= x * (1 - 1e-9)) ?? 10) * e;
}

/** A rate without float noise: `11.25`, `0.5`, `14`. */
export const rateText = (n: number) => String(Math.round(n * 100) / 100);

/** A note when nothing happened early in the window (at least 2 h and a tenth of it). */
export function leadingGapNote(series: StatsSeries, until: number): string | null {
  const since = series.mergesPerHour[0]?.start ?? until;
  if (series.firstAt === null) return null;
  const gap = series.firstAt - since;
  if (gap < 2 * HOUR || gap < (until - since) / 10) return null;
  return `no data before ${whenLabel(series.firstAt)}: nothing left the queue earlier in the window`;
}

export const EMPTY_NOTE = 'no PRs in this window: none left the queue and no test run ended';

/** Chart rows of the terminal's merges-per-hour chart. */
const ROWS = 4;

/** Merges per hour on a terminal: rows of blocks on a per-hour scale, the ceiling dashed, a UTC time axis. */
function mergesChart(series: StatsSeries, ceiling: number | null, until: number, w: number): string[] {
  const counts = series.mergesPerHour.map((b) => b.count);
  const since = series.mergesPerHour[0]?.start ?? until;
  if (series.firstAt === null) return wrapToWidth(`merges per hour: ${EMPTY_NOTE}`, w);
  // Two passes: the label column's width depends on the scale, the scale on how many hours a column holds.
  let labelWidth = 6;
  let layout = columnsFor(counts, ceiling, w - labelWidth - 2);
  labelWidth = Math.max(1, `${rateText(layout.top)}/h`.length);
  layout = columnsFor(counts, ceiling, w - labelWidth - 2);
  const { rates, per, cw, top } = layout;
  const topLabel = `${rateText(top)}/h`.slice(-labelWidth).padStart(labelWidth);
  const peak = Math.max(0, ...rates);
  const unit = per > 1 ? `UTC, a column per ${per} h` : 'UTC';
  const lines = wrapToWidth(`merges per hour (${unit}): peak ${rateText(peak)}/h`, w);
  if (ceiling !== null) lines.push(...wrapToWidth(`┄ ceiling of the settings: ${rateText(ceiling)}/h`, w));
  const ceilingRow = ceiling === null ? -1 : Math.min(ROWS - 1, Math.max(0, ROWS - Math.ceil((ceiling / top) * ROWS)));
  const empty = (r: number) => (r === ceilingRow ? '┄' : ' ');
  for (let r = 0; r < ROWS; r++) {
    const cells = rates.map((v) => {
      // How much of this row the column fills, 0..1, in eighths.
      const fill = Math.min(1, (v / top) * ROWS - (ROWS - 1 - r));
      return (fill <= 0 ? empty(r) : (LEVELS[Math.min(7, Math.ceil(fill * 8) - 1)] as string)).repeat(cw);
    });
    const label = r === 0 ? `${topLabel} ┤` : `${' '.repeat(labelWidth)} │`;
    lines.push(`${label}${cells.join('')}`.trimEnd());
  }
  // The time axis: a tick mark and a label per round hour or midnight, labels never touching.
  const chartWidth = rates.length * cw;
  const ticks = timeTicks(since, until, Math.ceil((7 * per) / cw));
  const axis = Array.from({ length: chartWidth }, () => '─');
  let text = '';
  for (const t of ticks) {
    const at = Math.floor(((t - since) / HOUR / per) * cw);
    const label = tickLabel(t);
    if (at >= chartWidth || at < text.length + (text === '' ? 0 : 1) || at + label.length > chartWidth) continue;
    axis[at] = '┬';
    text = `${text.padEnd(at)}${label}`;
  }
  if (text === '') {
    // No round hour fits: the window's start, to the minute.
    text = tickLabel(Math.ceil(since / 60_000) * 60_000).slice(0, chartWidth);
    axis[0] = '┬';
  }
  lines.push(`${'0'.padStart(labelWidth)} └${axis.join('')}`, `${' '.repeat(labelWidth + 2)}${text}`);
  const gap = leadingGapNote(series, until);
  if (gap) lines.push(...wrapToWidth(gap, w));
  return lines;
}

/** Hours summed into at most `room` columns (each up to 8 cells wide when there is room), as merges per hour. */
function columnsFor(counts: number[], ceiling: number | null, room: number) {
  const fitted = fitToWidth(counts, Math.max(1, room));
  const cw = Math.max(1, Math.min(8, Math.floor(room / Math.max(1, fitted.values.length))));
  const rates = fitted.values.map((v) => v / fitted.per);
  return { rates, per: fitted.per, cw, top: niceTop(Math.max(0, ceiling ?? 0, ...rates)) };
}

/** The terminal charts, every line at most `width` columns. */
export function terminalCharts(stats: QueueStats, series: StatsSeries, width: number): string[] {
  const w = Math.max(20, Math.floor(width));
  const lines = mergesChart(series, stats.ceilingPerHour, Date.parse(stats.window.until), w);
  const bins = histogram(series.timeToMergeSeconds);
  if (bins.length > 0) {
    lines.push('', ...wrapToWidth('time to merge (merged PRs per range)', w));
    const labels = bins.map(binLabel);
    const labelWidth = Math.max(...labels.map((l) => l.length));
    const countWidth = Math.max(...bins.map((b) => String(b.count).length));
    const room = Math.max(1, w - labelWidth - countWidth - 3);
    const most = Math.max(1, ...bins.map((b) => b.count));
    bins.forEach((b, i) => {
      const bar = '█'.repeat(Math.round((b.count / most) * room));
      lines.push(`${(labels[i] as string).padStart(labelWidth)} ${String(b.count).padStart(countWidth)} ${bar}`);
    });
  }
  return lines;
}

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
