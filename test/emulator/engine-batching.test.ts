/**
 * Batching, bisection and skip-redundant bisection tests (queue-semantics §2.3–2.4, D5–D8) on the
 * virtual clock, built from the docs' own examples. Run shapes read `PRs[base]`, e.g. `3+4[1,2]`.
 */
import { describe, expect, it } from 'vitest';

import { Scenario, repo, targetBranch } from './engine-harness.js';

const q = { repo, targetBranch };
const BATCH = { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 } as const;

describe('batching', () => {
  it('starts a batch when the wait runs out with fewer PRs than the target, and merges each PR on its own (T-BATCH-old timing)', () => {
    // Target 4, wait 5 min: A at 00:00, B at 01:00, C at 02:30; at 05:00 the wait is over → test ABC.
    const s = new Scenario(BATCH).submit(1).at(1).submit(2).at(2.5).submit(3);
    expect(s.at(4.99).runs()).toHaveLength(0);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'pending', 2: 'pending', 3: 'pending' });
    s.at(5);
    expect(s.runShapes()).toEqual(['1+2+3[]']);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'testing' });
    s.at(15);
    // One run, three merges: every PR of a batch is its own commit, in queue order (T7).
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runs()).toHaveLength(1);
    expect(s.batchEffects.map((b) => [b.event, b.prNumbers])).toEqual([
      ['testing', [1, 2, 3]],
      ['merged', [1, 2, 3]],
    ]);
    expect(s.metrics().conclusions.merged).toBe(3);
  });

  it('a full batch starts at once and batches are tested predictively: main <- ABC <- DEF+abc, G waits', () => {
    const s = new Scenario({ ...BATCH, batchingMinSize: 3 });
    for (const n of [1, 2, 3, 4, 5, 6, 7]) s.submit(n);
    expect(s.runShapes()).toEqual(['1+2+3[]', '4+5+6[1,2,3]']);
    expect(s.state(7)).toBe('pending');
    s.at(5); // G's wait is over: it goes alone, on top of both batches
    expect(s.runShapes()).toEqual(['1+2+3[]', '4+5+6[1,2,3]', '7[1,2,3,4,5,6]']);
    s.at(15);
    expect(s.merged()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Concurrency counts batches: 3 runs for 7 PRs.
    expect(s.runs()).toHaveLength(3);
  });

  it('concurrency counts batches, not PRs', () => {
    const s = new Scenario({ ...BATCH, batchingMinSize: 2, concurrency: 1 });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    expect(s.runShapes()).toEqual(['1+2[]']);
    expect(s.metrics().testingSlots).toBe(2);
    s.at(10);
    expect(s.runShapes()).toEqual(['1+2[]', '3+4[]']);
    s.at(20);
    expect(s.merged()).toEqual([1, 2, 3, 4]);
  });

  it('a noBatch PR is tested alone and keeps its position; it closes the batch ahead of it', () => {
    const s = new Scenario(BATCH).submit(1).submit(2);
    s.engine.submit({ ...q, pr: { number: 3 }, noBatch: true }, s.t);
    s.submit(4).submit(5);
    // 1+2 cannot grow past the noBatch PR, so it starts; 3 alone on top; 4+5 wait for more or the timer.
    expect(s.runShapes()).toEqual(['1+2[]', '3[1,2]']);
    expect(s.states(4, 5)).toEqual({ 4: 'pending', 5: 'pending' });
    s.at(5);
    expect(s.runShapes().at(-1)).toBe('4+5[1,2,3]');
    s.at(15);
    expect(s.merged()).toEqual([1, 2, 3, 4, 5]);
    expect(s.queueOrder()).toEqual([]);
  });

  it('with no wait a batch starts with whatever is pending', () => {
    const s = new Scenario({ ...BATCH, batchingMaxWaitTimeMinutes: 0 }).submit(1).submit(2);
    expect(s.runShapes()).toEqual(['1[]', '2[1]']);
  });
});

describe('bisection', () => {
  it('bisects a batch with one breaking PR down to it; the others merge (D bad, ABCD)', () => {
    const s = new Scenario(BATCH).pr(4, { breaksBuild: true });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.at(10);
    // ABCD failed: split in half, tested predictively — AB on main, CD on main+AB.
    expect(s.runShapes()).toEqual(['1+2+3+4[]', '1+2[]', '3+4[1,2]']);
    expect(s.path(1)).toEqual(['not_ready', 'pending', 'testing', 'pending_failure', 'pending', 'testing']);
    expect(s.effects.find((e) => e.prNumber === 3 && e.from === 'pending_failure')?.reason).toBe('BISECTION_REQUIRED');
    s.at(20);
    // AB passed on main — exactly what the main queue would test it on now — so that run is its test
    // and it merges (no identical retest, 15.2); CD failed on top of a clean AB → split again.
    expect(s.runShapes().slice(3)).toEqual(['3[1,2]', '4[1,2,3]']);
    expect(s.merged()).toEqual([1, 2]);
    s.at(40);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged', 4: 'failed' });
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.effects.some((e) => e.reason === 'BISECTION_TEST_RUN_PASSED')).toBe(false);
    const runs = s.runs();
    expect(runs.map((r) => r.isBisection)).toEqual([false, true, true, true, true]);
    // Bisection runs carry the -bisection suffix in their test branch, and their details are found by it.
    const bis = runs[1]!;
    expect(bis.testBranch).toMatch(/^trunk-merge\/pr-1\/[0-9a-f-]{36}-bisection$/);
    expect(s.engine.getTestingDetails({ ...q, testRunId: `${bis.id}-bisection` }, s.t)).toMatchObject({
      testBranch: bis.testBranch,
      testedPullRequests: [{ prNumber: 1 }, { prNumber: 2 }],
    });
    // Each merged PR is covered by the bisection run that tested exactly what it merged onto.
    const verified = [1, 2, 3].map(
      (n) => s.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, s.t).verifiedByTestRun,
    );
    expect(verified).toEqual([runs[1]!.id, runs[1]!.id, runs[3]!.id]);
    // The culprit names the run that failed it.
    expect(s.engine.getSubmittedPullRequest({ ...q, pr: { number: 4 } }, s.t).verifiedByTestRun).toBe(runs[4]!.id);
    expect(s.batchEffects.map((b) => `${b.event}:${b.prNumbers.join('+')}:${b.run.isBisection}`)).toEqual([
      'testing:1+2+3+4:false',
      'pending_failure:1+2+3+4:false',
      'failed:1+2+3+4:false',
      'testing:1+2:true',
      'testing:3+4:true',
      'pending_failure:3+4:true',
      'merged:1+2:true',
    ]);
  });

  it('the PRs behind a failed batch restart without it and are not held by the bisection', () => {
    const s = new Scenario({ ...BATCH, batchingMinSize: 2 }).pr(2, { breaksBuild: true });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    expect(s.runShapes()).toEqual(['1+2[]', '3+4[1,2]']);
    s.at(10);
    expect(s.runShapes()).toEqual(['1+2[]', '3+4[1,2]', '1[]', '2[1]', '3+4[]']);
    expect(s.effects.find((e) => e.prNumber === 3 && e.from === 'pending_failure')?.reason).toBe(
      'PREREQUISITE_MERGE_ITEM_FAILED',
    );
    s.at(20);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'testing', 2: 'failed', 3: 'merged', 4: 'merged' });
    s.at(30);
    expect(s.merged()).toEqual([3, 4, 1]);
  });

  it('a held failed batch is cleared by the batch behind it with optimistic merging (main <- ABC <- DEF+abc)', () => {
    const s = new Scenario({ ...BATCH, batchingMinSize: 3, pendingFailureDepth: 1, canOptimisticallyMerge: true })
      .pr(1, { outcomes: ['fail'] })
      .pr(4, { testMinutes: 15 });
    for (const n of [1, 2, 3, 4, 5, 6]) s.submit(n);
    s.at(10);
    expect(s.states(1, 2, 3, 4)).toEqual({
      1: 'pending_failure',
      2: 'pending_failure',
      3: 'pending_failure',
      4: 'testing',
    });
    s.at(15);
    expect(s.merged()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.runs().some((r) => r.isBisection)).toBe(false);
  });

  it('a failed batch is held for the pending failure depth, then bisected', () => {
    const s = new Scenario({ ...BATCH, batchingMinSize: 2, pendingFailureDepth: 1 })
      .pr(2, { breaksBuild: true })
      .pr(3, { testMinutes: 20 });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    expect(s.runShapes()).toEqual(['1+2[]', '3+4[1,2]']);
    s.at(10);
    // Held: the batch behind it (one hop) is still testing.
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'pending_failure', 2: 'pending_failure', 3: 'testing', 4: 'testing' });
    expect(s.runs().some((r) => r.isBisection)).toBe(false);
    s.at(20);
    // 3+4 failed too (2 was in its base): the window is over, 1+2 is bisected, 3+4 retested without it.
    expect(
      s
        .runs()
        .filter((r) => r.isBisection)
        .map((r) => `${r.prNumbers.join('+')}[${r.basePrNumbers.join(',')}]`),
    ).toEqual(['1[]', '2[1]']);
    expect(s.runShapes()).toContain('3+4[]');
    s.at(60);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'failed', 3: 'merged', 4: 'merged' });
  });

  it('bisection runs use their own slots (bisectionConcurrency), apart from the main queue', () => {
    const s = new Scenario({ ...BATCH, concurrency: 1, bisectionConcurrency: 1 }).pr(4, { breaksBuild: true });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.at(1).submit(5);
    s.at(10);
    const inFlight = () => s.runs().filter((r) => r.status === 'in_progress');
    // One bisection run (AB) and one main run (5 alone, its wait is over) at once.
    expect(inFlight().map((r) => [r.prNumbers.join('+'), r.isBisection])).toEqual([
      ['1+2', true],
      ['5', false],
    ]);
    s.at(20);
    expect(inFlight().filter((r) => r.isBisection)).toHaveLength(1);
    const metrics = s.metrics();
    expect(metrics.bisection).toMatchObject({ depth: 2, testingSlots: 2 });
    s.at(60);
    expect(s.states(1, 2, 3, 4, 5)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged', 4: 'failed', 5: 'merged' });
    expect(s.metrics().bisection).toMatchObject({ depth: 0, failed: 1 });
    expect(s.metrics().conclusions).toMatchObject({ merged: 4, failed: 0 });
  });

  it('a PR cancelled during bisection leaves its group, which is retested without it', () => {
    const s = new Scenario(BATCH).pr(4, { breaksBuild: true });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.at(12).cancel(3);
    // CD was testing on main+AB: D is retested alone on the same base.
    expect(s.runShapes().at(-1)).toBe('4[1,2]');
    expect(s.state(4)).toBe('testing');
    s.at(60);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'merged', 3: 'cancelled', 4: 'failed' });
  });
});

describe('optimizationMode bisection_skip_redundant_tests', () => {
  const runWith = (optimizationMode: 'off' | 'bisection_skip_redundant_tests', breaking: number) => {
    const s = new Scenario({ ...BATCH, optimizationMode }).pr(breaking, { breaksBuild: true });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.at(60);
    return s;
  };

  it('does not rerun a set of PRs that already failed in the bisection: CD on main+AB is ABCD again', () => {
    const off = runWith('off', 4);
    const on = runWith('bisection_skip_redundant_tests', 4);
    const bisectionRuns = (s: Scenario) =>
      s
        .runs()
        .filter((r) => r.isBisection)
        .map((r) => `${r.prNumbers.join('+')}[${r.basePrNumbers.join(',')}]`);
    expect(bisectionRuns(off)).toEqual(['1+2[]', '3+4[1,2]', '3[1,2]', '4[1,2,3]']);
    // "Instead of waiting for AB's result, Trunk splits CD right away. main ← C and main ← C ← D
    // start testing alongside main ← AB."
    expect(bisectionRuns(on)).toEqual(['1+2[]', '3[]', '4[3]']);
    expect(on.runs().filter((r) => r.isBisection && r.createdAt === on.runs()[1]!.createdAt)).toHaveLength(3);
    for (const s of [off, on]) {
      expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged', 4: 'failed' });
    }
  });

  it('retests a single PR on its own when its set already failed and the PRs ahead are still testing (B bad)', () => {
    const on = runWith('bisection_skip_redundant_tests', 2);
    const shapes = on.runShapes();
    // "If AB then fails too, it's split into main ← A and main ← A ← B. The second is the same set
    // of PRs as the failed main ← AB, so it's skipped, and B is re-tested on its own, as main ← B."
    expect(shapes.slice(0, 6)).toEqual(['1+2+3+4[]', '1+2[]', '3[]', '4[3]', '1[]', '2[]']);
    expect(shapes).not.toContain('2[1]');
    expect(on.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'failed', 3: 'merged', 4: 'merged' });
    const off = runWith('off', 2);
    expect(off.runShapes()).toContain('2[1]');
    expect(off.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'failed', 3: 'merged', 4: 'merged' });
  });
});
