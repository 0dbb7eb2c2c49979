// `mq queue stats --html`: a self-contained page with the figures and two SVG charts (merges per hour
// with the settings' ceiling; the time-to-merge histogram).
import type { QueueStats, StatsSeries } from '../stats/compute.js';
import { formatDuration } from '../util/duration.js';
import {
  binLabel,
  EMPTY_NOTE,
  escapeHtml,
  histogram,
  leadingGapNote,
  niceTop,
  rateText,
  tickLabel,
  timeTicks,
} from './charts.js';

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

/** The x axis's height in the plot. */
const BASE = TOP + PLOT_H;

type Attrs = Record<string, string | number>;
const num = (v: string | number) => (typeof v === 'number' ? String(Math.round(v * 10) / 10) : v);

/** An SVG element: numbers to a tenth of a pixel; `body` is escaped by the caller. */
function el(tag: string, attrs: Attrs, body?: string): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${num(v)}"`)
    .join('');
  return body === undefined ? `<${tag}${a}/>` : `<${tag}${a}>${body}</${tag}>`;
}

const text = (cls: string, x: number, y: number, body: string, anchor = 'middle') =>
  el('text', { class: cls, x, y, 'text-anchor': anchor }, escapeHtml(body));
const across = (cls: string, y: number) => el('line', { class: cls, x1: LEFT, y1: y, x2: W - RIGHT, y2: y });
/** A bar from the axis up to `y`, its value and a tooltip. */
const bar = (cls: string, x: number, width: number, y: number, value: number, tip: string) =>
  el(
    'rect',
    { class: cls, x, y, width, height: BASE - y, 'data-value': value },
    el('title', {}, escapeHtml(`${tip}: ${value}`)),
  );
const figure = (title: string, body: string) => `<figure><figcaption>${title}</figcaption>${body}</figure>`;
const note = (words: string) => `<p class="note">${escapeHtml(words)}</p>`;

/** The frame of a chart: y gridlines labelled at 0, half (whole, for counts) and top; the x axis. */
function frame(top: number, unit: string): string {
  const y = (v: number) => BASE - (PLOT_H * v) / top;
  const marks = [0, top / 2, top]
    .filter((v) => unit !== '' || Number.isInteger(v))
    .map((v) => across('grid', y(v)) + text('y-label', LEFT - 6, y(v) + 4, `${rateText(v)}${unit}`, 'end'))
    .join('');
  return marks + across('axis', BASE);
}

function svg(id: string, title: string, body: string): string {
  const attrs = { id, xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img' };
  return el('svg', { ...attrs, 'aria-label': escapeHtml(title) }, body);
}

function mergesSvg(stats: QueueStats, series: StatsSeries): string {
  const title = 'Merges per hour (UTC)';
  if (series.firstAt === null) return figure(title, note(EMPTY_NOTE));
  const until = Date.parse(stats.window.until);
  const since = series.mergesPerHour[0]?.start ?? until;
  const ceiling = stats.ceilingPerHour;
  const counts = series.mergesPerHour.map((b) => b.count);
  const top = niceTop(Math.max(0, ceiling ?? 0, ...counts));
  const y = (v: number) => BASE - (PLOT_H * v) / top;
  const bw = PLOT_W / Math.max(1, counts.length);
  const hourLabel = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
  const bars = series.mergesPerHour.map((b, i) =>
    bar('bar', LEFT + i * bw, Math.max(1, bw - 1), y(b.count), b.count, hourLabel(b.start)),
  );
  const xOf = (t: number) => LEFT + ((t - since) / HOUR) * bw;
  const ticks = timeTicks(since, until, Math.ceil(LABEL_PX / bw))
    .filter((t) => xOf(t) >= LEFT + LABEL_PX / 2 && xOf(t) <= W - RIGHT - LABEL_PX / 2)
    .map(
      (t) =>
        el('line', { class: 'tick', x1: xOf(t), y1: BASE, x2: xOf(t), y2: BASE + 5 }) +
        text('tick-label', xOf(t), BASE + 18, tickLabel(t)),
    );
  const edges = [
    text('tick-label edge', LEFT, BASE + 34, `from ${hourLabel(since)}`, 'start'),
    text('tick-label edge', W - RIGHT, BASE + 34, `to ${hourLabel(until)} UTC`, 'end'),
  ];
  const gap = leadingGapNote(series, until);
  const shade =
    gap && series.firstAt !== null
      ? el('rect', { class: 'nodata', x: LEFT, y: TOP, width: Math.max(0, xOf(series.firstAt) - LEFT), height: PLOT_H })
      : '';
  const ceilingLine =
    ceiling === null
      ? ''
      : across('ceiling', y(ceiling)) +
        text('ceiling-label', W - RIGHT, y(ceiling) - 5, `ceiling ${rateText(ceiling)}/h (settings)`, 'end');
  const body = [shade, frame(top, '/h'), ...bars, ...ticks, ...edges, ceilingLine].join('');
  return figure(title, svg('merges-per-hour', title, body) + (gap ? note(gap) : ''));
}

function timeToMergeSvg(series: StatsSeries): string {
  const title = 'Time to merge (merged PRs per range)';
  const bins = histogram(series.timeToMergeSeconds);
  if (bins.length === 0) return figure(title, note('no merged PRs in this window'));
  const top = niceTop(Math.max(1, ...bins.map((b) => b.count)));
  const y = (v: number) => BASE - (PLOT_H * v) / top;
  const bw = PLOT_W / bins.length;
  const rects = bins.map((b, i) => {
    const x = LEFT + i * bw;
    const count = b.count > 0 ? text('count', x + bw / 2, y(b.count) - 4, String(b.count)) : '';
    return bar('bin', x, Math.max(1, bw - 2), y(b.count), b.count, binLabel(b)) + count;
  });
  // A label on each bin edge (every other one when they would crowd).
  const every = bw >= LABEL_PX ? 1 : Math.ceil(LABEL_PX / bw);
  const edges = [...bins.map((b) => b.from), (bins.at(-1) as { to: number }).to]
    .map((s, i) => (i % every === 0 ? text('bin-label', LEFT + i * bw, BASE + 18, formatDuration(s * 1000)) : ''))
    .join('');
  return figure(title, svg('time-to-merge', title, frame(top, '') + rects.join('') + edges));
}

const STYLE = [
  'body{font:14px system-ui,sans-serif;margin:2em;color:#222}',
  'table{border-collapse:collapse}th,td{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}',
  'th.group{padding-top:12px;font-size:15px;border-bottom:2px solid #999}',
  '.bar{fill:#3b7dd8}.bin{fill:#d8833b}.grid{stroke:#e4e4e4}.axis,.tick{stroke:#888}',
  '.ceiling{stroke:#c0392b;stroke-width:2;stroke-dasharray:6 4}' +
    '.ceiling-label{fill:#c0392b;paint-order:stroke;stroke:#fff;stroke-width:3px}.nodata{fill:#f2f2f2}',
  'text{font-size:11px;fill:#444}.note{color:#666;font-style:italic}',
  'figure{margin:1.5em 0}figcaption{font-weight:bold;margin-bottom:4px}',
].join('');

/** One self-contained HTML page: the figures in their groups and the two charts as inline SVG. */
export function htmlReport(stats: QueueStats, series: StatsSeries, meta: ReportMeta, groups: FigureGroup[]): string {
  const rows = groups
    .map((g) => {
      const head = g.title === null ? '' : `<tr><th colspan="2" class="group">${escapeHtml(g.title)}</th></tr>`;
      const cells = g.figures.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`);
      return `<tbody>${head}${cells.join('')}</tbody>`;
    })
    .join('');
  const period = `${escapeHtml(stats.window.since)} to ${escapeHtml(stats.window.until)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Merge queue statistics: ${escapeHtml(meta.queue)}</title>
<style>${STYLE}</style>
</head><body>
<h1>Merge queue statistics</h1>
<p>${escapeHtml(meta.queue)}: ${period} (made ${escapeHtml(meta.generatedAt)})</p>
<table>${rows}</table>
${mergesSvg(stats, series)}
${timeToMergeSvg(series)}
</body></html>
`;
}
