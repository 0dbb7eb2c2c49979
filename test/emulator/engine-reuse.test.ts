/**
 * No identical rerun after bisection (issue 15.2), on the virtual clock. A PR cleared by a
 * bisection whose passing run tested exactly what the main queue would test it on now (same
 * branch state, same PRs under it) counts that run as its test; different content is retested.
 */
import { describe, expect, it } from 'vitest';

import { Scenario, repo, targetBranch } from './engine-harness.js';

const q = { repo, targetBranch };
/** Trunk's bisection example: a batch of 4, bisection concurrency 2. */
const EXAMPLE = { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5, bisectionConcurrency: 2 } as const;

function example(culprit: number) {
  const s = new Scenario(EXAMPLE).pr(culprit, { breaksBuild: true });
  for (const n of [1, 2, 3, 4]) s.submit(n);
  s.at(200);
  return s;
}

describe('no identical rerun after bisection', () => {
  // Runs with every cleared PR retested in the main queue (before 15.2): 8, 8, 8, 7.
  // Now the bisection run that already tested a PR's exact content is its test: 7, 6, 6, 5.
  it.each([
    [1, 7, ['1+2+3+4[]', '1+2[]', '3+4[1,2]', '1[]', '2[1]', '2[]', '3+4[2]']],
    [2, 6, ['1+2+3+4[]', '1+2[]', '3+4[1,2]', '1[]', '2[1]', '3+4[1]']],
    [3, 6, ['1+2+3+4[]', '1+2[]', '3+4[1,2]', '3[1,2]', '4[1,2,3]', '4[1,2]']],
    [4, 5, ['1+2+3+4[]', '1+2[]', '3+4[1,2]', '3[1,2]', '4[1,2,3]']],
  ])('4 PRs, culprit #%i: %i runs, at most 7 (was 8 or 7)', (culprit, runs, shapes) => {
    const s = example(culprit);
    expect(s.runs()).toHaveLength(runs);
    expect(runs).toBeLessThanOrEqual(7);
    expect(s.runShapes()).toEqual(shapes);
    const others = [1, 2, 3, 4].filter((n) => n !== culprit);
    expect(s.merged()).toEqual(others);
    expect(s.state(culprit)).toBe('failed');
    // Every merged PR is vouched for by a passing run that tested it; here all are bisection runs.
    for (const n of others) {
      const pr = s.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, s.t);
      const run = s.runs().find((r) => r.id === pr.verifiedByTestRun);
      expect(run?.status).toBe('succeeded');
      expect(run?.isBisection).toBe(true);
      expect(run?.prNumbers).toContain(n);
    }
  });

  it('goes from the passing bisection run straight to tests_passed, with that run as its proof', () => {
    const s = example(4);
    expect(s.path(1)).toEqual([
      'not_ready',
      'pending',
      'testing',
      'pending_failure',
      'pending',
      'testing',
      'tests_passed',
      'merged',
    ]);
    const passed = s.effects.find((e) => e.prNumber === 1 && e.to === 'tests_passed')!;
    expect(s.runs().find((r) => r.id === passed.runId)?.isBisection).toBe(true);
    expect(s.effects.some((e) => e.reason === 'BISECTION_TEST_RUN_PASSED')).toBe(false);
  });

  // 5 arrives while ABCD is testing, starts on top of it at minute 6 and restarts alone on main when
  // ABCD fails at 10, next to the bisection's AB (on main) and CD (on main + AB).
  const withFive = (testMinutes: number) => {
    const s = new Scenario(EXAMPLE).pr(4, { breaksBuild: true }).pr(5, { testMinutes });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.at(1).submit(5);
    s.at(10);
    expect(s.runShapes()).toEqual(['1+2+3+4[]', '5[1,2,3,4]', '1+2[]', '3+4[1,2]', '5[]']);
    return s;
  };

  it('retests a cleared PR whose main-queue content differs: a PR started under it meanwhile', () => {
    const s = withFive(15);
    s.at(20);
    // AB passed on main, but the main queue now has 5 (still testing) ahead of it: AB is retested on it.
    expect(s.effects.find((e) => e.prNumber === 1 && e.reason === 'BISECTION_TEST_RUN_PASSED')?.to).toBe('pending');
    expect(s.runShapes().slice(5)).toEqual(['3[1,2]', '4[1,2,3]', '1+2[5]']);
    s.at(200);
    // C was bisected on main + AB, but 5 merged before AB: C's content is stale, so it is retested.
    expect(s.runShapes().slice(8)).toEqual(['3[]']);
    expect(s.states(1, 2, 3, 4, 5)).toEqual({ 1: 'merged', 2: 'merged', 3: 'merged', 4: 'failed', 5: 'merged' });
    expect(s.merged()).toEqual([5, 1, 2, 3]);
    for (const n of [1, 2, 3]) {
      const pr = s.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, s.t);
      expect(s.runs().find((r) => r.id === pr.verifiedByTestRun)?.isBisection).toBe(false);
    }
  });

  it('retests when the branch moved under the run: another PR merged before it passed', () => {
    const s = withFive(5);
    s.at(15);
    expect(s.merged()).toEqual([5]);
    s.at(20);
    // AB passed on the branch without 5; 5 merged since, so AB is retested on the new branch.
    expect(s.runShapes().slice(5)).toEqual(['3[1,2]', '4[1,2,3]', '1+2[]']);
    s.at(200);
    // C passed on 5 + AB, exactly what the main queue has when it comes back: no retest for C.
    expect(s.runShapes()).toHaveLength(8);
    expect(s.merged()).toEqual([5, 1, 2, 3]);
    const pr3 = s.engine.getSubmittedPullRequest({ ...q, pr: { number: 3 } }, s.t);
    expect(s.runs().find((r) => r.id === pr3.verifiedByTestRun)?.isBisection).toBe(true);
  });
});
