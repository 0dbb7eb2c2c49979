// `mq queue simulate` without the command line: inputs in, plain result data (the JSON document) out.
// The baseline comes from the caller; each --compare changes some of its settings.
import type { QueueInfo } from '../domain/types.js';
import { UsageError } from '../errors.js';
import { computeStats } from '../stats/compute.js';
import type { ConcludedPr, TestAttempt, Window } from '../stats/model.js';
import { engineDefaults } from './engine-adapter.js';
import {
  type Backtest,
  backtestOf,
  type FittedInputs,
  fitHistory,
  MIN_PRS,
  MIN_RUNS,
  measuredFigures,
  profileFrom,
  simulatedFigures,
  withinModelError,
} from './history.js';
import { checkVolume, parseSimulateFlags, type SimulateFlags } from './inputs.js';
import { TTM_POINTS, type RunMetrics, type SettingsRow, type SimInputs, type SimSettings } from './model.js';
import { runAll } from './pool.js';
import { compareLabel, parseCompare, settingsFromQueue } from './settings.js';
import type { Recommendation, RowResult, SimulateResult } from './result.js';
import { estimate, type Estimate } from './stats.js';

export { htmlTable, renderHtml } from './html.js';
export type { SimulateFlags } from './inputs.js';

export type { Recommendation, RowResult, SimulateResult } from './result.js';
export type { Backtest, FittedInputs } from './history.js';
export { fitHistory, withinModelError } from './history.js';
export { chooseEta, type Eta, type EtaInput, type EtaProfile, estimateMergeTime, fitEtaProfile } from './eta.js';
export { ETA_CHECK_HISTORY_DAYS, type EtaCheckResult, runEtaCheck } from './eta-check.js';

/** A window of the service's history, with the queue's current settings (getQueue). */
export interface HistoryData {
  window: Window;
  prs: ConcludedPr[];
  attempts: TestAttempt[];
  queue: QueueInfo;
}

export interface SimulateDeps {
  /** The configured queue's settings (getQueue), or null when no queue is configured. */
  loadQueue: (required: boolean) => Promise<QueueInfo | null>;
  /** One line of progress or notice for stderr. */
  notice: (line: string) => void;
  /** --from-history: the last `ms` of history, counted back from the service's clock. */
  loadHistory?: (ms: number) => Promise<HistoryData>;
  /** The caller's output shows the fitted inputs: no notice of them. */
  showsFit?: boolean;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** One line saying what was fitted and from what. */
export function fittedLine(f: FittedInputs): string {
  const s = f.samples;
  const profile = f.arrivalsByHourOfWeek ?? f.arrivalsByHourOfDay ?? [0];
  const range = `${Math.min(...profile).toFixed(1)} to ${Math.max(...profile).toFixed(1)}/h`;
  const shape =
    f.arrivalsShape === 'hour-of-week'
      ? `by hour of the week (UTC, weekdays apart), ${range}`
      : f.arrivalsShape === 'hour-of-day'
        ? `by hour of day (UTC), ${range}`
        : 'flat (too little history for an hour-of-day profile)';
  return (
    `fitted from ${Math.round(f.window.hours * 10) / 10}h of history (${s.prs} merged or failed ` +
    `PRs, ${s.runs} finished test runs, cancelled ones left out): ` +
    `${f.arrivalsPerHour.toFixed(2)} PRs/h ${shape}, tests ${f.testMinutes.toFixed(1)}m ` +
    `(spread ${pct(f.testTimeSpread)}), ` +
    `${pct(f.failureRate)} break the build, ${pct(f.flakeRate)} flaky runs`
  );
}

const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e4) / 1e4);
/** Every figure here is a count, rate or duration: an interval never reaches below 0. */
const r4 = (e: Estimate): Estimate => ({
  mean: round(e.mean),
  lo: round(e.lo === null ? null : Math.max(0, e.lo)),
  hi: round(e.hi),
});

function aggregate(label: string, settings: SimSettings, inputs: SimInputs, runs: RunMetrics[]): RowResult {
  const hours = inputs.durationHours;
  const days = hours / 24;
  const per = (f: (m: RunMetrics) => number | null) => r4(estimate(runs.map(f)));
  const perMerged = (f: (m: RunMetrics) => number) => per((m) => (m.merged > 0 ? f(m) / m.merged : null));
  const backlog = estimate(runs.map((m) => m.backlogAtEnd));
  const arrivals = estimate(runs.map((m) => m.arrived)).mean ?? 0;
  const distribution = TTM_POINTS.map((_, i) => round(estimate(runs.map((m) => m.ttmQuantiles?.[i] ?? null)).mean));
  return {
    label,
    settings,
    keepsUp: !((backlog.mean ?? 0) > 10 && (backlog.mean ?? 0) > 0.1 * arrivals),
    mergedPerHour: per((m) => m.merged / hours),
    timeToMerge: {
      p50: per((m) => m.ttmQuantiles?.[10] ?? null),
      p95: per((m) => m.ttmQuantiles?.[19] ?? null),
      points: [...TTM_POINTS],
      distribution,
    },
    runsPerMergedPr: perMerged((m) => m.runsStarted),
    testMinutesPerMergedPr: perMerged((m) => m.testMinutes),
    meanDepth: per((m) => m.meanDepth),
    failedPerDay: { real: per((m) => m.failedReal / days), flaky: per((m) => m.failedFlaky / days) },
    backlogAtEnd: r4(backlog),
  };
}

const min = (e: Estimate) => e.mean ?? Number.POSITIVE_INFINITY;

function minutes(seconds: number | null): string {
  if (seconds === null) return 'n/a';
  const m = seconds / 60;
  return m < 90 ? `${Math.round(m)}m` : `${(m / 60).toFixed(1)}h`;
}

/**
 * Fastest p50 among rows that keep up, unless a cheaper row ties on p50 and p95 within the 95%
 * intervals; the line names cost and risk against the cheapest and most reliable rows.
 */
export function recommend(rows: RowResult[], inputs: SimInputs): Recommendation {
  const up = rows.filter((r) => r.keepsUp);
  const cands = up.length > 0 ? up : rows;
  const p50 = (r: RowResult) => min(r.timeToMerge.p50);
  const cost = (r: RowResult) => min(r.testMinutesPerMergedPr);
  const flaky = (r: RowResult) => min(r.failedPerDay.flaky);
  const fastest = [...cands].sort((a, b) => p50(a) - p50(b))[0] as RowResult;
  // Tied on velocity: both the p50 and the p95 intervals overlap the fastest row's.
  const overlaps = (a: Estimate, b: Estimate) =>
    (a.lo ?? a.mean ?? Number.POSITIVE_INFINITY) <= (b.hi ?? b.mean ?? Number.POSITIVE_INFINITY) &&
    (b.lo ?? b.mean ?? Number.POSITIVE_INFINITY) <= (a.hi ?? a.mean ?? Number.POSITIVE_INFINITY);
  const tied = cands.filter(
    (r) =>
      r === fastest ||
      (overlaps(r.timeToMerge.p50, fastest.timeToMerge.p50) && overlaps(r.timeToMerge.p95, fastest.timeToMerge.p95)),
  );
  const pick = [...tied].sort((a, b) => cost(a) - cost(b) || flaky(a) - flaky(b))[0] as RowResult;
  const cheapest = [...rows].sort((a, b) => cost(a) - cost(b))[0] as RowResult;
  const reliable = [...rows].sort((a, b) => flaky(a) - flaky(b))[0] as RowResult;
  const fmt = (x: number | null, d = 1) => (x === null ? 'n/a' : x.toFixed(d));
  const other = (r: RowResult, value: string) => `${r.label}: ${value}${r.keepsUp ? '' : ', but it falls behind'}`;
  const rate = fmt(inputs.arrivalsPerHour);
  let velocity: string;
  if (up.length === 1) velocity = `the only row that keeps up with ${rate} PRs/h`;
  else if (up.length === 0) velocity = `no row keeps up with ${rate} PRs/h`;
  else if (pick === fastest) velocity = 'fastest';
  else velocity = `as fast as ${fastest.label} within the 95% intervals of p50 and p95, and cheaper`;
  const costNote =
    pick.testMinutesPerMergedPr.mean === null
      ? 'nothing merged'
      : cost(pick) <= cost(cheapest)
        ? 'cheapest'
        : other(cheapest, fmt(cheapest.testMinutesPerMergedPr.mean, 0));
  const relNote =
    pick.failedPerDay.flaky.mean === null
      ? 'n/a'
      : flaky(pick) <= flaky(reliable)
        ? 'fewest'
        : other(reliable, fmt(reliable.failedPerDay.flaky.mean));
  const head =
    up.length === 0 ? `No row keeps up (the backlog grows); least bad: ${pick.label}` : `Recommended: ${pick.label}`;
  const text =
    `${head} — velocity: time to merge p50 ${minutes(pick.timeToMerge.p50.mean)}, ` +
    `p95 ${minutes(pick.timeToMerge.p95.mean)} (${velocity}); ` +
    `cost: ${fmt(pick.testMinutesPerMergedPr.mean, 0)} test min per merged PR (${costNote}); ` +
    `reliability: ${fmt(pick.failedPerDay.flaky.mean)} good PRs/day failed by flakes (${relNote}).`;
  return { label: pick.label, text };
}

/** --from-history: flags rows within the backtest's error of the baseline and never recommends them. */
export function markWithinError(results: RowResult[], inputs: SimInputs, error: Backtest['error']): Recommendation {
  const baseRow = results[0] as RowResult;
  for (const r of results) r.withinModelError = r !== baseRow && withinModelError(r, baseRow, error);
  const told = results.filter((r) => !r.withinModelError);
  const within = results.filter((r) => r.withinModelError).map((r) => r.label);
  const rec = recommend(told, inputs);
  if (within.length === 0) return rec;
  return {
    label: rec.label,
    text: `${rec.text} Within the model's error of the baseline, so not a result: ${within.join(', ')}.`,
  };
}

export async function runSimulate(flags: SimulateFlags, deps: SimulateDeps): Promise<SimulateResult> {
  const parsed = parseSimulateFlags(flags);
  const { jobs, baseline } = parsed;
  let inputs = parsed.inputs;
  const compares = (flags.compare ?? []).map((c) => ({ label: compareLabel(c), change: parseCompare(c) }));
  if (compares.length > 20) throw new UsageError('--compare: at most 20 settings rows');
  let history: HistoryData | null = null;
  let fitted: FittedInputs | null = null;
  if (parsed.fromHistoryMs !== null) {
    if (!deps.loadHistory) throw new UsageError('--from-history needs a configured queue to read the history of');
    history = await deps.loadHistory(parsed.fromHistoryMs);
    fitted = fitHistory(history.window, history.prs, history.attempts);
    if (
      fitted.samples.prs < MIN_PRS ||
      fitted.samples.runs < MIN_RUNS ||
      !(fitted.testMinutes > 0) ||
      !(fitted.arrivalsPerHour > 0)
    ) {
      throw new UsageError(
        `--from-history: the window holds ${fitted.samples.prs} merged or failed PRs ` +
          `and ${fitted.samples.runs} test runs; the fit needs at least ${MIN_PRS} and ${MIN_RUNS}`,
        {
          hints: [
            'widen the window (at most 45d), or give the workload with --arrivals, --test-time and --failure-rate',
          ],
        },
      );
    }
    inputs = {
      ...inputs,
      arrivalsPerHour: fitted.arrivalsPerHour,
      arrivalProfile: profileFrom(fitted),
      testMinutes: fitted.testMinutes,
      testTimeSpread: fitted.testTimeSpread,
      failureRate: fitted.failureRate,
      flakeRate: Math.min(0.99, fitted.flakeRate),
    };
    checkVolume(inputs.arrivalsPerHour, inputs.durationHours);
    if (!deps.showsFit) deps.notice(fittedLine(fitted));
  }
  let base: SimSettings;
  let source: 'queue' | 'defaults';
  const queue = baseline === 'defaults' ? null : (history?.queue ?? (await deps.loadQueue(baseline === 'queue')));
  if (queue) {
    const clamped: string[] = [];
    base = settingsFromQueue(queue, clamped);
    source = 'queue';
    deps.notice('baseline: the current settings of the configured queue');
    for (const line of clamped) deps.notice(`baseline: ${line}`);
  } else {
    base = settingsFromQueue(engineDefaults());
    source = 'defaults';
    deps.notice('baseline: the service defaults (no queue configured, or --baseline defaults)');
  }
  if (base.mode === 'parallel' && inputs.lanes === 1) {
    deps.notice(
      'parallel mode with --lanes 1: every PR shares one lane (impacted targets overlap); pass --lanes N ' +
        'to model independent lanes',
    );
  }
  const rows: SettingsRow[] = [
    { label: 'baseline', settings: base },
    ...compares.map((c) => ({ label: c.label, settings: { ...base, ...c.change } })),
  ];
  // The bundle puts the worker entry next to this module's entry file (dist/lazy/planner-worker.js).
  const workerUrl = new URL('./planner-worker.js', import.meta.url);
  for (const row of rows) {
    if (inputs.testMinutes >= row.settings.testingTimeoutMinutes) {
      deps.notice(
        `${row.label}: --test-time is not below the testing timeout (${row.settings.testingTimeoutMinutes} ` +
          `min), so most runs time out and fail`,
      );
    }
  }
  const metrics = await runAll(inputs, rows, jobs, workerUrl);
  const results = rows.map((row, i) => aggregate(row.label, row.settings, inputs, metrics[i] as RunMetrics[]));
  if (!history || !fitted)
    return { inputs: { ...inputs, baseline: source }, results, recommendation: recommend(results, inputs) };

  // Backtest: the window replayed with the queue's actual settings, against what was measured in it.
  const clamped: string[] = [];
  const actual = settingsFromQueue(history.queue, clamped);
  if (source !== 'queue') for (const line of clamped) deps.notice(`backtest: ${line}`);
  const replayInputs: SimInputs = { ...inputs, durationHours: fitted.window.hours };
  let replay = results[0] as RowResult;
  if (source !== 'queue' || replayInputs.durationHours !== inputs.durationHours) {
    const m = await runAll(replayInputs, [{ label: 'backtest', settings: actual }], jobs, workerUrl);
    replay = aggregate('backtest', actual, replayInputs, m[0] as RunMetrics[]);
  }
  const measured = computeStats({
    window: history.window,
    prs: history.prs,
    attempts: history.attempts,
    settings: null,
  }).stats;
  const backtest = backtestOf(measuredFigures(history.window, measured, history.prs, fitted), simulatedFigures(replay));
  const recommendation = markWithinError(results, inputs, backtest.error);
  return { inputs: { ...inputs, baseline: source, fitted }, backtest, results, recommendation };
}
