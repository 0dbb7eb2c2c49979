/**
 * Randomised (but seeded, so reproducible) queues checked against the invariants of
 * queue-semantics.md §4.9 after every step, plus engine-level properties: determinism, a JSON
 * round trip of the state mid-flight, typed errors, and the one-hour metric window.
 */
import { describe, expect, it } from 'vitest';

import { EngineError, QueueEngine, createState, type Effect, type EngineState } from '../../src/emulator/engine/index.js';
import { T0, repo, targetBranch } from './engine-harness.js';

const q = { repo, targetBranch };
const MIN = 60_000;

/** Small deterministic PRNG for the test's own choices (independent of the engine's). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  engine: QueueEngine;
  effects: Effect[];
  breaking: Set<number>;
  concurrency: number;
}

function randomQueue(seed: number, steps = 60, onStep?: (r: Run, step: number) => void): Run {
  const rand = rng(seed);
  const effects: Effect[] = [];
  const engine = new QueueEngine(createState(seed, T0), { onEffect: (e) => effects.push(e) });
  const concurrency = 1 + Math.floor(rand() * 5);
  engine.createQueue({ ...q, concurrency }, T0);
  engine.updateQueue(
    {
      ...q,
      testingTimeoutMinutes: 45,
      pendingFailureDepth: Math.floor(rand() * 3),
      canOptimisticallyMerge: rand() < 0.5,
    },
    T0,
  );
  const breaking = new Set<number>();
  const run: Run = { engine, effects, breaking, concurrency };
  let now = T0;
  let next = 1;
  for (let step = 0; step < steps; step++) {
    now += Math.floor(rand() * 8) * MIN;
    const roll = rand();
    try {
      if (roll < 0.55) {
        const n = next++;
        const kind = rand();
        const outcomes: Array<'fail' | 'hang' | 'pass'> = kind < 0.1 ? ['fail'] : kind < 0.15 ? ['hang'] : [];
        if (kind > 0.9) breaking.add(n);
        engine.upsertFakePr({ repo, number: n, outcomes, breaksBuild: breaking.has(n), testMinutes: 5 + Math.floor(rand() * 20) }, now);
        engine.submit({ ...q, pr: { number: n }, ...(rand() < 0.15 ? { priority: 'high' } : {}) }, now);
      } else if (roll < 0.65) {
        engine.cancel({ ...q, pr: { number: 1 + Math.floor(rand() * (next - 1)) } }, now);
      } else if (roll < 0.75) {
        engine.restart({ ...q, pr: { number: 1 + Math.floor(rand() * (next - 1)) } }, now);
      } else if (roll < 0.8) {
        engine.updateQueue({ ...q, state: rand() < 0.5 ? 'paused' : 'running' }, now);
      } else {
        engine.advance(now);
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err; // 404/400 for PRs not in the queue are fine
    }
    onStep?.(run, step);
  }
  engine.updateQueue({ ...q, state: 'running' }, now);
  for (let due = engine.nextDueAt(); due !== null; due = engine.nextDueAt()) engine.advance(due);
  return run;
}

function checkInvariants({ engine, concurrency }: Run): void {
  const runs = engine.listRuns();
  const inFlight = runs.filter((r) => r.status === 'in_progress').length;
  // 4.9.2: never more runs in flight than the concurrency.
  expect(inFlight).toBeLessThanOrEqual(concurrency);
  const m = engine.metrics(engine.now)[0]!;
  expect(m.testingSlots).toBe(inFlight);
  const order = engine.getQueue(q, engine.now).enqueuedPullRequests;
  expect(m.depth).toBe(order.length);
}

function checkOutcome(r: Run): void {
  const merges = r.effects.filter((e) => e.to === 'merged').map((e) => e.prNumber);
  const mergedAt = new Map(merges.map((n, i) => [n, i]));
  // A PR that breaks the build can never be covered by a passing run, so it never merges.
  for (const n of r.breaking) expect(mergedAt.has(n), `breaking PR ${n} merged`).toBe(false);
  // 4.9.1/4.9.6: each merged PR merged once, covered by a passing run (its own, or a successor's
  // that vouched for it) whose tested set merged in exactly its order around it.
  expect(new Set(merges).size).toBe(merges.length);
  const runs = new Map(r.engine.listRuns().map((x) => [x.id, x]));
  for (const n of merges) {
    const pr = r.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, r.engine.now);
    const run = runs.get(pr.verifiedByTestRun ?? '');
    expect(run?.status, `run covering PR ${n}`).toBe('succeeded');
    const tested = [...run!.basePrNumbers, ...run!.prNumbers];
    const at = tested.indexOf(n);
    expect(at).toBeGreaterThanOrEqual(0);
    tested.forEach((b, i) => {
      if (i < at) expect(mergedAt.get(b), `PR ${b} ahead of PR ${n} in its run`).toBeLessThan(mergedAt.get(n)!);
      if (i > at) expect(mergedAt.get(b), `PR ${b} behind PR ${n} in its run`).toBeGreaterThan(mergedAt.get(n)!);
    });
  }
  // Everything settles once the queue runs freely: nothing admitted is left.
  expect(r.engine.metrics(r.engine.now)[0]!.depth).toBe(0);
}

describe('random queues keep the invariants', () => {
  for (const seed of Array.from({ length: Number(process.env.SEEDS ?? 24) }, (_, i) => i + 1)) {
    it(`seed ${seed}`, () => {
      const r = randomQueue(seed, Number(process.env.STEPS ?? 80), (run) => checkInvariants(run));
      checkInvariants(r);
      if (process.env.DBG) console.log(r.effects.map((e) => `${(e.at - T0) / MIN} #${e.prNumber} ${e.from}->${e.to} ${e.reason}`).join('\n'));
      checkOutcome(r);
    });
  }
});

describe('engine properties', () => {
  it('is deterministic for a seed and survives a JSON round trip mid-flight', () => {
    const a = randomQueue(99);
    const b = randomQueue(99);
    expect(b.effects).toEqual(a.effects);

    let saved: EngineState | undefined;
    randomQueue(99, 40, (run, step) => {
      if (step === 20) saved = JSON.parse(JSON.stringify(run.engine.state)) as EngineState;
    });
    const original = new QueueEngine(JSON.parse(JSON.stringify(saved)) as EngineState);
    const restored = new QueueEngine(JSON.parse(JSON.stringify(saved)) as EngineState);
    for (const e of [original, restored]) {
      e.updateQueue({ ...q, state: 'running' }, e.now);
      for (let due = e.nextDueAt(); due !== null; due = e.nextDueAt()) e.advance(due);
    }
    expect(restored.state).toEqual(original.state);
    expect(restored.listRuns().length).toBeGreaterThan(0);
  });

  it('throws typed errors with HTTP statuses and changes nothing', () => {
    const e = new QueueEngine(createState(1, T0));
    const status = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof EngineError ? err.status : 'other';
      }
      return 'none';
    };
    expect(status(() => e.getQueue(q, T0))).toBe(404);
    e.createQueue(q, T0);
    expect(status(() => e.createQueue(q, T0))).toBe(409);
    expect(status(() => e.submit({ ...q, pr: { number: -1 } }, T0))).toBe(400);
    expect(status(() => e.submit({ ...q, pr: { number: 1 }, priority: 'asap' }, T0))).toBe(400);
    expect(status(() => e.updateQueue({ ...q, concurrency: 0, batch: true }, T0))).toBe(400);
    expect(e.getQueue(q, T0).batch).toBe(false);
    expect(status(() => e.cancel({ ...q, pr: { number: 1 } }, T0))).toBe(404);
    expect(status(() => e.completeRun('nope', 'passed', T0))).toBe(404);
    expect(e.getQueue(q, T0).enqueuedPullRequests).toEqual([]);
  });

  it('records mergeMethod and required statuses, and keeps metrics to the last hour', () => {
    const e = new QueueEngine(createState(1, T0));
    e.createQueue({ ...q, concurrency: 2 }, T0);
    e.updateQueue({ ...q, mergeMethod: 'rebase', requiredStatuses: ['unit', 'e2e'] }, T0);
    e.submit({ ...q, pr: { number: 1 } }, T0);
    const run = e.listRuns()[0]!;
    expect(e.getTestingDetails({ ...q, testRunId: run.testBranch }, T0)).toMatchObject({
      requiredStatuses: ['unit', 'e2e'],
      requiredStatusesSource: 'merge_instance',
    });
    expect(e.nextDueAt()).toBe(T0 + 10 * MIN);
    e.advance(T0 + 10 * MIN);
    const entry = Object.values(e.state.queues)[0]!.entries['1']!;
    expect([entry.state, entry.mergeMethod]).toEqual(['merged', 'rebase']);
    expect(e.metrics(T0 + 30 * MIN)[0]).toMatchObject({ conclusions: { merged: 1 }, timeInQueueSeconds: [600] });
    expect(e.metrics(T0 + 71 * MIN)[0]).toMatchObject({ conclusions: { merged: 0 }, timeInQueueSeconds: [] });
  });
});
