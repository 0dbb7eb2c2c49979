/**
 * `mq queue stats --html`: one self-contained page (no scripts, nothing loaded from elsewhere) with
 * the figures in their groups and two SVG charts with axes: merges per hour on a UTC time axis with
 * the settings' ceiling as a dashed line, and the time-to-merge histogram with its bin edges.
 */
import type { QueueStats, StatsSeries } from '../stats/compute.js';
import { formatDuration } from '../util/duration.js';
import { EMPTY_NOTE, escapeHtml, histogram, leadingGapNote, niceTop, rateText, tickLabel, timeTicks } from './charts.js';

export interface ReportMeta {
  /** e.g. `main of github.com/acme/widgets` (service-provided parts are escaped here). */
  queue: string;
  generatedAt: string;
}

export interface FigureGroup {
  /** null: the figures above the groups (the window). */
  title: string | null;
  figures: Array<[string, string]>;
}

const W = 720;
const H = 240;
const LEFT = 56;
const RIGHT = 36;
const TOP = 24;
const BOTTOM = 44;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;
const HOUR = 3_600_000;
/** Pixels a tick label may take (6 characters of 11 px text) plus a gap. */
const LABEL_PX = 60;

const n1 = (x: number) => x.toFixed(1);
const text = (cls: string, x: number, y: number, body: string, anchor = 'middle') =>
  `<text class="${cls}" x="${n1(x)}" y="${n1(y)}" text-anchor="${anchor}">${escapeHtml(body)}</text>`;

/** The frame of a chart: y gridlines with labels at 0, half (a whole number, for counts) and top, and the x axis line. */
function frame(top: number, unit: string): string {
  const y = (v: number) => TOP + PLOT_H - (PLOT_H * v) / top;
  const marks = [0, top / 2, top]
    .filter((v) => unit !== '' || Number.isInteger(v))
    .map(
      (v) =>
        `<line class="grid" x1="${LEFT}" y1="${n1(y(v))}" x2="${W - RIGHT}" y2="${n1(y(v))}"/>${text('y-label', LEFT - 6, y(v) + 4, `${rateText(v)}${unit}`, 'end')}`,
    )
    .join('');
  return `${marks}<line class="axis" x1="${LEFT}" y1="${TOP + PLOT_H}" x2="${W - RIGHT}" y2="${TOP + PLOT_H}"/>`;
}

function svg(id: string, title: string, body: string): string {
  return `<svg id="${id}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}">${body}</svg>`;
}

function mergesSvg(stats: QueueStats, series: StatsSeries): string {
  const title = 'Merges per hour (UTC)';
  if (series.firstAt === null) return `<figure><figcaption>${title}</figcaption><p class="note">${escapeHtml(EMPTY_NOTE)}</p></figure>`;
  const until = Date.parse(stats.window.until);
  const since = series.mergesPerHour[0]?.start ?? until;
  const ceiling = stats.ceilingPerHour;
  const counts = series.mergesPerHour.map((b) => b.count);
  const top = niceTop(Math.max(0, ceiling ?? 0, ...counts));
  const y = (v: number) => TOP + PLOT_H - (PLOT_H * v) / top;
  const bw = PLOT_W / Math.max(1, counts.length);
  const hourLabel = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
  const bars = series.mergesPerHour
    .map(
      (b, i) =>
        `<rect class="bar" x="${n1(LEFT + i * bw)}" y="${n1(y(b.count))}" width="${n1(Math.max(1, bw - 1))}" height="${n1(TOP + PLOT_H - y(b.count))}" data-value="${b.count}"><title>${escapeHtml(hourLabel(b.start))}: ${b.count}</title></rect>`,
    )
    .join('');
  const xOf = (t: number) => LEFT + ((t - since) / HOUR) * bw;
  const ticks = timeTicks(since, until, Math.ceil(LABEL_PX / bw))
    .filter((t) => xOf(t) >= LEFT + LABEL_PX / 2 && xOf(t) <= W - RIGHT - LABEL_PX / 2)
    .map(
      (t) =>
        `<line class="tick" x1="${n1(xOf(t))}" y1="${TOP + PLOT_H}" x2="${n1(xOf(t))}" y2="${TOP + PLOT_H + 5}"/>${text('tick-label', xOf(t), TOP + PLOT_H + 18, tickLabel(t))}`,
    )
    .join('');
  const start = text('tick-label edge', LEFT, TOP + PLOT_H + 34, `from ${hourLabel(since)}`, 'start');
  const end = text('tick-label edge', W - RIGHT, TOP + PLOT_H + 34, `to ${hourLabel(until)} UTC`, 'end');
  const gap = leadingGapNote(series, until);
  const shade =
    gap && series.firstAt !== null
      ? `<rect class="nodata" x="${LEFT}" y="${TOP}" width="${n1(Math.max(0, xOf(series.firstAt) - LEFT))}" height="${PLOT_H}"/>`
      : '';
  const ceilingLine =
    ceiling === null
      ? ''
      : `<line class="ceiling" x1="${LEFT}" y1="${n1(y(ceiling))}" x2="${W - RIGHT}" y2="${n1(y(ceiling))}"/>${text('ceiling-label', W - RIGHT, y(ceiling) - 5, `ceiling ${rateText(ceiling)}/h (settings)`, 'end')}`;
  const body = `${shade}${frame(top, '/h')}${bars}${ticks}${start}${end}${ceilingLine}`;
  const note = gap ? `<p class="note">${escapeHtml(gap)}</p>` : '';
  return `<figure><figcaption>${title}</figcaption>${svg('merges-per-hour', title, body)}${note}</figure>`;
}

function timeToMergeSvg(series: StatsSeries): string {
  const title = 'Time to merge (merged PRs per range)';
  const bins = histogram(series.timeToMergeSeconds);
  if (bins.length === 0) return `<figure><figcaption>${title}</figcaption><p class="note">no merged PRs in this window</p></figure>`;
  const top = niceTop(Math.max(1, ...bins.map((b) => b.count)));
  const y = (v: number) => TOP + PLOT_H - (PLOT_H * v) / top;
  const bw = PLOT_W / bins.length;
  const rects = bins
    .map((b, i) => {
      const x = LEFT + i * bw;
      const label = `${formatDuration(b.from * 1000)}–${formatDuration(b.to * 1000)}`;
      const count = b.count > 0 ? text('count', x + bw / 2, y(b.count) - 4, String(b.count)) : '';
      return `<rect class="bin" x="${n1(x)}" y="${n1(y(b.count))}" width="${n1(Math.max(1, bw - 2))}" height="${n1(TOP + PLOT_H - y(b.count))}" data-value="${b.count}"><title>${escapeHtml(label)}: ${b.count}</title></rect>${count}`;
    })
    .join('');
  // A label on each bin edge (every other one when they would crowd).
  const every = bw >= LABEL_PX ? 1 : Math.ceil(LABEL_PX / bw);
  const edges = [...bins.map((b) => b.from), (bins.at(-1) as { to: number }).to]
    .map((s, i) => (i % every === 0 ? `${text('bin-label', LEFT + i * bw, TOP + PLOT_H + 18, formatDuration(s * 1000))}` : ''))
    .join('');
  return `<figure><figcaption>${title}</figcaption>${svg('time-to-merge', title, `${frame(top, '')}${rects}${edges}`)}</figure>`;
}

const STYLE = [
  'body{font:14px system-ui,sans-serif;margin:2em;color:#222}',
  'table{border-collapse:collapse}th,td{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}',
  'th.group{padding-top:12px;font-size:15px;border-bottom:2px solid #999}',
  '.bar{fill:#3b7dd8}.bin{fill:#d8833b}.grid{stroke:#e4e4e4}.axis,.tick{stroke:#888}',
  '.ceiling{stroke:#c0392b;stroke-width:2;stroke-dasharray:6 4}.ceiling-label{fill:#c0392b;paint-order:stroke;stroke:#fff;stroke-width:3px}.nodata{fill:#f2f2f2}',
  'text{font-size:11px;fill:#444}.note{color:#666;font-style:italic}',
  'figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:4px}',
].join('');

/** One self-contained HTML page: the figures in their groups and the two charts as inline SVG. */
export function htmlReport(stats: QueueStats, series: StatsSeries, meta: ReportMeta, groups: FigureGroup[]): string {
  const rows = groups
    .map((g) => {
      const head = g.title === null ? '' : `<tr><th colspan="2" class="group">${escapeHtml(g.title)}</th></tr>`;
      return `<tbody>${head}${g.figures.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</tbody>`;
    })
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Merge queue statistics: ${escapeHtml(meta.queue)}</title>
<style>${STYLE}</style>
</head><body>
<h1>Merge queue statistics</h1>
<p>${escapeHtml(meta.queue)}: ${escapeHtml(stats.window.since)} to ${escapeHtml(stats.window.until)} (made ${escapeHtml(meta.generatedAt)})</p>
<table>${rows}</table>
${mergesSvg(stats, series)}
${timeToMergeSvg(series)}
</body></html>
`;
}
