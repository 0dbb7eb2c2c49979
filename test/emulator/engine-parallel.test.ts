/**
 * Parallel mode (queue-semantics §2.5): impacted targets per PR and head SHA, lanes by overlap,
 * ALL and the empty list, failures that restart only the dependent PRs, testing details.
 */
import { describe, expect, it } from 'vitest';

import { Scenario, repo, targetBranch } from './engine-harness.js';

const q = { repo, targetBranch };

describe('parallel mode', () => {
  it('keeps a PR not ready until targets are uploaded for its current head SHA', () => {
    const s = new Scenario({ mode: 'parallel' }).pr(1, { sha: 'a'.repeat(40) }).submit(1);
    const pr = () => s.engine.getSubmittedPullRequest({ ...q, pr: { number: 1 } }, s.t);
    expect(pr()).toMatchObject({
      state: 'not_ready',
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: false },
    });
    // Targets for another SHA do not count; a push before admission needs a new upload.
    s.engine.setImpactedTargets({ ...q, pr: { number: 1, sha: 'b'.repeat(40) }, impactedTargets: ['api'] }, s.t);
    expect(pr().state).toBe('not_ready');
    s.pr(1, { sha: 'b'.repeat(40) });
    expect(pr()).toMatchObject({ state: 'testing', readiness: { hasImpactedTargets: true } });
  });

  it('tests each PR on top of only the earlier PRs it overlaps (T-PAR example: frontend, backend, both, docs)', () => {
    const s = new Scenario({ mode: 'parallel' });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.targets(1, ['frontend']).targets(2, ['backend']).targets(3, ['frontend', 'backend']).targets(4, ['docs']);
    expect(s.runShapes()).toEqual(['1[]', '2[]', '3[1,2]', '4[]']);
    const c = s.runs()[2]!;
    expect(s.engine.getTestingDetails({ ...q, testRunId: c.id }, s.t)).toMatchObject({
      impactedTargets: ['frontend', 'backend'],
      impactedTargetsForTestedPrs: ['frontend', 'backend'],
      basePrNumbers: [1, 2],
    });
    const d = s.runs()[3]!;
    expect(s.engine.getTestingDetails({ ...q, testRunId: d.id }, s.t)).toMatchObject({
      impactedTargets: ['docs'],
      impactedTargetsForTestedPrs: ['docs'],
      basePrNumbers: [],
    });
    s.at(10);
    expect(s.merged()).toEqual([1, 2, 3, 4]);
  });

  it('a failure in one lane restarts only the PRs that depend on it; the other lane is untouched', () => {
    // 2024 example: PR1 [src/protos/], PR2 [src/user_service/, src/protos/], PR3 [docs/] → two queues.
    const s = new Scenario({ mode: 'parallel' }).pr(1, { breaksBuild: true }).pr(3, { testMinutes: 15 });
    for (const n of [1, 2, 3]) s.submit(n);
    s.targets(1, ['src/protos/']).targets(2, ['src/user_service/', 'src/protos/']).targets(3, ['docs/']);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[]']);
    const docsRun = s.runs()[2]!.id;
    s.at(10);
    expect(s.states(1, 2, 3)).toEqual({ 1: 'failed', 2: 'testing', 3: 'testing' });
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[]', '2[]']);
    expect(s.effects.find((e) => e.prNumber === 2 && e.from === 'pending_failure')?.reason).toBe(
      'PREREQUISITE_MERGE_ITEM_FAILED',
    );
    // PR3's run was never interrupted.
    expect(s.path(3)).toEqual(['not_ready', 'pending', 'testing']);
    s.at(15);
    expect(s.merged()).toEqual([3]);
    const pr3 = s.engine.getSubmittedPullRequest({ ...q, pr: { number: 3 } }, s.t);
    expect(pr3.verifiedByTestRun).toBe(docsRun);
    s.at(20);
    expect(s.merged()).toEqual([3, 2]);
    expect(s.metrics().restarts).toBe(0);
  });

  it('ALL serialises: it depends on everything ahead and everything after depends on it; an empty list stays apart', () => {
    const s = new Scenario({ mode: 'parallel' }).pr(1, { breaksBuild: true });
    for (const n of [1, 2, 3, 4, 5]) s.submit(n);
    s.targets(1, ['x']).targets(2, 'ALL').targets(3, ['y']).targets(4, ['z']).targets(5, []);
    expect(s.runShapes()).toEqual(['1[]', '2[1]', '3[1,2]', '4[1,2]', '5[]']);
    s.at(10);
    // PR1 breaks: everything but the empty-list PR is retested (they all sat on top of it via ALL).
    expect(s.states(1, 2, 3, 4, 5)).toEqual({ 1: 'failed', 2: 'testing', 3: 'testing', 4: 'testing', 5: 'merged' });
    expect(s.runShapes().slice(5)).toEqual(['2[]', '3[2]', '4[2]']);
    s.at(20);
    expect(s.merged()).toEqual([5, 2, 3, 4]);
  });

  it('a PR with no overlap merges as soon as it passes, even while a slower lane is still testing', () => {
    const s = new Scenario({ mode: 'parallel' }).pr(1, { testMinutes: 30 }).pr(2, { testMinutes: 5 });
    s.submit(1).submit(2).targets(1, ['a']).targets(2, ['b']);
    s.at(5);
    expect(s.states(1, 2)).toEqual({ 1: 'testing', 2: 'merged' });
  });

  it('pending failure depth counts the groups in the failed PR\u2019s lane only', () => {
    const s = new Scenario({ mode: 'parallel', pendingFailureDepth: 1, canOptimisticallyMerge: true })
      .pr(1, { outcomes: ['fail'] })
      .pr(2, { testMinutes: 20 });
    for (const n of [1, 2, 3]) s.submit(n);
    s.targets(1, ['a']).targets(2, ['a']).targets(3, ['b']);
    s.at(10);
    // 1 waits for 2 (its lane); 3 (another lane) merged meanwhile.
    expect(s.states(1, 2, 3)).toEqual({ 1: 'pending_failure', 2: 'testing', 3: 'merged' });
    s.at(20);
    expect(s.merged()).toEqual([3, 1, 2]);
  });

  it('batches form within a lane', () => {
    const s = new Scenario({ mode: 'parallel', batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 5 });
    for (const n of [1, 2, 3, 4]) s.submit(n);
    s.targets(1, ['a']).targets(2, ['b']).targets(3, ['a']).targets(4, ['b']);
    expect(s.runShapes()).toEqual(['1+3[]', '2+4[]']);
    s.at(10);
    expect(s.merged()).toEqual([1, 3, 2, 4]);
  });
});
