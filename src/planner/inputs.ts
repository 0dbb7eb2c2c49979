/** Command-line inputs of `mq queue simulate`, checked before anything runs (usage errors, exit 2). */
import { MAX_U32 } from '../domain/vocabulary.js';
import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';
import type { SimInputs } from './model.js';

export interface SimulateFlags {
  arrivals?: string;
  testTime?: string;
  testTimeSpread?: string;
  failureRate?: string;
  flakeRate?: string;
  duration?: string;
  runs?: string;
  seed?: string;
  ciCapacity?: string;
  lanes?: string;
  jobs?: string;
  compare?: string[];
  baseline?: string;
  html?: string;
  fromHistory?: string;
}

/** The workload flags --from-history replaces. */
const WORKLOAD_FLAGS: Array<[keyof SimulateFlags, string]> = [
  ['arrivals', '--arrivals'],
  ['testTime', '--test-time'],
  ['failureRate', '--failure-rate'],
  ['flakeRate', '--flake-rate'],
  ['testTimeSpread', '--test-time-spread'],
];
export const MAX_HISTORY_DAYS = 45;

function required(v: string | undefined, flag: string, example: string): string {
  if (v === undefined)
    throw new UsageError(`${flag} is required`, {
      hints: [`for example: mq queue simulate --arrivals 20/h --test-time 30m --failure-rate 5% (${flag} ${example})`],
    });
  return v;
}

/** `20/h`, `150/d`, `20/hour`, `3/day`, or a bare number per hour. */
export function parseRate(text: string, flag = '--arrivals'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(h|hr|hour|d|day))?\s*$/i.exec(text);
  const perHour = m ? Number(m[1]) / (m[2]?.toLowerCase().startsWith('d') ? 24 : 1) : Number.NaN;
  if (!m || !(perHour > 0) || perHour > 10_000) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} must be a rate above 0 and at most 10000/h, written like 20/h or 150/d`,
    );
  }
  return perHour;
}

/** `5%`, `0.5%`, or a fraction `0.05`; within [0, max]. */
export function parsePercent(text: string, flag: string, maxPercent: number): number {
  const t = text.trim();
  let v = Number.NaN;
  if (/^\d+(\.\d+)?%$/.test(t)) v = Number(t.slice(0, -1)) / 100;
  else if (/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(t)) v = Number(t);
  if (!Number.isFinite(v) || v < 0 || v > maxPercent / 100) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} must be a percentage from 0% to ${maxPercent}% (like 5% or 0.05)`,
    );
  }
  return v;
}

function parseInteger(text: string, flag: string, min: number, max: number): number {
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) < min || Number(t) > max)
    throw new UsageError(`${flag}: ${JSON.stringify(text)} must be an integer from ${min} to ${max}`);
  return Number(t);
}

function parseSpan(text: string, flag: string, minMs: number, maxMs: number, range: string): number {
  const ms = parseDuration(text, flag);
  if (ms < minMs || ms > maxMs) throw new UsageError(`${flag}: ${JSON.stringify(text)} must be from ${range}`);
  return ms;
}

export interface ParsedFlags {
  inputs: SimInputs;
  jobs: number | null;
  baseline: 'auto' | 'queue' | 'defaults';
  /** --from-history: the window to fit, ms back from the service's clock; null without it. */
  fromHistoryMs: number | null;
}

/** At most 200000 simulated PRs per run. */
export function checkVolume(arrivalsPerHour: number, durationHours: number): void {
  const expected = arrivalsPerHour * durationHours;
  if (expected > 200_000) {
    throw new UsageError(
      `--arrivals x --duration: ${Math.round(expected)} PRs per run is more than the 200000 the planner simulates`,
      {
        hints: ['shorten --duration: a week is usually enough for the intervals to settle'],
      },
    );
  }
}

export function parseSimulateFlags(f: SimulateFlags): ParsedFlags {
  let fromHistoryMs: number | null = null;
  if (f.fromHistory !== undefined) {
    const clash = WORKLOAD_FLAGS.find(([key]) => f[key] !== undefined);
    if (clash) {
      throw new UsageError(`--from-history cannot be used with ${clash[1]}: the workload is fitted from the history`, {
        hints: ['drop the workload flags, or drop --from-history to give the workload yourself'],
      });
    }
    fromHistoryMs = parseSpan(
      f.fromHistory,
      '--from-history',
      3_600_000,
      MAX_HISTORY_DAYS * 86_400_000,
      `1h to ${MAX_HISTORY_DAYS}d (the service keeps ${MAX_HISTORY_DAYS} days of history)`,
    );
  }
  const fitted = fromHistoryMs !== null;
  // With --from-history the workload is filled in from the fit later; these stand in until then.
  const arrivalsPerHour = fitted ? 1 : parseRate(required(f.arrivals, '--arrivals', '20/h'));
  const testMs = fitted
    ? 60_000
    : parseSpan(required(f.testTime, '--test-time', '30m'), '--test-time', 1000, 24 * 3_600_000, '1s to 24h');
  const failureRate = fitted ? 0 : parsePercent(required(f.failureRate, '--failure-rate', '5%'), '--failure-rate', 100);
  const testTimeSpread = f.testTimeSpread === undefined ? 0 : parsePercent(f.testTimeSpread, '--test-time-spread', 300);
  const flakeRate = f.flakeRate === undefined ? 0 : parsePercent(f.flakeRate, '--flake-rate', 99);
  const durationMs =
    f.duration === undefined
      ? (fromHistoryMs ?? 7 * 86_400_000)
      : parseSpan(f.duration, '--duration', 3_600_000, 90 * 86_400_000, '1h to 90d');
  const runs = f.runs === undefined ? 20 : parseInteger(f.runs, '--runs', 2, 1000);
  const seed = f.seed === undefined ? 1 : parseInteger(f.seed, '--seed', 0, MAX_U32);
  const ciCapacity = f.ciCapacity === undefined ? null : parseInteger(f.ciCapacity, '--ci-capacity', 1, 100_000);
  const lanes = f.lanes === undefined ? 1 : parseInteger(f.lanes, '--lanes', 1, 1000);
  const jobs = f.jobs === undefined ? null : parseInteger(f.jobs, '--jobs', 1, 64);
  const b = (f.baseline ?? 'auto').toLowerCase();
  if (!['auto', 'queue', 'defaults'].includes(b))
    throw new UsageError(`--baseline: ${JSON.stringify(f.baseline)} is not one of queue, defaults`);
  if (f.html !== undefined && f.html.trim() === '') throw new UsageError('--html: the file name cannot be empty');
  checkVolume(arrivalsPerHour, durationMs / 3_600_000);
  return {
    inputs: {
      arrivalsPerHour,
      testMinutes: testMs / 60_000,
      testTimeSpread,
      failureRate,
      flakeRate,
      durationHours: durationMs / 3_600_000,
      runs,
      seed,
      ciCapacity,
      lanes,
    },
    jobs,
    baseline: b as ParsedFlags['baseline'],
    fromHistoryMs,
  };
}
