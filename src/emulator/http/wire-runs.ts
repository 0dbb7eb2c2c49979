// Test runs on the wire: getMergeQueueTestingDetails (trunk-wire.md §1.6), the control API's run
// list and a PR's testing results.
import type { RunDetailsView, RunStatus, RunView, RepoRef, TestingResultView } from '../engine/index.js';
import { iso, prUrl } from './wire.js';

const checkUrl = (runId: string) => `https://ci.emulator.invalid/runs/${runId}`;

const STATUS_CHECK_STATE: Record<RunStatus, string> = {
  in_progress: 'PENDING',
  succeeded: 'SUCCESS',
  failed: 'FAILURE',
  cancelled: 'ERROR',
};

/** A required status's GitHub-style check run: how it ended and why the run failed. */
function checkRun(r: RunView, name: string): { name: string; url: string; status: string; conclusion?: string } {
  const url = checkUrl(r.id);
  if (r.status === 'in_progress') return { name, url, status: 'IN_PROGRESS' };
  const conclusion =
    r.status === 'succeeded'
      ? 'SUCCESS'
      : r.status === 'cancelled'
        ? 'CANCELLED'
        : r.failureReason === 'TEST_RUN_TIMEOUT'
          ? 'TIMED_OUT'
          : 'FAILURE';
  return { name, url, status: 'COMPLETED', conclusion };
}

export function wireTestingDetails(r: RunDetailsView): Record<string, unknown> {
  return {
    requiredStatuses: [...r.requiredStatuses],
    requiredStatusesSource: r.requiredStatusesSource,
    testBranch: r.testBranch,
    testBranchSha: r.testBranchSha,
    createdAt: iso(r.createdAt),
    status: r.status,
    // One suite with a check run per required status: its conclusion says which status failed.
    checkSuites: [{ checkRuns: r.requiredStatuses.map((name) => checkRun(r, name)) }],
    statusChecks: r.requiredStatuses.map((context) => ({
      context,
      url: checkUrl(r.id),
      state: STATUS_CHECK_STATE[r.status],
    })),
    testedPullRequests: r.testedPullRequests.map((p) => ({
      prNumber: p.prNumber,
      prUrl: prUrl(r.repo, p.prNumber),
      title: p.title,
    })),
    ...(r.impactedTargets ? { impactedTargets: [...r.impactedTargets] } : {}),
    ...(r.impactedTargetsForTestedPrs ? { impactedTargetsForTestedPrs: [...r.impactedTargetsForTestedPrs] } : {}),
    dependentPrs: [...r.basePrNumbers],
  };
}

/** A test run as the control API lists it. */
export interface WireRun {
  id: string;
  prNumbers: number[];
  basePrNumbers: number[];
  status: RunStatus;
  createdAt: string;
  completedAt: string | null;
  isBisection: boolean;
  testBranch: string;
  repo: RepoRef;
  branch: string;
}

export function wireRun(r: RunView): WireRun {
  return {
    id: r.id,
    prNumbers: [...r.prNumbers],
    basePrNumbers: [...r.basePrNumbers],
    status: r.status,
    createdAt: iso(r.createdAt),
    completedAt: r.completedAt === null ? null : iso(r.completedAt),
    isBisection: r.isBisection,
    testBranch: r.testBranch,
    repo: { ...r.repo },
    branch: r.branch,
  };
}

// ---- testing results -----------------------------------------------------------------------------

/** How one PR's test attempt ended. */
export const OUTCOME: Record<Exclude<RunStatus, 'in_progress'>, string> = {
  succeeded: 'passed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export interface WireTestingResult {
  testRunId: string;
  testBranch: string;
  prNumber: number;
  startedAt: string;
  completedAt: string;
  testingDurationMs: number;
  /** passed, failed, timed_out or cancelled. */
  outcome: string;
  failureReason: string | null;
  /** How the PR's trip through the queue ended (merged, failed, cancelled), null while in it. */
  cycleConclusion: string | null;
  /** v1: "in_bisection" for a bisection run, "entered_bisection" for the run that started one. */
  bisection: 'in_bisection' | 'entered_bisection' | null;
  isBisection: boolean;
  startedBisection: boolean;
}

export function wireTestingResult(t: TestingResultView): WireTestingResult {
  const r = t.run;
  const completedAt = r.completedAt ?? r.createdAt;
  const status = r.status === 'in_progress' ? 'cancelled' : r.status;
  return {
    testRunId: r.id,
    testBranch: r.testBranch,
    prNumber: t.prNumber,
    startedAt: iso(r.createdAt),
    completedAt: iso(completedAt),
    testingDurationMs: completedAt - r.createdAt,
    outcome: r.failureReason === 'TEST_RUN_TIMEOUT' ? 'timed_out' : OUTCOME[status],
    failureReason: r.failureReason,
    cycleConclusion: t.conclusion,
    bisection: r.isBisection ? 'in_bisection' : r.startedBisection ? 'entered_bisection' : null,
    isBisection: r.isBisection,
    startedBisection: r.startedBisection,
  };
}
