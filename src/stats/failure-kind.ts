// Why a PR failed, for `--requeue`: its own failure, the infrastructure's, or a flake. Pure; on doubt, `own`.
import type { Transition } from '../domain/types.js';
import { clean } from './story.js';

export type FailureKind = 'own' | 'infrastructure' | 'flaky';

export interface FailureDecision {
  kind: FailureKind;
  /** One line in plain words. */
  reason: string;
  /** The run that failed the PR, when known. */
  runId: string | null;
  /** The failing checks' names (as far as known). */
  checks: string[];
}

/** What one run's testing details say of its checks. */
export interface RunChecks {
  runId: string;
  passed: string[];
  /** The checks that did not pass, with their conclusion (FAILURE, TIMED_OUT...). */
  failed: Array<{ name: string; conclusion: string }>;
}

export interface FailureInput {
  /** Newest first (timelineOf). */
  timeline: Transition[];
  /** The failing run's checks and those of other runs read on the same commit. */
  runs: RunChecks[];
  /** --flaky-check names. */
  flakyChecks: string[];
}

/** Failure reasons of the service's own machinery (trunk-wire's failure_reason enum). */
const INFRASTRUCTURE: Record<string, string> = {
  TEST_RUN_TIMEOUT: 'the test run timed out',
  GITHUB_API_MERGE_PR_FAILED: "GitHub's API failed to merge it",
  GITHUB_API_DIRECT_MERGE_PR_FAILED: "GitHub's API failed to merge it directly",
  START_TEST_RUN_RETRY_EXHAUSTED: 'the queue could not start a test run',
};

/** Reasons that are the PR's own (or its configuration's): never requeued. */
const OWN: Record<string, string> = {
  START_TEST_RUN_MERGE_CONFLICT: 'a merge conflict while making its test branch',
  PR_UPDATED_AT_MERGE_TIME: 'the PR changed while it was being merged',
  TEST_RUN_FAILED_BY_OPTIMIZATION: 'its batch failed and bisection skipped retesting it',
};

const code = (names: string[]) => names.map((n) => `\`${clean(n, 80)}\``).join(', ');

/** The timeline since the PR's commit last changed (a push cancels it): the runs of the same sha. */
export function sameCommit(timeline: Transition[]): Transition[] {
  const push = timeline.findIndex((t) => t.reason === 'PR_PUSHED_TO');
  return push === -1 ? timeline : timeline.slice(0, push);
}

export function classifyFailure(input: FailureInput): FailureDecision {
  const failure = input.timeline.find((t) => t.state === 'failed');
  if (!failure) return { kind: 'own', reason: 'no failure in its timeline', runId: null, checks: [] };
  const runId = failure.runId;
  const reason = (failure.reason || '').toUpperCase();
  const own = (why: string, checks: string[] = []): FailureDecision => ({ kind: 'own', reason: why, runId, checks });
  const infra = INFRASTRUCTURE[reason];
  if (infra) return { kind: 'infrastructure', reason: `${infra} (${reason})`, runId, checks: [] };
  if (OWN[reason]) return own(`${OWN[reason]} (${reason})`);
  if (reason !== 'TEST_RUN_REQUIRED_STATUS_FAILED')
    return own(`reason ${clean(reason || 'none', 80)} is not known to be a flake: not requeued on doubt`);

  const run = runId ? input.runs.find((r) => r.runId === runId) : undefined;
  const failed = run?.failed ?? (failure.statuses ?? []).map((name) => ({ name, conclusion: 'FAILURE' }));
  const names = failed.map((c) => c.name);
  if (failed.length === 0) return own('a required status failed; which one is not known');
  if (failed.every((c) => c.conclusion === 'TIMED_OUT'))
    return { kind: 'infrastructure', reason: `${code(names)} timed out`, runId, checks: names };
  if (names.every((n) => input.flakyChecks.includes(n)))
    return { kind: 'flaky', reason: `${code(names)} listed with --flaky-check`, runId, checks: names };
  const others = input.runs.filter((r) => r.runId !== runId);
  const passedIn = others.find((r) => names.every((n) => input.flakyChecks.includes(n) || r.passed.includes(n)));
  if (passedIn)
    return {
      kind: 'flaky',
      reason: `${code(names)} passed in run ${clean(passedIn.runId, 80)} on the same commit`,
      runId,
      checks: names,
    };
  return own(`${code(names)} failed and passed in no other run of the same commit`, names);
}
