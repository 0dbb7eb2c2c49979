// The --html report: one self-contained page (inline CSS/SVG, no scripts): a bar chart per figure
// with 95% whiskers, and each row's time-to-merge CDF.
import { durationUnit } from '../util/duration.js';
import type { FittedInputs, RowResult, SimulateResult } from './result.js';
import type { Estimate } from './stats.js';

const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280', '#2c7a7b', '#975a16', '#4a5568'];
const color = (i: number) => COLORS[i % COLORS.length] as string;

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
const n = (x: number) => (Math.round(x * 10) / 10).toString();

interface Chart {
  title: string;
  unit: string;
  get: (r: RowResult) => Estimate;
  /** Seconds, drawn in minutes or hours as the table shows them. */
  duration?: boolean;
}

const CHARTS: Chart[] = [
  { title: 'Merges per hour', unit: 'PRs/h', get: (r) => r.mergedPerHour },
  { title: 'Time to merge, p50', unit: 'minutes', get: (r) => r.timeToMerge.p50, duration: true },
  { title: 'Time to merge, p95', unit: 'minutes', get: (r) => r.timeToMerge.p95, duration: true },
  { title: 'CI runs per merged PR', unit: 'runs', get: (r) => r.runsPerMergedPr },
  { title: 'Test minutes per merged PR', unit: 'minutes', get: (r) => r.testMinutesPerMergedPr },
  { title: 'Mean queue depth', unit: 'PRs', get: (r) => r.meanDepth },
  { title: 'Good PRs failed by flakes per day', unit: 'PRs/day', get: (r) => r.failedPerDay.flaky },
  { title: 'Breaking PRs failed per day', unit: 'PRs/day', get: (r) => r.failedPerDay.real },
];

function barChart(chart: Chart, rows: RowResult[]): string {
  const W = 360;
  const H = 200;
  const left = 44;
  const bottom = 24;
  const top = 10;
  const vals = rows.map((r) => chart.get(r));
  const inHours = chart.duration && durationUnit(vals.map((v) => v.mean)) === 'hours';
  const s = chart.duration ? (inHours ? 1 / 3600 : 1 / 60) : 1;
  const unit = chart.duration ? (inHours ? 'hours' : 'minutes') : chart.unit;
  const max = Math.max(1e-9, ...vals.map((v) => (v.hi ?? v.mean ?? 0) * s));
  const plotH = H - top - bottom;
  const slot = (W - left - 8) / Math.max(1, rows.length);
  const y = (v: number) => top + plotH - (Math.max(0, v) / max) * plotH;
  const parts: string[] = [];
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${W - 4}" y2="${top + plotH}" stroke="#999"/>`);
  for (const f of [0, 0.5, 1]) {
    const v = max * f;
    parts.push(`<text x="${left - 4}" y="${n(y(v) + 4)}" text-anchor="end" class="tick axis">${esc(n(v))}</text>`);
  }
  vals.forEach((v, i) => {
    const x = left + i * slot + slot * 0.15;
    const w = slot * 0.7;
    const mean = (v.mean ?? 0) * s;
    parts.push(
      `<rect class="bar" x="${n(x)}" y="${n(y(mean))}" width="${n(w)}" ` +
        `height="${n(top + plotH - y(mean))}" ` +
        `fill="${color(i)}"><title>${esc((rows[i] as RowResult).label)}: ${esc(n(mean))} ${esc(unit)}</title></rect>`,
    );
    if (v.lo !== null && v.hi !== null) {
      const cx = x + w / 2;
      parts.push(
        `<line class="ci" x1="${n(cx)}" y1="${n(y(v.lo * s))}" x2="${n(cx)}" y2="${n(y(v.hi * s))}" stroke="#000"/>`,
      );
    }
    parts.push(`<text x="${n(x + w / 2)}" y="${H - 8}" text-anchor="middle" class="tick axis">${i + 1}</text>`);
  });
  return (
    `<figure><figcaption>${esc(chart.title)} <span class="unit">(${esc(unit)})</span></figcaption>` +
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${parts.join('')}</svg></figure>`
  );
}

function cdfChart(rows: RowResult[]): string {
  const W = 740;
  const H = 300;
  const left = 44;
  const bottom = 30;
  const top = 10;
  const plotW = W - left - 36;
  const plotH = H - top - bottom;
  const all = rows.flatMap((r) => r.timeToMerge.distribution.filter((x): x is number => x !== null));
  const unit = durationUnit(all);
  const per = unit === 'hours' ? 3600 : 60;
  const maxMin = Math.max(unit === 'hours' ? 0.1 : 1, ...all.map((s) => s / per));
  const x = (min: number) => left + (min / maxMin) * plotW;
  const y = (p: number) => top + plotH - p * plotH;
  const parts: string[] = [
    `<line x1="${left}" y1="${top + plotH}" x2="${W - 8}" y2="${top + plotH}" stroke="#999"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#999"/>`,
  ];
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<text x="${n(x(maxMin * f))}" y="${H - 12}" text-anchor="middle" class="tick axis">${esc(n(maxMin * f))}</text>`,
    );
    parts.push(`<text x="${left - 4}" y="${n(y(f) + 4)}" text-anchor="end" class="tick axis">${f * 100}%</text>`);
  }
  rows.forEach((r, i) => {
    const pts = r.timeToMerge.points
      .map((p, k) => [r.timeToMerge.distribution[k], p] as const)
      .filter((pt): pt is readonly [number, number] => pt[0] !== null && pt[0] !== undefined);
    if (pts.length === 0) return;
    parts.push(
      `<polyline class="cdf" fill="none" stroke="${color(i)}" stroke-width="2" ` +
        `points="${pts.map(([s, p]) => `${n(x(s / per))},${n(y(p))}`).join(' ')}"/>`,
    );
    for (const [s, p] of pts)
      parts.push(`<circle class="pt" cx="${n(x(s / per))}" cy="${n(y(p))}" r="2.5" fill="${color(i)}"/>`);
  });
  return (
    '<figure class="wide"><figcaption>Time to merge distribution <span class="unit">' +
    `(share of merged PRs merged within x ${unit} of submission; mean quantiles over runs)</span></figcaption>` +
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${parts.join('')}</svg></figure>`
  );
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** --from-history: the fitted workload, one row per input. */
function fittedTable(f: FittedInputs): string {
  const s = f.samples;
  const rows: Array<[string, string]> = [
    ['Window', `${f.window.since} to ${f.window.until} (${n(f.window.hours)} h)`],
    ['Read', `${s.prs} merged or failed PRs (${s.failed} failed), ${s.runs} test runs`],
    ['Arrivals', `${f.arrivalsPerHour.toFixed(2)} PRs/h, ${f.arrivalsShape}`],
    ['Test time', `${f.testMinutes.toFixed(1)} min, spread ${pct(f.testTimeSpread)}`],
    ['Fail on their own', `${pct(f.failureRate)} of PRs (not merged on the commit that failed)`],
    ['Flaky runs', `${pct(f.flakeRate)} of runs (failed, then passed or merged on the same commit)`],
  ];
  return htmlTable(
    ['Fitted input', 'Value'],
    rows.map(([k, v]) => [k, v]),
  );
}

/** --from-history: the lines saying what was read, the backtest table (HTML) and its note. */
/** The page's stylesheet, one line per rule group. */
const STYLE = [
  'body{font-family:sans-serif;margin:24px;color:#1a202c;background:#fff}',
  'h1{font-size:20px} h2{font-size:16px} p.note{font-size:12px;color:#555} ' +
    'figure{display:inline-block;margin:8px;vertical-align:top} figure.wide{display:block}',
  'figcaption{font-size:13px;font-weight:bold;margin-bottom:4px} .unit{font-weight:normal;color:#555}',
  '.tick{font-size:10px;fill:#444} ul.legend{list-style:none;padding:0} ul.legend li{margin:2px 0;font-size:13px}',
  '.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}',
  'table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ccc;padding:3px 6px;text-align:right} ' +
    'td:first-child,th:first-child{text-align:left}',
  'p.rec{font-size:14px;background:#f0fff4;border-left:4px solid #2f855a;padding:8px}',
].join('\n');

export interface HtmlHistory {
  lines: string[];
  backtest: string;
  note: string;
}

/** `legend`: what the table's marks mean, one paragraph each under it. */
export function renderHtml(
  result: SimulateResult,
  inputsText: string,
  tableHtml: string,
  legend: string[] = [],
  history?: HtmlHistory,
): string {
  const fitted = result.inputs.fitted;
  const fit =
    history && fitted
      ? `<h2>Fitted from history</h2>\n${fittedTable(fitted)}\n` +
        `${history.lines.map((l) => `<p>${esc(l)}</p>`).join('')}\n` +
        `<h2>Backtest</h2>\n${history.backtest}\n<p class="note">${esc(history.note)}</p>\n`
      : '';
  const swatches = result.results
    .map(
      (r, i) =>
        `<li><span class="swatch" ` +
        `style="background:${color(i)}"></span>${i + 1}. ${esc(r.label)}${r.keepsUp ? '' : ' (falls behind)'}</li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mq queue simulate</title>
<style>
${STYLE}
</style></head><body>
<h1>Merge queue simulation</h1>
<p>${esc(inputsText)}</p>
<p class="rec">${esc(result.recommendation.text)}</p>
${fit}<h2>Settings compared</h2>
<ul class="legend">${swatches}</ul>
${tableHtml}
${legend.map((l) => `<p class="note">${esc(l)}</p>`).join('')}
<div>${CHARTS.map((c) => barChart(c, result.results)).join('\n')}</div>
${cdfChart(result.results)}
<p class="tick">Bars: mean over runs; whiskers: 95% interval. Generated by mq queue simulate.</p>
</body></html>
`;
}

/** A plain HTML table of cells (already formatted text). */
export function htmlTable(headers: string[], rows: string[][]): string {
  return `<table><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}
