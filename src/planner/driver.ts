// One simulated run: Poisson arrivals through the real engine on a virtual clock, the planner playing
// CI (duration, runner wait, outcome: fails iff a PR in it or its unmerged base breaks, or a flake).
// Every draw is keyed by PR number, not event order, so all rows see the same random workload.
import { SimEngine, type Effect } from './engine-adapter.js';
import { TTM_POINTS, type RunMetrics, type SimInputs, type SimSettings } from './model.js';
import { normal, runSeed, STREAM, uniform } from './random.js';
import { quantileSorted } from './stats.js';

const T0 = Date.UTC(2026, 0, 5);
const HOUR = 3_600_000;

interface CiRun {
  id: string;
  lead: number;
  durationMs: number;
  flake: boolean;
  /** When it got a runner; null while it waits for one. */
  ciStart: number | null;
}

/** Minimal binary heap of [time, seq, id] (completions), earliest first. */
export class CompletionHeap {
  private readonly h: Array<[number, number, string]> = [];
  get size(): number {
    return this.h.length;
  }
  peek(): [number, number, string] | undefined {
    return this.h[0];
  }
  push(item: [number, number, string]): void {
    const h = this.h;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(item, h[p] as [number, number, string])) break;
      h[i] = h[p] as [number, number, string];
      i = p;
    }
    h[i] = item;
  }
  pop(): [number, number, string] | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let item = last;
      if (l < h.length && less(h[l] as [number, number, string], item)) {
        m = l;
        item = h[l] as [number, number, string];
      }
      if (r < h.length && less(h[r] as [number, number, string], item)) {
        m = r;
        item = h[r] as [number, number, string];
      }
      if (m === i) break;
      h[i] = item;
      i = m;
    }
    h[i] = last;
    return top;
  }
}
function less(a: [number, number, string], b: [number, number, string]): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] < b[1];
}

/** Test run duration of the `attempt`-th run led by PR `pr`: lognormal with the given mean and CV. */
export function testDurationMs(inputs: SimInputs, seed: number, pr: number, attempt: number): number {
  const mean = inputs.testMinutes * 60_000;
  const cv = inputs.testTimeSpread;
  if (cv <= 0) return Math.max(1, Math.round(mean));
  const s2 = Math.log(1 + cv * cv);
  const z = normal(seed, STREAM.duration, pr, attempt);
  return Math.max(1, Math.round(mean * Math.exp(Math.sqrt(s2) * z - s2 / 2)));
}

/** The next submission after `t` from the PR's unit exponential draw `e`: flat rate or hourly profile. */
export function nextArrivalAfter(inputs: SimInputs, t: number, e: number): number {
  const profile = inputs.arrivalProfile;
  const period = profile?.length ?? 0;
  if (!profile || (period !== 24 && period !== 168) || !profile.some((r) => r > 0))
    return t + Math.max(1, Math.round(e * (HOUR / inputs.arrivalsPerHour)));
  let at = t;
  let left = e;
  for (let guard = 0; guard < period * 400; guard++) {
    const hour = Math.floor((at - T0) / HOUR);
    const rate = profile[((hour % period) + period) % period] as number;
    const hourEnd = T0 + (hour + 1) * HOUR;
    const need = (rate * (hourEnd - at)) / HOUR;
    if (rate > 0 && left <= need) return Math.max(t + 1, Math.round(at + (left / rate) * HOUR));
    left -= need;
    at = hourEnd;
  }
  return Number.POSITIVE_INFINITY;
}

export function simulateRun(inputs: SimInputs, settings: SimSettings, runIndex: number): RunMetrics {
  const seed = runSeed(inputs.seed, runIndex);
  const end = T0 + Math.round(inputs.durationHours * HOUR);
  const lanes = settings.mode === 'parallel' ? Math.max(1, inputs.lanes) : 0;

  // 0 = not drawn yet, 1 = good, 2 = breaks the build (drawn once per PR, then looked up).
  let breakFlags = new Uint8Array(1024);
  const breaks = (n: number): boolean => {
    if (n >= breakFlags.length) {
      const grown = new Uint8Array(Math.max(n + 1, breakFlags.length * 2));
      grown.set(breakFlags);
      breakFlags = grown;
    }
    let f = breakFlags[n] as number;
    if (f === 0) {
      f = uniform(seed, STREAM.breaks, n) < inputs.failureRate ? 2 : 1;
      breakFlags[n] = f;
    }
    return f === 2;
  };
  const submittedAt = new Map<number, number>();
  const admittedAt = new Map<number, number>();
  const merged = new Set<number>();
  const leadCount = new Map<number, number>();
  const inFlight = new Map<string, CiRun>();
  const waitingForRunner: CiRun[] = [];
  const completions = new CompletionHeap();
  let seq = 0;
  let busy = 0;
  let dirty = false;

  const m = { arrived: 0, merged: 0, failedReal: 0, failedFlaky: 0, runsStarted: 0, testMs: 0 };
  const ttm: number[] = [];
  let concludedTimeInQueue = 0;
  let concluded = 0;
  let depth = 0;
  let depthSince = T0;
  let depthIntegral = 0;
  const setDepth = (delta: number, at: number) => {
    depthIntegral += depth * (at - depthSince);
    depthSince = at;
    depth += delta;
  };

  const giveRunner = (run: CiRun, now: number) => {
    run.ciStart = now;
    busy++;
    completions.push([now + run.durationMs, ++seq, run.id]);
  };
  const capacity = inputs.ciCapacity ?? Number.POSITIVE_INFINITY;

  const onEffect = (e: Effect) => {
    if (e.type !== 'pr_state') return;
    const at = e.at;
    if (e.from === 'testing') dirty = true;
    // A run is announced once per member; the first announcement registers it (members all start together).
    if (e.to === 'testing' && e.run && !inFlight.has(e.run.id)) {
      m.runsStarted++;
      const lead = e.run.prNumbers[0] ?? e.prNumber;
      const attempt = leadCount.get(lead) ?? 0;
      leadCount.set(lead, attempt + 1);
      const run: CiRun = {
        id: e.run.id,
        lead,
        durationMs: testDurationMs(inputs, seed, lead, attempt),
        flake: uniform(seed, STREAM.flake, lead, attempt) < inputs.flakeRate,
        ciStart: null,
      };
      inFlight.set(run.id, run);
      if (busy < capacity) giveRunner(run, at);
      else waitingForRunner.push(run);
    }
    if (e.from === 'not_ready' && e.to === 'pending') {
      admittedAt.set(e.prNumber, at);
      setDepth(1, at);
    }
    if ((e.to === 'merged' || e.to === 'failed') && e.from !== null && e.from !== 'not_ready') {
      setDepth(-1, at);
      const adm = admittedAt.get(e.prNumber);
      if (adm !== undefined) {
        concludedTimeInQueue += at - adm;
        concluded++;
      }
    }
    if (e.to === 'merged') {
      merged.add(e.prNumber);
      m.merged++;
      ttm.push((at - (submittedAt.get(e.prNumber) ?? at)) / 1000);
    } else if (e.to === 'failed') {
      if (breaks(e.prNumber)) m.failedReal++;
      else m.failedFlaky++;
    }
  };

  const engine = new SimEngine(seed, T0, onEffect);
  engine.configure(settings, T0);

  /** Drops runs the engine ended on its own (cancelled, timed out) and hands freed runners on. */
  const sweep = (now: number) => {
    if (!dirty) return;
    dirty = false;
    for (const [id, run] of inFlight) {
      if (engine.run(id)?.inProgress) continue;
      inFlight.delete(id);
      if (run.ciStart !== null) {
        busy--;
        m.testMs += now - run.ciStart;
      } else {
        const i = waitingForRunner.indexOf(run);
        if (i >= 0) waitingForRunner.splice(i, 1);
      }
    }
    while (busy < capacity && waitingForRunner.length > 0) giveRunner(waitingForRunner.shift() as CiRun, now);
  };

  let prNumber = 1;
  let nextArrival = nextArrivalAfter(inputs, T0, -Math.log(uniform(seed, STREAM.arrival, 1)));
  for (;;) {
    const nextDone = completions.peek()?.[0] ?? Number.POSITIVE_INFINITY;
    const nextEngine = engine.nextDueAt() ?? Number.POSITIVE_INFINITY;
    const t = Math.min(nextArrival, nextDone, nextEngine);
    if (t > end) break;
    if (nextDone === t) {
      const [, , id] = completions.pop() as [number, number, string];
      const run = inFlight.get(id);
      if (run && run.ciStart !== null) {
        const info = engine.run(id);
        if (info?.inProgress) {
          const bad = info.group.some(breaks) || info.base.some((n) => !merged.has(n) && breaks(n));
          dirty = true;
          engine.complete(id, !bad && !run.flake, t);
        }
      }
    } else if (nextEngine === t) {
      engine.advance(t);
    } else {
      const n = prNumber++;
      submittedAt.set(n, t);
      m.arrived++;
      const lane = lanes > 0 ? `lane-${Math.floor(uniform(seed, STREAM.lane, n) * lanes)}` : null;
      engine.submit(n, breaks(n), lane, t);
      nextArrival = nextArrivalAfter(inputs, t, -Math.log(uniform(seed, STREAM.arrival, n + 1)));
    }
    sweep(t);
  }
  engine.advance(end);
  dirty = true;
  sweep(end);
  for (const run of inFlight.values()) if (run.ciStart !== null) m.testMs += end - run.ciStart;
  setDepth(0, end);

  ttm.sort((a, b) => a - b);
  const spanMs = end - T0;
  return {
    arrived: m.arrived,
    merged: m.merged,
    failedReal: m.failedReal,
    failedFlaky: m.failedFlaky,
    runsStarted: m.runsStarted,
    testMinutes: m.testMs / 60_000,
    meanDepth: spanMs > 0 ? depthIntegral / spanMs : 0,
    backlogAtEnd: depth,
    meanTimeInQueueSec: concluded > 0 ? concludedTimeInQueue / concluded / 1000 : null,
    ttmQuantiles: ttm.length > 0 ? TTM_POINTS.map((p) => quantileSorted(ttm, p)) : null,
  };
}
