// When a PR will merge: the live queue run forward many times on the planner's engine from its current
// order, with test times, failures and flakes drawn from a profile fitted to the queue's recent history.
// A PR that fails in a run does not count in the quantiles: they are conditional on merging.
import type { MergeEstimate, QueueOrder } from '../domain/order.js';
import type { QueueInfo } from '../domain/types.js';
import type { ConcludedPr, TestAttempt, Window } from '../stats/model.js';
import { CompletionHeap } from './driver.js';
import { type Effect, SimEngine } from './engine-adapter.js';
import { fitHistory, MIN_RUNS } from './history.js';
import type { SimSettings } from './model.js';
import { runSeed, STREAM, uniform } from './random.js';
import { settingsFromQueue } from './settings.js';
import { normalCdf, normalQuantile, quantileSorted } from './stats.js';

const HOUR = 3_600_000;
/** Runs by default: 200, fewer for a long queue (entries x runs at most ETA_WORK, at least 50 runs). */
export const ETA_RUNS = 200;
const ETA_WORK = 40_000;
export const ETA_HORIZON_MS = 7 * 24 * HOUR;
/** Engine events one run may take before it gives up on the PR (unresolved). */
const MAX_STEPS = 200_000;

/** What the estimator draws from: fitted by fitHistory from the queue's recent history. */
export interface EtaProfile {
  testMinutes: number;
  testTimeSpread: number;
  failureRate: number;
  flakeRate: number;
  arrivalsPerHour: number;
}

/** The profile of a window of history; null with fewer than MIN_RUNS finished test runs in it. */
export function fitEtaProfile(window: Window, prs: ConcludedPr[], attempts: TestAttempt[]): EtaProfile | null {
  const f = fitHistory(window, prs, attempts);
  if (f.samples.runs < MIN_RUNS || !(f.testMinutes > 0)) return null;
  const { testMinutes, testTimeSpread, flakeRate, arrivalsPerHour } = f;
  // The fit counts failures of PRs tested alone; in batches a PR fails after bisection: count those too.
  const failureRate = Math.max(f.failureRate, f.samples.prs > 0 ? f.samples.failed / f.samples.prs : 0);
  return {
    testMinutes,
    testTimeSpread,
    failureRate,
    flakeRate: runFlakes(window, attempts, failureRate, flakeRate),
    arrivalsPerHour,
  };
}

/** Flakes in batch runs, which the fit (PRs tested alone) cannot see: failed runs no breaking PR explains. */
function runFlakes(window: Window, attempts: TestAttempt[], failureRate: number, fitted: number): number {
  const runs = new Map<string, { size: number; failed: boolean }>();
  for (const a of attempts) {
    if (a.bisection || a.result === 'cancelled' || a.finishedAt < window.since || a.finishedAt > window.until) continue;
    const r = runs.get(a.runId) ?? { size: 0, failed: a.result === 'failed' };
    r.size++;
    runs.set(a.runId, r);
  }
  if (runs.size === 0) return fitted;
  let failed = 0;
  let explained = 0;
  for (const r of runs.values()) {
    if (r.failed) failed++;
    explained += 1 - (1 - failureRate) ** r.size;
  }
  return Math.min(0.99, Math.max(fitted, (failed - explained) / runs.size));
}

export interface EtaInput {
  pr: number;
  /** The service's clock now (epoch ms). */
  now: number;
  order: QueueOrder;
  /** The queue's settings (getQueue). */
  queue: QueueInfo;
  /** When each run under test began (run id -> epoch ms); a run not named counts as just started. */
  runStarts?: Readonly<Record<string, number>>;
  /** null: no history to fit from (no ETA). */
  profile: EtaProfile | null;
}

export interface EtaOptions {
  /** Default: ETA_RUNS, fewer for a long queue. */
  runs?: number;
  seed?: number;
  horizonMs?: number;
}

export type Eta =
  | {
      status: 'available';
      source: 'simulation';
      /** Epoch ms, service clock, over the runs in which the PR merged. */
      p50: number;
      p90: number;
      runs: number;
      merged: number;
      /** Share of runs in which the PR failed (a break of its own, a flake, a timeout). */
      failProbability: number;
      /** Runs that reached the horizon without the PR concluding. */
      unresolved: number;
      /** PRs ahead of it in the order. */
      ahead: number;
      computedAt: number;
    }
  | { status: 'available'; source: 'service'; p50: number; p90: null; computedAt: number | null }
  | { status: 'unavailable'; source: 'service' | 'simulation'; reason: string };

interface Entry {
  n: number;
  /** Start of the real run it is under test in, when known. */
  startedAt: number | null;
  /** Known not to break (its run passed). */
  good: boolean;
}

/** The queue's entries in dispatch order, up to the PR (with those behind it when batching may join them). */
function entriesOf(input: EtaInput, settings: SimSettings): { list: Entry[]; ahead: number } | null {
  const list: Entry[] = [];
  for (const b of input.order.batches) {
    const startedAt = b.runId === null ? null : (input.runStarts?.[b.runId] ?? null);
    for (const p of b.prs) list.push({ n: p.number, startedAt, good: b.state === 'tests_passed' });
  }
  for (const p of [...input.order.pending, ...input.order.awaitingAdmission])
    list.push({ n: p.number, startedAt: null, good: false });
  const at = list.findIndex((e) => e.n === input.pr);
  if (at < 0) return null;
  return { list: settings.batch ? list : list.slice(0, at + 1), ahead: at };
}

/** A run's test time given it has already run `elapsedMs`: the profile's lognormal, cut below at the elapsed. */
function durationMs(p: EtaProfile, seed: number, lead: number, attempt: number, elapsedMs: number): number {
  const mean = p.testMinutes * 60_000;
  const u = uniform(seed, STREAM.duration, lead, attempt);
  if (p.testTimeSpread <= 0) return Math.max(mean, elapsedMs + 1);
  const s = Math.sqrt(Math.log(1 + p.testTimeSpread ** 2));
  const mu = Math.log(mean) - (s * s) / 2;
  const below = elapsedMs > 0 ? normalCdf((Math.log(elapsedMs) - mu) / s) : 0;
  const q = Math.min(1 - 1e-9, below + u * (1 - below));
  return Math.max(elapsedMs + 1, Math.round(Math.exp(mu + s * normalQuantile(q))));
}

/** One forward run: when the PR merged, 'failed', or null (unresolved by the horizon). */
function runOnce(input: EtaInput, p: EtaProfile, s: SimSettings, list: Entry[], seed: number, horizonMs: number) {
  const { now, pr } = input;
  const known = new Map(list.map((e) => [e.n, e]));
  const breaks = (n: number) => !known.get(n)?.good && uniform(seed, STREAM.breaks, n) < p.failureRate;
  const merged = new Set<number>();
  const attempts = new Map<number, number>();
  const completions = new CompletionHeap();
  const flakes = new Map<string, boolean>();
  let seq = 0;
  let outcome: number | 'failed' | null = null;
  const onEffect = (e: Effect) => {
    if (e.type !== 'pr_state') return;
    if (e.to === 'merged') merged.add(e.prNumber);
    if (e.prNumber === pr && (e.to === 'merged' || e.to === 'failed')) outcome = e.to === 'merged' ? e.at : 'failed';
    if (e.to !== 'testing' || !e.run || flakes.has(e.run.id)) return;
    const lead = e.run.prNumbers[0] ?? e.prNumber;
    const attempt = attempts.get(lead) ?? 0;
    attempts.set(lead, attempt + 1);
    // A run made at the start from PRs under test in a real run carries on from that run's start.
    let start = e.at;
    if (e.at === now) for (const n of e.run.prNumbers) start = Math.min(start, known.get(n)?.startedAt ?? start);
    const elapsed = Math.max(0, now - start);
    flakes.set(e.run.id, uniform(seed, STREAM.flake, lead, attempt) < p.flakeRate);
    completions.push([e.at + durationMs(p, seed, lead, attempt, elapsed) - elapsed, ++seq, e.run.id]);
  };
  const engine = new SimEngine(seed, now, onEffect);
  engine.configure(s, now);
  const lane = s.mode === 'parallel' ? 'all' : null;
  for (const e of list) engine.submit(e.n, breaks(e.n), lane, now);
  // Later arrivals matter only where they may join the PR's batch.
  const rate = s.batch ? p.arrivalsPerHour : 0;
  let nextN = Math.max(...list.map((e) => e.n)) + 1;
  const arrivalAfter = (t: number) =>
    rate > 0 ? t + Math.max(1, Math.round((-Math.log(uniform(seed, STREAM.arrival, nextN)) * HOUR) / rate)) : Infinity;
  let nextArrival = arrivalAfter(now);
  const end = now + horizonMs;
  for (let steps = 0; outcome === null && steps < MAX_STEPS; steps++) {
    const nextDone = completions.peek()?.[0] ?? Infinity;
    const nextEngine = engine.nextDueAt() ?? Infinity;
    const t = Math.min(nextDone, nextEngine, nextArrival);
    if (t > end) break;
    if (t === nextDone) {
      const id = (completions.pop() as [number, number, string])[2];
      const info = engine.run(id);
      if (!info?.inProgress) continue;
      const bad = info.group.some(breaks) || info.base.some((n) => !merged.has(n) && breaks(n));
      engine.complete(id, !bad && !flakes.get(id), t);
    } else if (t === nextEngine) {
      engine.advance(t);
    } else {
      engine.submit(nextN, breaks(nextN), lane, t);
      nextN++;
      nextArrival = arrivalAfter(t);
    }
  }
  return outcome;
}

/** The PR's merge time, p50 and p90 over seeded forward runs of the queue as it stands. */
export function estimateMergeTime(input: EtaInput, options: EtaOptions = {}): Eta {
  const unavailable = (reason: string): Eta => ({ status: 'unavailable', source: 'simulation', reason });
  const state = String(input.order.queueState ?? '').toLowerCase();
  if (state.includes('paused')) return unavailable('the queue is paused: nothing merges until it resumes');
  if (input.profile === null)
    return unavailable(`fewer than ${MIN_RUNS} finished test runs in the history to fit test times from`);
  const settings = settingsFromQueue(input.queue);
  const entries = entriesOf(input, settings);
  if (entries === null) return unavailable(`#${input.pr} is not in the queue`);
  const fit = Math.max(50, Math.floor(ETA_WORK / entries.list.length));
  const runs = Math.max(1, Math.floor(options.runs ?? Math.min(ETA_RUNS, fit)));
  const seed = options.seed ?? 1;
  const times: number[] = [];
  let failed = 0;
  for (let r = 0; r < runs; r++) {
    const o = runOnce(
      input,
      input.profile,
      settings,
      entries.list,
      runSeed(seed, r),
      options.horizonMs ?? ETA_HORIZON_MS,
    );
    if (o === 'failed') failed++;
    else if (o !== null) times.push(o);
  }
  if (times.length === 0)
    return unavailable(failed > 0 ? 'it fails in every simulated run' : 'it does not merge within the horizon');
  times.sort((a, b) => a - b);
  return {
    status: 'available',
    source: 'simulation',
    p50: Math.round(quantileSorted(times, 0.5)),
    p90: Math.round(quantileSorted(times, 0.9)),
    runs,
    merged: times.length,
    failProbability: failed / runs,
    unresolved: runs - times.length - failed,
    ahead: entries.ahead,
    computedAt: input.now,
  };
}

/** The service's estimate when it serves a merge time, else mq's own (`simulate` runs only then). */
export function chooseEta(service: MergeEstimate | undefined, simulate: () => Eta): Eta {
  if (service?.status === 'available' && service.kind === 'merge' && typeof service.estimatedAt === 'number')
    return {
      status: 'available',
      source: 'service',
      p50: service.estimatedAt,
      p90: null,
      computedAt: service.computedAt,
    };
  return simulate();
}
