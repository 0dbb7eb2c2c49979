/**
 * Direct merge (§2.8), urgent preemption (§2.7, D16) and mode switches (§1.4, D11) on the virtual
 * clock.
 */
import { describe, expect, it } from 'vitest';

import { EngineError } from '../../src/emulator/engine/index.js';
import { Scenario, repo, targetBranch } from './engine-harness.js';

const q = { repo, targetBranch };

describe('direct merge', () => {
  it('merges an up-to-date PR submitted to an empty queue at once, without a test run', () => {
    const s = new Scenario({ directMergeMode: 'always' }).pr(1, { upToDate: true }).submit(1);
    expect(s.state(1)).toBe('merged');
    expect(s.runs()).toHaveLength(0);
    expect(s.path(1)).toEqual(['not_ready', 'merged']);
    expect(s.effects.at(-1)?.reason).toBe('MERGE_GRAPH_DIRECT_MERGE');
    expect(s.metrics().conclusions.merged).toBe(1);
  });

  it('does not merge directly into a busy queue, nor a PR that is not up to date, nor with the mode off', () => {
    const s = new Scenario({ directMergeMode: 'always' }).pr(2, { upToDate: true }).submit(1).submit(2);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]']);
    s.at(10);
    expect(s.merged()).toEqual([1, 2]);

    const stale = new Scenario({ directMergeMode: 'always' }).submit(3);
    expect(stale.state(3)).toBe('testing');
    const off = new Scenario().pr(4, { upToDate: true }).submit(4);
    expect(off.state(4)).toBe('testing');
  });

  it('a merge into the branch makes other up-to-date PRs stale', () => {
    const s = new Scenario({ directMergeMode: 'always' }).pr(1, { upToDate: true }).pr(2, { upToDate: true });
    s.submit(1).submit(2);
    expect(s.states(1, 2)).toEqual({ 1: 'merged', 2: 'testing' });
    expect(s.engine.upsertFakePr({ repo, number: 2 }, s.t).upToDate).toBe(false);
  });

  it('parallel mode checks only the PR\u2019s lane; with batching on the whole queue must be empty', () => {
    const s = new Scenario({ mode: 'parallel', directMergeMode: 'always' }).pr(2, { upToDate: true });
    s.submit(1).targets(1, ['api']).submit(2).targets(2, ['docs']);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'merged' });
    s.pr(3, { upToDate: true }).submit(3).targets(3, ['api']);
    expect(s.state(3)).toBe('testing');

    const batched = new Scenario({ mode: 'parallel', directMergeMode: 'always', batch: true, batchingMinSize: 1 }).pr(
      2,
      { upToDate: true },
    );
    batched.submit(1).targets(1, ['api']).submit(2).targets(2, ['docs']);
    expect(batched.state(2)).toBe('testing');
  });
});

describe('priority and skip-the-line', () => {
  it('an urgent PR is tested at once and interrupts the PRs it overtakes (T-PRIO: D urgent behind A, B testing, C pending)', () => {
    const s = new Scenario({ concurrency: 2 }).submit(1).submit(2).submit(3);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'testing', 2: 'testing', 3: 'pending' });
    s.at(4).submit(4, 'urgent');
    // "D would be tested immediately, A would be restarted, and B would be bumped back to pending."
    expect(s.queueOrder()).toEqual([4, 1, 2, 3]);
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'testing', 2: 'pending', 3: 'pending', 4: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '4[]', '1[4]']);
    expect(s.runs().map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'in_progress', 'in_progress']);
    for (const n of [1, 2]) {
      expect(s.effects.filter((e) => e.prNumber === n).at(-1 - (n === 1 ? 1 : 0))?.reason).toBe(
        'SKIP_THE_LINE_INTERRUPTED',
      );
    }
    expect(s.metrics().restarts).toBe(2);
    const pr4 = s.engine.getSubmittedPullRequest({ ...q, pr: { number: 4 } }, s.t);
    expect(pr4).toMatchObject({ priorityValue: 0, priorityName: 'urgent' });
    s.at(14);
    expect(s.merged()).toEqual([4, 1]);
    s.at(30);
    expect(s.merged()).toEqual([4, 1, 2, 3]);
  });

  it('urgent PRs queue behind earlier urgent ones; a passed PR they overtake is retested too', () => {
    const s = new Scenario().pr(1, { testMinutes: 30 }).submit(1).submit(2);
    s.at(10);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'tests_passed' });
    s.submit(3, 'urgent').submit(4, 0);
    expect(s.queueOrder()).toEqual([3, 4, 1, 2]);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'testing' });
    // 3 overtook both, then 4 overtook them again (behind 3, which keeps its run).
    expect(s.runShapes().slice(2)).toEqual(['3[]', '1[3]', '2[3,1]', '4[3]', '1[3,4]', '2[3,4,1]']);
    s.at(60);
    expect(s.merged()).toEqual([3, 4, 1, 2]);
  });

  it('raising a waiting PR to urgent by resubmitting moves it to the front', () => {
    const s = new Scenario({ concurrency: 1 }).submit(1).submit(2).submit(3);
    s.at(2).submit(3, 'urgent');
    expect(s.queueOrder()).toEqual([3, 1, 2]);
    expect(s.states(1, 3)).toEqual({ 1: 'pending', 3: 'testing' });
  });

  it('in parallel mode an urgent PR only interrupts its own lane', () => {
    const s = new Scenario({ mode: 'parallel' });
    s.submit(1).targets(1, ['a']).submit(2).targets(2, ['b']);
    s.at(3).submit(3, 'urgent').targets(3, ['a']);
    expect(s.runShapes()).toEqual(['1[]', '2[]', '3[]', '1[3]']);
    expect(s.path(2)).toEqual(['not_ready', 'pending', 'testing']);
  });
});

describe('mode switches', () => {
  it('switching a busy queue drains it in switching_modes, refuses settings, then applies the mode and resumes', () => {
    const s = new Scenario({ concurrency: 2 }).submit(1).submit(2).submit(3);
    s.at(2).update({ mode: 'parallel' });
    const queue = () => s.engine.getQueue(q, s.t);
    expect(queue()).toMatchObject({ state: 'switching_modes', config: { mode: 'single' } });
    s.submit(4);
    expect(s.state(4)).toBe('not_ready');
    let refused: unknown;
    try {
      s.update({ concurrency: 5 });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(EngineError);
    expect((refused as EngineError).kind).toBe('invalid');
    expect((refused as EngineError).message).toContain('switching modes');
    expect(queue().config.concurrency).toBe(2);
    // Repeating a current value and changing the state are accepted.
    s.update({ concurrency: 2, state: 'running' });
    s.at(10);
    // Admitted PRs keep flowing like in a draining queue: 3 starts once a slot is free.
    expect(s.states(1, 2, 3, 4)).toEqual({ 1: 'merged', 2: 'merged', 3: 'testing', 4: 'not_ready' });
    expect(queue().state).toBe('switching_modes');
    s.at(20);
    expect(queue()).toMatchObject({ state: 'running', config: { mode: 'parallel' } });
    // The new mode applies: PR 4 now needs impacted targets.
    expect(s.state(4)).toBe('not_ready');
    s.targets(4, ['x']);
    expect(s.state(4)).toBe('testing');
    expect(s.merged()).toEqual([1, 2, 3]);
  });

  it('returns to the state requested during the switch, and switches at once when the queue is empty', () => {
    const s = new Scenario().submit(1);
    s.update({ mode: 'parallel' });
    s.update({ state: 'draining' });
    s.at(10);
    expect(s.engine.getQueue(q, s.t)).toMatchObject({ state: 'draining', config: { mode: 'parallel' } });
    s.update({ mode: 'single' });
    expect(s.engine.getQueue(q, s.t)).toMatchObject({ state: 'draining', config: { mode: 'single' } });
  });

  it('a switch requested while paused waits for the queue to be resumed', () => {
    const s = new Scenario().submit(1);
    s.at(1).update({ state: 'paused' }).update({ mode: 'parallel' });
    s.at(30);
    expect(s.engine.getQueue(q, s.t)).toMatchObject({ state: 'switching_modes', config: { mode: 'single' } });
    expect(s.state(1)).toBe('tests_passed');
    s.update({ state: 'running' });
    expect(s.engine.getQueue(q, s.t)).toMatchObject({ state: 'running', config: { mode: 'parallel' } });
    expect(s.merged()).toEqual([1]);
  });
});
