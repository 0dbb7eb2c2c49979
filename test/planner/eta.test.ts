/**
 * The ETA estimator on small hand-made queues, seeded: concurrency 1, no batching, so a PR behind N
 * others with fixed 10-minute tests merges after the N runs ahead and its own.
 */
import { describe, expect, it } from 'vitest';
import type { QueueOrder } from '../../src/domain/order.js';
import { chooseEta, type EtaInput, type EtaProfile, estimateMergeTime, fitEtaProfile } from '../../src/planner/eta.js';
import type { ConcludedPr, TestAttempt } from '../../src/stats/model.js';

const NOW = Date.UTC(2026, 4, 1, 9);
const MIN = 60_000;
const FIXED: EtaProfile = { testMinutes: 10, testTimeSpread: 0, failureRate: 0, flakeRate: 0, arrivalsPerHour: 0 };

/** #1 under test (run r1, started 4 minutes ago), #2..#n pending behind it. */
function input(n: number, over: Partial<EtaInput> = {}, queueState = 'running'): EtaInput {
  const order: QueueOrder = {
    queueState,
    mode: 'single',
    batchingEnabled: false,
    batches: [{ runId: 'r1', state: 'testing', isBisection: false, prs: [{ number: 1, title: null }] }],
    pending: Array.from({ length: n - 1 }, (_, i) => ({
      number: i + 2,
      title: null,
      schedulability: 'schedulable' as const,
      predictedBatch: i + 1,
      directlyAhead: [i + 1],
      heldBy: [],
    })),
    awaitingAdmission: [],
    awaitingAdmissionTotal: 0,
    approximate: false,
  };
  return {
    pr: n,
    now: NOW,
    order,
    queue: { concurrency: 1, batch: false, mode: 'single' },
    runStarts: { r1: NOW - 4 * MIN },
    profile: FIXED,
    ...over,
  };
}

describe('estimateMergeTime', () => {
  it('a PR behind 3 others with fixed 10-minute tests merges after the 6 minutes left and 3 runs', () => {
    const eta = estimateMergeTime(input(4), { runs: 20 });
    expect(eta).toMatchObject({ status: 'available', source: 'simulation', ahead: 3, merged: 20, failProbability: 0 });
    if (eta.status !== 'available' || eta.source !== 'simulation') throw new Error('no ETA');
    expect(eta.p50 - NOW).toBeGreaterThanOrEqual(36 * MIN);
    expect(eta.p50 - NOW).toBeLessThanOrEqual(37 * MIN);
    expect(eta.p90).toBe(eta.p50);
  });

  it('the PR under test merges when its run ends', () => {
    const eta = estimateMergeTime(input(1), { runs: 5 });
    if (eta.status !== 'available') throw new Error(eta.reason);
    expect((eta.p50 - NOW) / MIN).toBeCloseTo(6, 0);
  });

  it('failure and flake rates widen the interval and give a chance of failing', () => {
    // Three runs at once: a PR ahead that fails sends the runs on top of it back to be tested again.
    const queue = { concurrency: 3, batch: false, mode: 'single' };
    const calm = estimateMergeTime(input(8, { queue }), { runs: 200 });
    const wide = estimateMergeTime(input(8, { queue, profile: { ...FIXED, failureRate: 0.2, flakeRate: 0.05 } }), {
      runs: 200,
    });
    if (calm.status !== 'available' || wide.status !== 'available') throw new Error('no ETA');
    if (calm.source !== 'simulation' || wide.source !== 'simulation') throw new Error('wrong source');
    expect(wide.p90 - wide.p50).toBeGreaterThan(calm.p90 - calm.p50);
    expect(wide.p50).toBeGreaterThan(calm.p50);
    expect(calm.failProbability).toBe(0);
    expect(wide.failProbability).toBeGreaterThan(0.1);
    expect(wide.merged + Math.round(wide.failProbability * 200) + wide.unresolved).toBe(200);
  });

  it('the same seed gives the same ETA', () => {
    const p = { ...FIXED, failureRate: 0.1, testTimeSpread: 0.5 };
    expect(estimateMergeTime(input(6, { profile: p }), { runs: 50, seed: 7 })).toEqual(
      estimateMergeTime(input(6, { profile: p }), { runs: 50, seed: 7 }),
    );
  });

  it('no ETA, with a reason: a paused queue, a PR not in it, no history to fit', () => {
    expect(estimateMergeTime(input(3, {}, 'paused'))).toEqual({
      status: 'unavailable',
      source: 'simulation',
      reason: 'the queue is paused: nothing merges until it resumes',
    });
    expect(estimateMergeTime({ ...input(3), pr: 99 })).toMatchObject({ reason: '#99 is not in the queue' });
    expect(estimateMergeTime(input(3, { profile: null }))).toMatchObject({ status: 'unavailable' });
  });
});

describe('chooseEta', () => {
  it("prefers the service's merge estimate and says so; else runs the simulation", () => {
    const served = { status: 'available' as const, kind: 'merge' as const, computedAt: NOW, estimatedAt: NOW + MIN };
    let ran = 0;
    const sim = () => {
      ran++;
      return estimateMergeTime(input(2), { runs: 5 });
    };
    expect(chooseEta(served, sim)).toEqual({
      status: 'available',
      source: 'service',
      p50: NOW + MIN,
      p90: null,
      computedAt: NOW,
    });
    expect(ran).toBe(0);
    expect(chooseEta(undefined, sim)).toMatchObject({ source: 'simulation' });
    expect(chooseEta({ status: 'unavailable', reason: 'ESTIMATE_NOT_ENABLED', computedAt: null }, sim)).toMatchObject({
      source: 'simulation',
    });
    expect(ran).toBe(2);
  });
});

describe('fitEtaProfile', () => {
  // 20 runs of 3 PRs each (60 PRs, all merged), 10 minutes each; every 5th run failed and its PRs
  // merged later: no PR failed on its own, so only the runs tell of the flakes.
  const prs: ConcludedPr[] = [];
  const attempts: TestAttempt[] = [];
  for (let r = 0; r < 20; r++) {
    const at = NOW + r * 10 * MIN;
    for (let k = 0; k < 3; k++) {
      const number = r * 3 + k + 1;
      prs.push({ number, state: 'merged', submittedAt: at, concludedAt: at + 30 * MIN });
      const result = r % 5 === 0 ? 'failed' : 'passed';
      attempts.push({
        runId: `r${r}`,
        prNumber: number,
        startedAt: at,
        finishedAt: at + 10 * MIN,
        result,
        bisection: false,
      });
    }
  }
  const window = { since: NOW, until: NOW + 86_400_000 };

  it('counts failed batch runs no breaking PR explains as flakes', () => {
    const p = fitEtaProfile(window, prs, attempts);
    expect(p).toMatchObject({ testMinutes: 10, testTimeSpread: 0, failureRate: 0 });
    expect(p?.flakeRate).toBeCloseTo(4 / 20, 6);
  });

  it('failed PRs count as breaking; fewer than 5 finished runs: no profile', () => {
    const failed = prs.map((p, i) => (i % 10 === 0 ? { ...p, state: 'failed' as const } : p));
    expect(fitEtaProfile(window, failed, attempts)?.failureRate).toBeCloseTo(6 / 60, 4);
    expect(fitEtaProfile(window, prs, attempts.slice(0, 12))).toBeNull();
  });
});
