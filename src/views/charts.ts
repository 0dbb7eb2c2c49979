/**
 * Pictures of the queue statistics: block-character charts for a terminal (fitting a width) and
 * one self-contained HTML page with the same charts as inline SVG (nothing loaded from elsewhere).
 */
import type { QueueStats, StatsSeries } from '../stats/compute.js';
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

/** One line of block characters, one per value (zero is a space, the largest a full block). */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (v <= 0 || max === 0 ? ' ' : LEVELS[Math.min(7, Math.max(0, Math.ceil((v / max) * 8) - 1))])).join('');
}

export interface Bin {
  /** Seconds, inclusive. */
  from: number;
  /** Seconds, exclusive (the last bin includes its end). */
  to: number;
  count: number;
}

const NICE_STEPS = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];

/** Equal-width bins over ascending durations (seconds), at most `bins` of them, on round boundaries (5m, 10m, 1h, …). */
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
  const out: Bin[] = Array.from({ length: n }, (_, i) => ({ from: start + i * step, to: start + (i + 1) * step, count: 0 }));
  for (const s of sortedSeconds) (out[Math.min(n - 1, Math.floor((s - start) / step))] as Bin).count += 1;
  return out;
}

const binLabel = (b: Bin) => `${formatDuration(b.from * 1000)}–${formatDuration(b.to * 1000)}`;

/** The terminal charts, every line at most `width` columns. */
export function terminalCharts(series: StatsSeries, width: number): string[] {
  const w = Math.max(20, Math.floor(width));
  const lines: string[] = [];
  const counts = series.mergesPerHour.map((b) => b.count);
  const title = 'merges per hour';
  const fitted = fitToWidth(counts, w - 2);
  const max = Math.max(0, ...fitted.values);
  lines.push(`${title}${fitted.per > 1 ? ` (one column per ${fitted.per} h)` : ''}, max ${max}`.slice(0, w));
  lines.push(`│${sparkline(fitted.values)}`);
  const bins = histogram(series.timeToMergeSeconds);
  if (bins.length > 0) {
    lines.push('time to merge');
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
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function barsSvg(id: string, title: string, values: number[], labels: string[], cls: string): string {
  const W = 720;
  const H = 200;
  const pad = 24;
  const max = Math.max(1, ...values);
  const bw = values.length > 0 ? (W - 2 * pad) / values.length : 0;
  const rects = values
    .map((v, i) => {
      const h = ((H - 2 * pad) * v) / max;
      const x = pad + i * bw;
      return `<rect class="${cls}" x="${x.toFixed(1)}" y="${(H - pad - h).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h.toFixed(1)}" data-value="${v}"><title>${escapeHtml(labels[i] ?? '')}: ${v}</title></rect>`;
    })
    .join('');
  return `<figure><figcaption>${escapeHtml(title)}</figcaption><svg id="${id}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}"><line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#888"/>${rects}<text x="${pad}" y="14" font-size="12">max ${max}</text></svg></figure>`;
}

export interface ReportMeta {
  /** e.g. `main of github.com/acme/widgets` (service-provided parts are escaped here). */
  queue: string;
  generatedAt: string;
}

/** One self-contained HTML page: the figures as a table and the two charts as inline SVG. */
export function htmlReport(stats: QueueStats, series: StatsSeries, meta: ReportMeta, figures: Array<[string, string]>): string {
  const hourLabels = series.mergesPerHour.map((b) => new Date(b.start).toISOString().slice(0, 16).replace('T', ' '));
  const bins = histogram(series.timeToMergeSeconds);
  const rows = figures.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Merge queue statistics: ${escapeHtml(meta.queue)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}th,td{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}.bar{fill:#3b7dd8}.bin{fill:#d8833b}figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:4px}</style>
</head><body>
<h1>Merge queue statistics</h1>
<p>${escapeHtml(meta.queue)}: ${escapeHtml(stats.window.since)} to ${escapeHtml(stats.window.until)} (made ${escapeHtml(meta.generatedAt)})</p>
<table>${rows}</table>
${barsSvg(
  'merges-per-hour',
  'Merges per hour',
  series.mergesPerHour.map((b) => b.count),
  hourLabels,
  'bar',
)}
${barsSvg(
  'time-to-merge',
  'Time to merge (PRs per range)',
  bins.map((b) => b.count),
  bins.map(binLabel),
  'bin',
)}
</body></html>
`;
}
