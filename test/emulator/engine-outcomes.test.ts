/**
 * Scripted outcomes go to the run they were meant for (issue 15.3), on the virtual clock: a fake
 * PR's next `outcomes` entry is spent by the first run that tests it in its group and reaches its
 * own result; a run cancelled, restarted, or failed by another PR of its content gives it back.
 */
import { describe, expect, it } from 'vitest';

import { Scenario, repo } from './engine-harness.js';

const outcomesOf = (s: Scenario, n: number) =>
  s.engine.state.fakePrs[`${repo.host}/${repo.owner}/${repo.name}#${n}`]?.outcomes;

describe('scripted outcomes', () => {
  it('a run failed by a breaking PR under it gives the entry back; the next run spends it', () => {
    const s = new Scenario().pr(1, { breaksBuild: true }).pr(2, { outcomes: ['fail'] });
    s.submit(1).submit(2);
    expect(s.runShapes()).toEqual(['1[]', '2[1]']);
    s.at(10);
    // 2[1] failed because of 1, not because of 2's script: the "fail" is still there for 2[].
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '2[]']);
    expect(outcomesOf(s, 2)).toEqual(['fail']);
    s.at(20);
    expect(s.states(1, 2)).toEqual({ 1: 'failed', 2: 'failed' });
    expect(outcomesOf(s, 2)).toEqual([]);
  });

  it('a cancelled run gives the entry back', () => {
    const s = new Scenario().pr(2, { outcomes: ['fail', 'pass'] });
    s.submit(1).submit(2);
    s.at(5).cancel(1);
    // 2[1] was cancelled with 1; 2 is retested on main, where its first "fail" is reached.
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '2[]']);
    expect(outcomesOf(s, 2)).toEqual(['fail', 'pass']);
    s.at(15);
    expect(s.state(2)).toBe('failed');
    expect(outcomesOf(s, 2)).toEqual(['pass']);
  });

  it('a PR scripted ["hang"] hangs in its first run that is not cancelled for another reason', () => {
    const s = new Scenario().pr(2, { outcomes: ['hang'] });
    s.submit(1).submit(2);
    s.at(5).cancel(1);
    s.at(30);
    // Without the hang the retest 2[] would have passed at minute 15.
    expect(s.state(2)).toBe('testing');
    s.at(65);
    expect(s.state(2)).toBe('failed');
    expect(s.effects.find((e) => e.prNumber === 2 && e.to === 'failed')?.reason).toBe('TEST_RUN_TIMEOUT');
    expect(outcomesOf(s, 2)).toEqual([]);
  });

  it('a manual restart gives the entry back', () => {
    const s = new Scenario().pr(1, { outcomes: ['fail'] });
    s.submit(1);
    s.at(5).restart(1);
    expect(outcomesOf(s, 1)).toEqual(['fail']);
    s.at(15);
    expect(s.state(1)).toBe('failed');
  });

  it("a batch failed by one PR's script spends that entry only: a batch mate's pass is kept", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 5 })
      .pr(1, { outcomes: ['fail'] })
      .pr(2, { outcomes: ['pass', 'fail'] });
    s.submit(1).submit(2);
    s.at(10);
    expect(outcomesOf(s, 1)).toEqual([]);
    expect(outcomesOf(s, 2)).toEqual(['pass', 'fail']);
    s.at(60);
    // The bisection runs 1 on main (passes) and 2 on main + 1 (its "pass"): the batch failure was a flake.
    expect(s.states(1, 2)).toEqual({ 1: 'merged', 2: 'merged' });
    expect(outcomesOf(s, 2)).toEqual(['fail']);
  });

  it('a run finished by hand spends the entries of its PRs', () => {
    const s = new Scenario().pr(1, { outcomes: ['hang'] });
    s.submit(1);
    const run = s.runs()[0]!;
    s.engine.completeRun(run.id, 'passed', s.t);
    expect(outcomesOf(s, 1)).toEqual([]);
    expect(s.state(1)).toBe('merged');
  });
});
