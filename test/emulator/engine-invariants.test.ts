/**
 * Randomised (but seeded, so reproducible) queues checked against the invariants of
 * queue-semantics.md §4.9 after every step, plus engine-level properties: determinism, a JSON
 * round trip of the state mid-flight, typed errors, and the one-hour metric window.
 */
import { describe, expect, it } from 'vitest';

import {
  EngineError,
  QueueEngine,
  createState,
  validateState,
  type EngineState,
  type PrStateEffect,
} from '../../src/emulator/engine/index.js';
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
  effects: PrStateEffect[];
  breaking: Set<number>;
  concurrency: number;
  bisectionConcurrency: number | null;
  /** Whether the queue was (or may have been) in parallel mode at some point. */
  parallelEver: boolean;
}

const POOL = ['api', 'web', 'docs', 'infra'];

/**
 * A random queue: random settings (batching, bisection slots, skip-redundant, parallel mode, direct
 * merge, pending failure depth, optimistic merging) and random steps (submissions with targets,
 * priorities — urgent included — and noBatch, cancels, restarts, pauses, mode switches, time).
 */
function randomQueue(seed: number, steps = 60, onStep?: (r: Run, step: number) => void): Run {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const effects: PrStateEffect[] = [];
  const engine = new QueueEngine(createState(seed, T0), { onEffect: (e) => e.type === 'pr_state' && effects.push(e) });
  const concurrency = 1 + Math.floor(rand() * 5);
  const bisectionConcurrency = rand() < 0.5 ? null : 1 + Math.floor(rand() * 3);
  const mode = rand() < 0.3 ? 'parallel' : 'single';
  engine.createQueue({ ...q, concurrency, mode }, T0);
  engine.updateQueue(
    {
      ...q,
      testingTimeoutMinutes: 45,
      pendingFailureDepth: Math.floor(rand() * 3),
      canOptimisticallyMerge: rand() < 0.5,
      batch: rand() < 0.5,
      batchingMinSize: 1 + Math.floor(rand() * 4),
      batchingMaxWaitTimeMinutes: Math.floor(rand() * 7),
      optimizationMode: rand() < 0.5 ? 'off' : 'bisection_skip_redundant_tests',
      directMergeMode: rand() < 0.2 ? 'always' : 'off',
      ...(bisectionConcurrency !== null ? { bisectionConcurrency } : {}),
    },
    T0,
  );
  const breaking = new Set<number>();
  const run: Run = { engine, effects, breaking, concurrency, bisectionConcurrency, parallelEver: mode === 'parallel' };
  let now = T0;
  let next = 1;
  const anyPr = () => 1 + Math.floor(rand() * Math.max(1, next - 1));
  for (let step = 0; step < steps; step++) {
    now += Math.floor(rand() * 8) * MIN;
    const roll = rand();
    try {
      if (roll < 0.55) {
        const n = next++;
        const kind = rand();
        const outcomes: Array<'fail' | 'hang' | 'pass'> = kind < 0.1 ? ['fail'] : kind < 0.15 ? ['hang'] : [];
        if (kind > 0.9) breaking.add(n);
        const pr = engine.upsertFakePr(
          {
            repo,
            number: n,
            outcomes,
            breaksBuild: breaking.has(n),
            testMinutes: 5 + Math.floor(rand() * 20),
            upToDate: rand() < 0.2,
          },
          now,
        );
        const t = rand();
        const targets = t < 0.1 ? 'ALL' : t < 0.2 ? [] : [...new Set([pick(POOL), pick(POOL)])];
        engine.setImpactedTargets({ ...q, pr: { number: n, sha: pr.sha }, impactedTargets: targets }, now);
        const p = rand();
        engine.submit(
          {
            ...q,
            pr: { number: n },
            ...(p < 0.1 ? { priority: 'high' } : p < 0.15 ? { priority: 'urgent' } : {}),
            noBatch: rand() < 0.1,
          },
          now,
        );
      } else if (roll < 0.63) {
        engine.cancel({ ...q, pr: { number: anyPr() } }, now);
      } else if (roll < 0.72) {
        engine.restart({ ...q, pr: { number: anyPr() } }, now);
      } else if (roll < 0.77) {
        engine.updateQueue({ ...q, state: rand() < 0.5 ? 'paused' : 'running' }, now);
      } else if (roll < 0.8) {
        const to = rand() < 0.5 ? 'parallel' : 'single';
        run.parallelEver ||= to === 'parallel';
        engine.updateQueue({ ...q, mode: to }, now);
      } else if (roll < 0.82) {
        // Raising a live PR to urgent (a resubmission after it left would start a new trip).
        const n = anyPr();
        if (engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, now).live) {
          engine.submit({ ...q, pr: { number: n }, priority: 'urgent' }, now);
        }
      } else {
        engine.advance(now);
      }
    } catch (err) {
      if (!(err instanceof EngineError)) throw err; // 404/400 for PRs not in the queue, refused updates
    }
    onStep?.(run, step);
  }
  engine.updateQueue({ ...q, state: 'running' }, now);
  for (let due = engine.nextDueAt(); due !== null; due = engine.nextDueAt()) engine.advance(due);
  return run;
}

function checkInvariants({ engine, concurrency, bisectionConcurrency }: Run): void {
  const runs = engine.listRuns().filter((r) => r.status === 'in_progress');
  const main = runs.filter((r) => !r.isBisection).length;
  const bisection = runs.length - main;
  // 4.9.2: concurrency counts runs (groups); bisection has its own slots, or shares the main ones.
  if (bisectionConcurrency === null) {
    expect(main + bisection).toBeLessThanOrEqual(concurrency);
  } else {
    expect(main).toBeLessThanOrEqual(concurrency);
    expect(bisection).toBeLessThanOrEqual(bisectionConcurrency);
  }
  const m = engine.metrics(engine.now)[0]!;
  const order = engine.getQueue(q, engine.now).entries;
  // Every PR of a run in flight is TESTING, and every TESTING PR is in exactly one run in flight.
  const testing = order
    .filter((e) => e.state === 'testing')
    .map((e) => e.prNumber)
    .sort((a, b) => a - b);
  const inRuns = runs.flatMap((r) => r.prNumbers).sort((a, b) => a - b);
  expect(inRuns).toEqual(testing);
  expect(m.testingSlots + (m.bisection?.testingSlots ?? 0)).toBe(testing.length);
  expect(m.depth + (m.bisection?.depth ?? 0)).toBe(order.length);
  expect(new Set(order.map((e) => e.prNumber)).size).toBe(order.length);
  // The waiting-region target index (parallel look-ups) matches the waiting PRs.
  const qr = Object.values(engine.state.queues)[0]!;
  const index = { targets: {} as Record<string, number>, all: 0, nonEmpty: 0 };
  for (const list of Object.values(qr.waiting)) {
    for (let n = list.head; n !== null; n = qr.entries[String(n)]!.next) {
      const t = qr.entries[String(n)]!.targets;
      if (t === null || (t !== 'ALL' && t.length === 0)) continue;
      index.nonEmpty++;
      if (t === 'ALL') index.all++;
      else for (const x of new Set(t)) index.targets[x] = (index.targets[x] ?? 0) + 1;
    }
  }
  expect(qr.waitingIndex).toEqual(index);
}

function checkOutcome(r: Run): void {
  const mergeEffects = r.effects.filter((e) => e.to === 'merged');
  const merges = mergeEffects.map((e) => e.prNumber);
  const mergedAt = new Map(merges.map((n, i) => [n, i]));
  // A PR that breaks the build can never be covered by a passing run, so it never merges (a direct
  // merge skips testing altogether: it needs an up-to-date PR and an empty lane).
  const direct = new Set(mergeEffects.filter((e) => e.reason === 'MERGE_GRAPH_DIRECT_MERGE').map((e) => e.prNumber));
  for (const n of r.breaking) if (!direct.has(n)) expect(mergedAt.has(n), `breaking PR ${n} merged`).toBe(false);
  // 4.9.1/4.9.6: each merged PR merged once, covered by a passing run (its own, one that vouched
  // for it, or the bisection run that tested exactly its content); everything that run tested merged, and what the PR was tested on top of
  // (its own run's base and the PRs ahead of it in its group) merged before it. In a queue that was
  // only ever single, the tested set is one lane: it merged in exactly its order.
  expect(new Set(merges).size).toBe(merges.length);
  const runs = new Map(r.engine.listRuns().map((x) => [x.id, x]));
  const entries = Object.values(r.engine.state.queues)[0]!.entries;
  for (const n of merges) {
    if (direct.has(n)) continue;
    const pr = r.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, r.engine.now);
    const run = runs.get(pr.verifiedByTestRun ?? '');
    expect(run?.status, `run covering PR ${n}`).toBe('succeeded');
    const tested = [...run!.basePrNumbers, ...run!.prNumbers];
    // The branch it merged onto is what that run tested (a bisection run counts only then, 15.2):
    // every PR merged before it merged before the run started, or was tested by the run.
    if (!r.parallelEver) {
      const started = r.effects.findIndex((e) => e.runId === run!.id && e.to === 'testing');
      const mine = r.effects.indexOf(mergeEffects[mergedAt.get(n)!]!);
      for (const e of mergeEffects) {
        const at = r.effects.indexOf(e);
        if (at >= mine || at < started) continue;
        expect(tested, `PR ${e.prNumber} merged under PR ${n} without being tested with it`).toContain(e.prNumber);
      }
    }
    const at = tested.indexOf(n);
    expect(at).toBeGreaterThanOrEqual(0);
    for (const b of tested) expect(mergedAt.has(b), `PR ${b} tested with PR ${n} merged`).toBe(true);
    const own = runs.get(entries[String(n)]?.runId ?? '');
    const deps = own ? [...own.basePrNumbers, ...own.prNumbers.slice(0, own.prNumbers.indexOf(n))] : [];
    for (const b of deps) expect(mergedAt.get(b), `PR ${b} under PR ${n}`).toBeLessThan(mergedAt.get(n)!);
    if (r.parallelEver) continue;
    tested.forEach((b, i) => {
      if (i < at) expect(mergedAt.get(b), `PR ${b} ahead of PR ${n} in its run`).toBeLessThan(mergedAt.get(n)!);
      if (i > at) expect(mergedAt.get(b), `PR ${b} behind PR ${n} in its run`).toBeGreaterThan(mergedAt.get(n)!);
    });
  }
  // Everything settles once the queue runs freely: nothing admitted is left, no bisection either.
  const m = r.engine.metrics(r.engine.now)[0]!;
  expect(m.depth).toBe(0);
  expect(m.bisection?.depth ?? 0).toBe(0);
  expect(r.engine.getQueue(q, r.engine.now).state).not.toBe('switching_modes');
}

/** With DBG=1, what a failing seed did: the transitions, the queue and the runs. */
function dump(r: Run, step?: number): void {
  if (!process.env.DBG) return;
  if (step !== undefined) console.log(`failed after step ${step}`);
  console.log(r.effects.map((e) => `${(e.at - T0) / MIN} #${e.prNumber} ${e.from}->${e.to} ${e.reason}`).join('\n'));
  const { entries, ...settings } = r.engine.getQueue(q, r.engine.now);
  console.log(settings, entries.map((e) => `${e.prNumber}:${e.state}`).join(' '));
  console.log(
    r.engine
      .listRuns()
      .map((x) => `${x.prNumbers.join('+')}[${x.basePrNumbers.join(',')}]${x.isBisection ? 'B' : ''}:${x.status}`)
      .join(' '),
  );
}

describe('random queues keep the invariants', () => {
  for (const seed of Array.from({ length: Number(process.env.SEEDS ?? 40) }, (_, i) => i + 1)) {
    it(`seed ${seed}`, () => {
      const r = randomQueue(seed, Number(process.env.STEPS ?? 80), (run, step) => {
        try {
          checkInvariants(run);
        } catch (err) {
          dump(run, step);
          throw err;
        }
      });
      try {
        checkInvariants(r);
        checkOutcome(r);
      } catch (err) {
        dump(r);
        throw err;
      }
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

  it('loads a state saved before batching, bisection and parallel mode existed, and runs it on', () => {
    const e = new QueueEngine(createState(5, T0));
    e.createQueue({ ...q, concurrency: 2 }, T0);
    for (const n of [1, 2, 3]) e.submit({ ...q, pr: { number: n } }, T0);
    const old = JSON.parse(JSON.stringify(e.state)) as Record<string, any>;
    for (const qr of Object.values(old.queues) as Array<Record<string, any>>) {
      for (const k of [
        'inFlight',
        'waitingIndex',
        'batchTimerAt',
        'bisections',
        'bisectionSamples',
        'everBisected',
        'switching',
        'tipSeq',
      ])
        delete qr[k];
      for (const en of Object.values(qr.entries) as Array<Record<string, any>>) {
        delete en.targets;
        delete en.bisection;
      }
    }
    for (const r of Object.values(old.runs) as Array<Record<string, any>>) {
      delete r.bisectionId;
      delete r.targets;
    }
    for (const p of Object.values(old.fakePrs) as Array<Record<string, any>>) delete p.upToDateTip;
    const loaded = new QueueEngine(validateState(old));
    expect(Object.values(loaded.state.queues)[0]!.inFlight).toEqual({ main: 2, bisection: 0 });
    loaded.updateQueue({ ...q, batch: true, batchingMinSize: 2 }, T0);
    loaded.advance(T0 + 30 * MIN);
    expect([1, 2, 3].map((n) => loaded.getSubmittedPullRequest({ ...q, pr: { number: n } }, loaded.now).state)).toEqual(
      ['merged', 'merged', 'merged'],
    );
  });

  it('throws typed errors of a kind and changes nothing', () => {
    const e = new QueueEngine(createState(1, T0));
    const status = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof EngineError ? err.kind : 'other';
      }
      return 'none';
    };
    expect(status(() => e.getQueue(q, T0))).toBe('not_found');
    e.createQueue(q, T0);
    expect(status(() => e.createQueue(q, T0))).toBe('conflict');
    expect(status(() => e.submit({ ...q, pr: { number: -1 } }, T0))).toBe('invalid');
    expect(status(() => e.submit({ ...q, pr: { number: 1 }, priority: 'asap' }, T0))).toBe('invalid');
    expect(status(() => e.updateQueue({ ...q, concurrency: 0, batch: true }, T0))).toBe('invalid');
    expect(e.getQueue(q, T0).config.batch).toBe(false);
    expect(status(() => e.cancel({ ...q, pr: { number: 1 } }, T0))).toBe('not_found');
    expect(status(() => e.completeRun('nope', 'passed', T0))).toBe('not_found');
    expect(e.getQueue(q, T0).entries).toEqual([]);
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
