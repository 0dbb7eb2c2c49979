/** Queue statistics as fields (one per figure) and the crossed thresholds as lines. */
import type { Field } from '../output/render.js';
import type { QueueStats } from '../stats/compute.js';
import type { Crossed } from '../stats/fail-if.js';
import { formatDuration } from '../util/duration.js';

const dur = (s: number | null, human: boolean) => (s === null ? '-' : human ? formatDuration(s * 1000) : String(s));
const num = (n: number | null) => (n === null ? '-' : String(n));
const share = (n: number | null, human: boolean) => (n === null ? '-' : human ? `${(n * 100).toFixed(1).replace(/\.0$/, '')}%` : String(n));

/**
 * One field per figure; keys are the JSON paths. `human` formats durations (`1h 5m`) and shares
 * (`12.5%`) for people; otherwise seconds and fractions, as in the JSON.
 */
export function statsFields(s: QueueStats, human: boolean): Field[] {
  const f = (key: string, label: string, value: string): Field => ({ key, label, value });
  return [
    f('window.since', 'since', s.window.since),
    f('window.until', 'until', s.window.until),
    f('prs.merged', 'PRs merged', String(s.prs.merged)),
    f('prs.failed', 'PRs failed', String(s.prs.failed)),
    f('prs.cancelled', 'PRs cancelled', String(s.prs.cancelled)),
    f('mergedPerHour', 'merged per hour', String(s.mergedPerHour)),
    f('ceilingPerHour', 'ceiling per hour (settings)', num(s.ceilingPerHour)),
    f('timeToMerge.p50', 'time to merge p50', dur(s.timeToMerge.p50, human)),
    f('timeToMerge.p90', 'time to merge p90', dur(s.timeToMerge.p90, human)),
    f('timeToMerge.p95', 'time to merge p95', dur(s.timeToMerge.p95, human)),
    f('waiting.p50', 'waiting p50', dur(s.waiting.p50, human)),
    f('waiting.p95', 'waiting p95', dur(s.waiting.p95, human)),
    f('testing.p50', 'testing p50', dur(s.testing.p50, human)),
    f('testing.p95', 'testing p95', dur(s.testing.p95, human)),
    f('runs.total', 'test runs', String(s.runs.total)),
    f('runs.failed', 'failed runs', String(s.runs.failed)),
    f('runs.bisection', 'bisection runs', String(s.runs.bisection)),
    f('runs.perMergedPr', 'runs per merged PR', num(s.runs.perMergedPr)),
    f('testMinutesPerMergedPr', 'test minutes per merged PR', num(s.testMinutesPerMergedPr)),
    f('flakyShare', 'flaky share of failures', share(s.flakyShare, human)),
  ];
}

/** `mq: threshold crossed: timeToMerge.p95 = 9000 (limit > 7200: p95>2h)` lines for stderr. */
export function crossedLines(crossed: Crossed[]): string[] {
  return crossed.map((c) => `threshold crossed: ${c.figure} is ${c.actual} (${c.threshold})`);
}
