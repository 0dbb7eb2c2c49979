/**
 * Scenarios from queue-semantics.md (§2.1 predictive testing, §2.2 pending failure depth, §2.6
 * optimistic merging, §1.4 queue states, §2.12 cancel/restart) on a virtual clock. Times are
 * minutes from t=0; runs take 10 minutes unless a PR says otherwise. Run shapes read `PR[base]`.
 */
import { describe, expect, it } from 'vitest';

import { Scenario } from './engine-harness.js';

describe('predictive testing, happy path', () => {
  it('tests each PR on main plus every PR ahead and merges A, B, C in order', () => {
    const s = new Scenario().submit(1).submit(2).submit(3);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[1,2]']);
    expect(s.at(5).states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'testing' });
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged' });
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runs()).toHaveLength(3);
    expect(s.path(2)).toEqual(['not_ready', 'pending', 'testing', 'tests_passed', 'merged']);
  });

  it('respects concurrency: the third PR waits for a slot and is tested on the new main', () => {
    const s = new Scenario({ concurrency: 2 }).submit(1).submit(2).submit(3);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'pending' });
    expect(s.metrics()).toMatchObject({ depth: 3, testingSlots: 2 });
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'merged', 2: 'merged', 3: 'testing' });
    s.at(20);
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[]']);
  });

  it('merges strictly in queue order: a faster PR behind waits in tests_passed', () => {
    const s = new Scenario().pr(1, { testMinutes: 30 }).submit(1).submit(2);
    expect(s.at(10).states(1, 2)).toEqual({ 1: 'testing', 2: 'tests_passed' });
    expect(s.at(29).state(2)).toBe('tests_passed');
    s.at(30);
    expect(s.merged()).toEqual([1, 2]);
  });
});

describe('a breaking PR and the restarts behind it', () => {
  it('kicks only the first faulty PR and retests the rest without it (§2.1 unhappy path)', () => {
    const s = new Scenario().pr(1, { breaksBuild: true }).submit(1).submit(2).submit(3);
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'testing', 3: 'testing' });
    // B now tests against main, C against main + B.
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[1,2]', '2[]', '3[2]']);
    expect(s.path(2)).toEqual(['not_ready', 'pending', 'testing', 'pending_failure', 'pending', 'testing']);
    s.at(20);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'merged', 3: 'merged' });
    expect(s.merged()).toEqual([2, 3]);
    expect(s.effects.find((e) => e.prNumber === 1 && e.to === 'failed')?.reason).toBe(
      'TEST_RUN_REQUIRED_STATUS_FAILED',
    );
    expect(s.effects.find((e) => e.prNumber === 3 && e.to === 'pending' && e.at > s.effects[0]!.at)?.reason).toBe(
      'PREREQUISITE_MERGE_ITEM_FAILED',
    );
  });

  it('a break in the middle: the PR ahead merges, the ones behind restart on a base without it', () => {
    const s = new Scenario().pr(2, { breaksBuild: true }).submit(1).submit(2).submit(3).submit(4);
    s.at(10);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'failed', 3: 'testing', 4: 'testing' });
    s.at(20);
    expect(s.states(3, 4)).toEqual({ 3: 'merged', 4: 'merged' });
    expect(s.merged()).toEqual([1, 3, 4]);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[1,2]', '4[1,2,3]', '3[]', '4[3]']);
    // PENDING_FAILURE → PENDING is not a TESTING → PENDING restart (invariant 4.9.7).
    expect(s.metrics()).toMatchObject({ restarts: 0, conclusions: { merged: 3, failed: 1, cancelled: 0 } });
  });

  it('a run past testingTimeoutMinutes counts as failed (D12)', () => {
    const s = new Scenario()
      .pr(1, { outcomes: ['hang'] })
      .submit(1)
      .submit(2);
    expect(s.at(59).state(1)).toBe('testing');
    expect(s.state(2)).toBe('tests_passed');
    s.at(60);
    expect(s.states(1, 2)).toEqual({ 1: 'failed', 2: 'testing' });
    expect(s.effects.find((e) => e.prNumber === 1 && e.to === 'failed')?.reason).toBe('TEST_RUN_TIMEOUT');
    expect(s.runs()[0]?.status).toBe('failed');
    s.at(70);
    expect(s.merged()).toEqual([2]);
  });
});

describe('optimistic merging', () => {
  it('as soon as C passes, A, B and C merge (T-OM)', () => {
    const s = new Scenario({ canOptimisticallyMerge: true })
      .pr(1, { testMinutes: 30 })
      .pr(2, { testMinutes: 30 })
      .submit(1)
      .submit(2)
      .submit(3);
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged' });
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runs().map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'succeeded']);
    const vouched = s.engine.getSubmittedPullRequest(
      { repo: s.runs()[0]!.repo, targetBranch: 'main', pr: { number: 1 } },
      s.t,
    );
    expect(vouched.verifiedByTestRun).toBe(s.runs()[2]?.id);
    expect(s.effects.find((e) => e.prNumber === 1 && e.to === 'tests_passed')?.reason).toBe(
      'SUCCESSOR_TEST_RUN_PASSED',
    );
  });

  it('without it, the same queue waits for A and B to finish', () => {
    const s = new Scenario().pr(1, { testMinutes: 30 }).pr(2, { testMinutes: 30 }).submit(1).submit(2).submit(3);
    expect(s.at(10).states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'tests_passed' });
    s.at(30);
    expect(s.merged()).toEqual([1, 2, 3]);
  });
});

describe('pending failure depth', () => {
  it('holds a flaky failure until its successor passes, which clears it (anti-flake)', () => {
    const s = new Scenario({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true })
      .pr(1, { outcomes: ['fail'] })
      .pr(2, { testMinutes: 20 })
      .submit(1)
      .submit(2)
      .submit(3);
    s.at(10);
    // A waits for B (one hop); C is beyond the window and held although a slot is free (D3).
    expect(s.states(1, 2, 3)).toEqual({ 1: 'pending_failure', 2: 'testing', 3: 'pending' });
    expect(s.at(19).runs()).toHaveLength(2);
    s.at(20);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'merged', 2: 'merged', 3: 'testing' });
    expect(s.path(1)).toEqual(['not_ready', 'pending', 'testing', 'pending_failure', 'tests_passed', 'merged']);
    s.at(30);
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[]']);
  });

  it('a real break is held the same way, then fails when the successor fails too', () => {
    const s = new Scenario({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true })
      .pr(1, { breaksBuild: true })
      .pr(2, { testMinutes: 20 })
      .submit(1)
      .submit(2)
      .submit(3);
    expect(s.at(10).states(1, 2, 3)).toEqual({ 1: 'pending_failure', 2: 'testing', 3: 'pending' });
    s.at(20);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'testing', 3: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '2[]', '3[2]']);
    s.at(30); // C passes on main+B first; optimistic merging vouches for B.
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'merged', 3: 'merged' });
    expect(s.merged()).toEqual([2, 3]);
  });

  it('with depth 2 a failure waits for both successors (T-PFD-old example)', () => {
    const s = new Scenario({ pendingFailureDepth: 2 })
      .pr(1, { outcomes: ['fail'] })
      .pr(2, { testMinutes: 15 })
      .pr(3, { testMinutes: 25 })
      .submit(1)
      .submit(2)
      .submit(3);
    expect(s.at(20).states(1, 2, 3)).toEqual({ 1: 'pending_failure', 2: 'tests_passed', 3: 'testing' });
    s.at(25);
    // Without optimistic merging the hold only buys time: A fails, B and C retest without it.
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'testing', 3: 'testing' });
  });

  it('with no successor to wait for, a failure resolves at once (D2)', () => {
    const s = new Scenario({ pendingFailureDepth: 3 }).pr(1, { breaksBuild: true }).submit(1);
    expect(s.at(10).state(1)).toBe('failed');
  });
});

describe('cancel and restart', () => {
  it('cancelling a PR mid-queue restarts the PRs tested on top of it', () => {
    const s = new Scenario().submit(1).submit(2).submit(3).submit(4);
    s.at(5).cancel(2);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'testing', 2: 'cancelled', 3: 'testing', 4: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[1,2]', '4[1,2,3]', '3[1]', '4[1,3]']);
    expect(s.runs().map((r) => r.status)).toEqual([
      'in_progress',
      'cancelled',
      'cancelled',
      'cancelled',
      'in_progress',
      'in_progress',
    ]);
    expect(s.metrics().restarts).toBe(2);
    const pr2 = s.engine.getSubmittedPullRequest(
      { repo: s.runs()[0]!.repo, targetBranch: 'main', pr: { number: 2 } },
      s.t,
    );
    expect(pr2.live).toBe(false);
    s.at(10);
    expect(s.merged()).toEqual([1]);
    s.at(15);
    expect(s.merged()).toEqual([1, 3, 4]);
  });

  it('cancelling a PR that has not started leaves everyone else alone', () => {
    const s = new Scenario({ concurrency: 1 }).submit(1).submit(2).submit(3);
    s.at(2).cancel(2);
    expect(s.runs()).toHaveLength(1);
    s.at(10);
    expect(s.runShapes()).toEqual(['1[]', '3[]']);
  });

  it('a manual restart of a held failure retests it in place; nobody else is retested', () => {
    const s = new Scenario({ concurrency: 2, pendingFailureDepth: 1 })
      .pr(1, { outcomes: ['fail'] })
      .pr(2, { testMinutes: 20 })
      .submit(1)
      .submit(2)
      .submit(3);
    expect(s.at(10).state(1)).toBe('pending_failure');
    s.at(12).restart(1);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'pending' });
    expect(s.effects.filter((e) => e.prNumber === 1 && e.to === 'pending').at(-1)?.reason).toBe(
      'TESTS_RESTARTED_BY_API_REQUEST',
    );
    expect(s.at(20).states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'tests_passed', 3: 'testing' });
    s.at(22);
    expect(s.merged()).toEqual([1, 2]);
    s.at(30);
    expect(s.merged()).toEqual([1, 2, 3]);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '1[]', '3[1,2]']);
  });

  it('restarting a testing PR replaces its run at once and keeps the PRs behind running', () => {
    const s = new Scenario().submit(1).submit(2);
    const [first, second] = s.runs();
    s.at(4).restart(1);
    expect(s.runs().map((r) => r.status)).toEqual(['cancelled', 'in_progress', 'in_progress']);
    expect(s.runs()[1]?.id).toBe(second?.id);
    expect(s.runs()[2]?.id).not.toBe(first?.id);
    expect(s.metrics().restarts).toBe(1);
    s.at(10);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'tests_passed' });
    s.at(14);
    expect(s.merged()).toEqual([1, 2]);
  });
});

describe('queue states', () => {
  it('pause: runs in flight finish, nothing merges or starts until resumed', () => {
    const s = new Scenario({ concurrency: 2 }).submit(1).submit(2).submit(3);
    s.at(5).update({ state: 'paused' });
    s.at(6).submit(4);
    expect(s.state(4)).toBe('not_ready');
    s.at(10);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'tests_passed', 2: 'tests_passed', 3: 'pending', 4: 'not_ready' });
    expect(s.at(19).runs()).toHaveLength(2);
    expect(s.merged()).toEqual([]);
    expect(s.queueOrder()).toEqual([1, 2, 3]);
    s.at(20).update({ state: 'running' });
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'merged', 3: 'testing', 4: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[]', '4[3]']);
    s.at(30);
    expect(s.merged()).toEqual([1, 2, 3, 4]);
  });

  it('drain: admitted PRs keep testing and merging, new ones wait; it stays draining when empty', () => {
    const s = new Scenario({ concurrency: 1 }).submit(1).submit(2);
    s.at(1).update({ state: 'draining' });
    s.at(2).submit(3);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'pending', 3: 'not_ready' });
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'merged', 2: 'testing', 3: 'not_ready' });
    s.at(20);
    expect(s.states(2, 3)).toEqual({ 2: 'merged', 3: 'not_ready' });
    expect(s.engine.getQueue({ repo: s.runs()[0]!.repo, targetBranch: 'main' }, s.t).state).toBe('draining');
    expect(s.metrics()).toMatchObject({ depth: 0, awaitingMergeability: 1 });
    s.at(25).update({ state: 'running' });
    expect(s.state(3)).toBe('testing');
  });
});

describe('priority', () => {
  it('a high-priority PR starts before pending ones but never displaces a testing one (T-PRIO)', () => {
    const s = new Scenario({ concurrency: 2 }).pr(2, { testMinutes: 30 }).submit(1).submit(2).submit(3);
    s.at(1).submit(4, 'high');
    expect(s.queueOrder()).toEqual([1, 2, 4, 3]);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'testing', 2: 'testing', 3: 'pending', 4: 'pending' });
    s.at(10); // one slot frees: D begins first, on main + B
    expect(s.states(3, 4)).toEqual({ 3: 'pending', 4: 'testing' });
    expect(s.runShapes().at(-1)).toBe('4[2]');
    s.at(20); // D passed (waits for B); only TESTING PRs hold slots (D4), so C starts on main + B + D
    expect(s.states(3, 4)).toEqual({ 3: 'testing', 4: 'tests_passed' });
    s.at(30);
    expect(s.merged()).toEqual([1, 2, 4, 3]);
    const pr4 = s.engine.getSubmittedPullRequest(
      { repo: s.runs()[0]!.repo, targetBranch: 'main', pr: { number: 4 } },
      s.t,
    );
    expect(pr4).toMatchObject({ priorityValue: 10, priorityName: 'high' });
  });

  it('orders by value: urgent 0 before high 10 before medium 100 before low 200', () => {
    const s = new Scenario({ state: 'paused' });
    s.submit(1, 'low').submit(2).submit(3, 'high').submit(4, 'urgent').submit(5, 'LOW').submit(6, 10);
    s.update({ state: 'running', concurrency: 1 });
    expect(s.queueOrder()).toEqual([4, 3, 6, 2, 1, 5]);
  });
});
