/** Queue statistics as fields (one per figure) and the crossed thresholds as lines. */
import { plainKeys } from '../output/plain.js';
import type { Field } from '../output/render.js';
import type { QueueStats } from '../stats/compute.js';
import type { Crossed } from '../stats/fail-if.js';
import { formatDuration } from '../util/duration.js';

/** `mq queue stats` piped: keys are JSON paths; durations in seconds, shares as fractions, '' when no figure. */
export const STATS_PLAIN = plainKeys('one line per figure', [
  'window.since',
  'window.until',
  'prs.merged',
  'prs.failed',
  'prs.cancelled',
  'mergedPerHour',
  'ceilingPerHour',
  'timeToMerge.p50',
  'timeToMerge.p90',
  'timeToMerge.p95',
  'waiting.p50',
  'waiting.p95',
  'testing.p50',
  'testing.p95',
  'runs.total',
  'runs.failed',
  'runs.bisection',
  'runs.perMergedPr',
  'testMinutesPerMergedPr',
  'flakyShare',
]);

/** The figures of the table, markdown and HTML in groups; plain and JSON keep one flat list. */
export const STATS_GROUPS: ReadonlyArray<{ title: string; keys: readonly string[] }> = [
  { title: 'Throughput', keys: ['prs.merged', 'mergedPerHour', 'ceilingPerHour'] },
  {
    title: 'Time to merge',
    keys: [
      'timeToMerge.p50',
      'timeToMerge.p90',
      'timeToMerge.p95',
      'waiting.p50',
      'waiting.p95',
      'testing.p50',
      'testing.p95',
    ],
  },
  { title: 'CI cost', keys: ['runs.total', 'runs.bisection', 'runs.perMergedPr', 'testMinutesPerMergedPr'] },
  { title: 'Reliability', keys: ['prs.failed', 'prs.cancelled', 'runs.failed', 'flakyShare'] },
];

/** The window's fields first (no title), then one list per group. */
export function groupedStatsFields(s: QueueStats): Array<{ title: string | null; fields: Field[] }> {
  const all = statsFields(s, true);
  const pick = (keys: readonly string[]) =>
    keys.map((k) => all.find((f) => f.key === k)).filter((f): f is Field => f !== undefined);
  return [
    { title: null, fields: pick(['window.since', 'window.until']) },
    ...STATS_GROUPS.map((g) => ({ title: g.title, fields: pick(g.keys) })),
  ];
}

const percent = (n: number) => `${(n * 100).toFixed(1).replace(/\.0$/, '')}%`;

/** One field per figure keyed by JSON path; `human` formats durations and shares, else raw as in the JSON. */
export function statsFields(s: QueueStats, human: boolean): Field[] {
  const none = human ? '-' : '';
  const dur = (x: number | null) => (x === null ? none : human ? formatDuration(x * 1000) : String(x));
  const num = (n: number | null) => (n === null ? none : String(n));
  const share = (n: number | null) => (n === null ? none : human ? percent(n) : String(n));
  const f = STATS_PLAIN.field;
  return [
    f('window.since', 'since', s.window.since),
    f('window.until', 'until', s.window.until),
    f('prs.merged', 'PRs merged', String(s.prs.merged)),
    f('prs.failed', 'PRs failed', String(s.prs.failed)),
    f('prs.cancelled', 'PRs cancelled', String(s.prs.cancelled)),
    f('mergedPerHour', 'merged per hour', String(s.mergedPerHour)),
    f('ceilingPerHour', 'ceiling per hour (settings)', num(s.ceilingPerHour)),
    f('timeToMerge.p50', 'time to merge p50', dur(s.timeToMerge.p50)),
    f('timeToMerge.p90', 'time to merge p90', dur(s.timeToMerge.p90)),
    f('timeToMerge.p95', 'time to merge p95', dur(s.timeToMerge.p95)),
    f('waiting.p50', 'waiting p50', dur(s.waiting.p50)),
    f('waiting.p95', 'waiting p95', dur(s.waiting.p95)),
    f('testing.p50', 'testing p50', dur(s.testing.p50)),
    f('testing.p95', 'testing p95', dur(s.testing.p95)),
    f('runs.total', 'test runs (cancelled ones too)', num(s.runs.total)),
    f('runs.failed', 'failed runs', num(s.runs.failed)),
    f('runs.bisection', 'bisection runs', num(s.runs.bisection)),
    f('runs.perMergedPr', 'runs per merged PR', num(s.runs.perMergedPr)),
    f('testMinutesPerMergedPr', 'test minutes per merged PR', num(s.testMinutesPerMergedPr)),
    f('flakyShare', 'flaky share of failures', share(s.flakyShare)),
  ];
}

const RUN_WORDS: Record<string, string> = {
  'runs.total': 'test runs',
  'runs.failed': 'failed runs',
  'runs.bisection': 'bisection runs',
};

/** `flakyShare` -> `flaky share`, `runs.perMergedPr` -> `runs per merged PR`; `p95` as written. */
function figureWords(c: Crossed): string {
  if (/^p\d\d$/i.test(c.name)) return c.name.toLowerCase();
  const words = RUN_WORDS[c.figure];
  if (words) return words;
  return c.figure
    .replace(/\./g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bprs?\b/g, (w) => (w === 'pr' ? 'PR' : 'PRs'));
}

/** The figure in the unit its limit was written in: `1h 48m` against `1h`, `36.1%` against `10%`. */
function inLimitUnit(c: Crossed): string {
  if (c.unit === 'duration') return formatDuration(c.actual * 1000);
  if (c.unit === 'percent') return percent(c.actual);
  return String(c.actual);
}

/** `threshold crossed: p95 1h 48m > 1h` lines for stderr. */
export function crossedLines(crossed: Crossed[]): string[] {
  return crossed.map((c) => `threshold crossed: ${figureWords(c)} ${inLimitUnit(c)} ${c.op} ${c.limitText}`);
}
