// `--fail-if` thresholds (`p95>2h`, `flakyShare>10%`, `runs.perMergedPr>=1.5`): a `queue stats` JSON
// path (p50/p90/p95: time to merge); durations take s/m/h/d, shares % or a fraction.
import { UsageError } from '../errors.js';
import type { QueueStats } from './compute.js';

export type Comparison = '>' | '>=' | '<' | '<=';

/** How the limit was written, so a crossed figure is told in the same unit. */
export type LimitUnit = 'duration' | 'seconds' | 'percent' | 'fraction' | 'number';

export interface Threshold {
  /** As the user wrote it, e.g. `p95>2h`. */
  text: string;
  /** JSON path of the figure, e.g. `timeToMerge.p95`. */
  figure: string;
  op: Comparison;
  /** In the figure's own unit: seconds for durations, 0..1 for shares. */
  value: number;
  /** The figure's name as written (`p95`, `flakyShare`) and the limit as written (`2h`, `10%`). */
  name: string;
  limitText: string;
  unit: LimitUnit;
}

export interface Crossed {
  threshold: string;
  figure: string;
  actual: number;
  limit: number;
  name: string;
  op: Comparison;
  limitText: string;
  unit: LimitUnit;
}

const DURATION_FIGURES = [
  'timeToMerge.p50',
  'timeToMerge.p90',
  'timeToMerge.p95',
  'waiting.p50',
  'waiting.p95',
  'testing.p50',
  'testing.p95',
];
const SHARE_FIGURES = ['flakyShare'];
const COUNT_FIGURES = [
  'prs.merged',
  'prs.failed',
  'prs.cancelled',
  'mergedPerHour',
  'runs.total',
  'runs.failed',
  'runs.bisection',
  'runs.perMergedPr',
  'testMinutesPerMergedPr',
  'ceilingPerHour',
];
export const FIGURES: readonly string[] = [...DURATION_FIGURES, ...SHARE_FIGURES, ...COUNT_FIGURES];
const ALIASES: Record<string, string> = { p50: 'timeToMerge.p50', p90: 'timeToMerge.p90', p95: 'timeToMerge.p95' };
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

const HINT = "write FIGURE OP VALUE, e.g. --fail-if 'p95>2h' or --fail-if 'flakyShare>10%'";

function fail(text: string, why: string): never {
  throw new UsageError(`--fail-if: ${JSON.stringify(text)}: ${why}`, { hints: [HINT] });
}

export function parseThreshold(text: string): Threshold {
  const m = /^\s*([A-Za-z][\w.]*)\s*(>=|<=|>|<)\s*(\S+)\s*$/.exec(text);
  if (!m) fail(text, 'expected a figure, a comparison (>, >=, <, <=) and a value');
  const name = m[1] as string;
  const op = m[2] as Comparison;
  const raw = m[3] as string;
  const figure = ALIASES[name] ?? FIGURES.find((f) => f.toLowerCase() === name.toLowerCase());
  if (!figure) fail(text, `unknown figure "${name}"; one of p50, p90, p95, ${FIGURES.join(', ')}`);
  let value: number;
  let unit: LimitUnit = 'number';
  if (DURATION_FIGURES.includes(figure)) {
    const d = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(raw);
    if (!d) fail(text, `"${raw}" is not a duration; use units like 90s, 30m, 2h, 1d`);
    value = Number(d[1]) * (UNIT_SECONDS[d[2] || 's'] as number);
    unit = d[2] ? 'duration' : 'seconds';
  } else if (SHARE_FIGURES.includes(figure)) {
    const p = /^(\d+(?:\.\d+)?)(%?)$/.exec(raw);
    if (!p) fail(text, `"${raw}" is not a share; use a percentage like 10% or a fraction like 0.1`);
    value = p[2] ? Number(p[1]) / 100 : Number(p[1]);
    if (value > 1) fail(text, `"${raw}" is more than 100%`);
    unit = p[2] ? 'percent' : 'fraction';
  } else {
    if (!/^\d+(?:\.\d+)?$/.test(raw)) fail(text, `"${raw}" is not a number`);
    value = Number(raw);
  }
  return { text: text.trim(), figure, op, value, name, limitText: raw, unit };
}

function figureValue(stats: QueueStats, path: string): number | null {
  let v: unknown = stats;
  for (const key of path.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The thresholds the figures crossed; a figure with no value (no data) crosses nothing. */
export function evaluateThresholds(stats: QueueStats, thresholds: Threshold[]): Crossed[] {
  const out: Crossed[] = [];
  for (const t of thresholds) {
    const actual = figureValue(stats, t.figure);
    if (actual === null) continue;
    const crossed =
      t.op === '>'
        ? actual > t.value
        : t.op === '>='
          ? actual >= t.value
          : t.op === '<'
            ? actual < t.value
            : actual <= t.value;
    if (crossed)
      out.push({
        threshold: t.text,
        figure: t.figure,
        actual,
        limit: t.value,
        name: t.name,
        op: t.op,
        limitText: t.limitText,
        unit: t.unit,
      });
  }
  return out;
}
