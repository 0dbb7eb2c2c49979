// The failure classifier behind --requeue: timelines and run checks -> own, infrastructure or flaky.
import { describe, expect, it } from 'vitest';
import type { Transition } from '../../src/domain/types.js';
import { classifyFailure, sameCommit, type RunChecks } from '../../src/stats/failure-kind.js';

const t = (at: number, state: string, reason = '', runId: string | null = null, extra: Partial<Transition> = {}) => ({
  at,
  state,
  reason,
  runId,
  ...extra,
});
/** Newest first, as timelineOf gives it. */
const timeline = (...items: Transition[]) => [...items].reverse();
const failedIn = (runId: string, ...names: string[]): RunChecks => ({
  runId,
  passed: [],
  failed: names.map((name) => ({ name, conclusion: 'FAILURE' })),
});
const passedIn = (runId: string, ...names: string[]): RunChecks => ({ runId, passed: names, failed: [] });
const failure = (reason: string, runId = 'r2') =>
  timeline(t(1, 'pending'), t(2, 'testing', '', runId), t(3, 'failed', reason, runId));

describe('classifyFailure', () => {
  it.each([
    ['a timeout', failure('TEST_RUN_TIMEOUT'), [], [], 'infrastructure', 'the test run timed out (TEST_RUN_TIMEOUT)'],
    [
      'a GitHub API error',
      failure('GITHUB_API_MERGE_PR_FAILED'),
      [],
      [],
      'infrastructure',
      "GitHub's API failed to merge it (GITHUB_API_MERGE_PR_FAILED)",
    ],
    [
      'runs could not start',
      failure('START_TEST_RUN_RETRY_EXHAUSTED'),
      [],
      [],
      'infrastructure',
      'the queue could not start a test run (START_TEST_RUN_RETRY_EXHAUSTED)',
    ],
    [
      'a merge conflict',
      failure('START_TEST_RUN_MERGE_CONFLICT'),
      [],
      [],
      'own',
      'a merge conflict while making its test branch (START_TEST_RUN_MERGE_CONFLICT)',
    ],
    [
      'an unknown reason',
      failure('SOMETHING_NEW'),
      [],
      [],
      'own',
      'reason SOMETHING_NEW is not known to be a flake: not requeued on doubt',
    ],
    ['no reason', failure(''), [], [], 'own', 'reason none is not known to be a flake: not requeued on doubt'],
    [
      'a check that failed, alone',
      failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      [failedIn('r2', 'ci')],
      [],
      'own',
      '`ci` failed and passed in no other run of the same commit',
    ],
    [
      'a check no run details name',
      failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      [],
      [],
      'own',
      'a required status failed; which one is not known',
    ],
    [
      'a check named by --flaky-check',
      failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      [failedIn('r2', 'e2e')],
      ['e2e'],
      'flaky',
      '`e2e` listed with --flaky-check',
    ],
    [
      'one of two failing checks named by --flaky-check',
      failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      [failedIn('r2', 'e2e', 'unit')],
      ['e2e'],
      'own',
      '`e2e`, `unit` failed and passed in no other run of the same commit',
    ],
    [
      'checks that timed out',
      failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      [{ runId: 'r2', passed: [], failed: [{ name: 'ci', conclusion: 'TIMED_OUT' }] }],
      [],
      'infrastructure',
      '`ci` timed out',
    ],
  ])('%s', (_name, tl, runs, flakyChecks, kind, reason) => {
    expect(
      classifyFailure({ timeline: tl, runs: runs as RunChecks[], flakyChecks: flakyChecks as string[] }),
    ).toMatchObject({
      kind,
      reason,
    });
  });

  it('flaky: the failing check passed in an earlier run of the same commit', () => {
    const tl = timeline(
      t(1, 'testing', 'TEST_RUN_STARTED', 'r1'),
      t(2, 'tests_passed', 'TEST_RUN_PASSED', 'r1'),
      t(3, 'pending', 'PREREQUISITE_MERGE_ITEM_CANCELLED'),
      t(4, 'testing', 'TEST_RUN_STARTED', 'r2'),
      t(5, 'failed', 'TEST_RUN_REQUIRED_STATUS_FAILED', 'r2'),
    );
    const d = classifyFailure({ timeline: tl, runs: [failedIn('r2', 'ci'), passedIn('r1', 'ci')], flakyChecks: [] });
    expect(d).toEqual({
      kind: 'flaky',
      reason: '`ci` passed in run r1 on the same commit',
      runId: 'r2',
      checks: ['ci'],
    });
  });

  it('own: the run that passed it is not one the classifier was given (another commit)', () => {
    const d = classifyFailure({
      timeline: failure('TEST_RUN_REQUIRED_STATUS_FAILED'),
      runs: [failedIn('r2', 'ci'), passedIn('r1', 'lint')],
      flakyChecks: [],
    });
    expect(d.kind).toBe('own');
  });

  it("the failure's statuses stand in for the run's checks when its details are gone", () => {
    const tl = timeline(
      t(1, 'testing', '', 'r2'),
      t(2, 'failed', 'TEST_RUN_REQUIRED_STATUS_FAILED', 'r2', { statuses: ['ci'] }),
    );
    expect(classifyFailure({ timeline: tl, runs: [], flakyChecks: ['ci'] }).kind).toBe('flaky');
  });

  it('the newest failure decides; no failure at all is own', () => {
    const tl = timeline(
      t(1, 'failed', 'TEST_RUN_TIMEOUT', 'r1'),
      t(2, 'pending'),
      t(3, 'failed', 'START_TEST_RUN_MERGE_CONFLICT'),
    );
    expect(classifyFailure({ timeline: tl, runs: [], flakyChecks: [] }).kind).toBe('own');
    expect(classifyFailure({ timeline: timeline(t(1, 'pending')), runs: [], flakyChecks: [] })).toMatchObject({
      kind: 'own',
      reason: 'no failure in its timeline',
    });
  });

  it('service text in a run id is made inert', () => {
    const tl = failure('TEST_RUN_REQUIRED_STATUS_FAILED');
    const d = classifyFailure({
      timeline: tl,
      runs: [failedIn('r2', 'ci'), passedIn('r\u001b[31m1\n', 'ci')],
      flakyChecks: [],
    });
    expect(d.reason).toBe('`ci` passed in run r [31m1 on the same commit');
  });

  it('the same commit: the timeline since the last push (a push cancels the PR)', () => {
    const tl = timeline(t(1, 'testing', '', 'r1'), t(2, 'cancelled', 'PR_PUSHED_TO'), t(3, 'testing', '', 'r2'));
    expect(sameCommit(tl).map((x) => x.runId)).toEqual(['r2']);
  });
});
