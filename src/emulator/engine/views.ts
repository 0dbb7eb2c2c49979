// The engine's answers: read-only views in its own terms (epoch ms, its state names); the wire
// spelling is the server's business (http/wire.ts).
import { fakePrFor, readinessOf, type Core, type Readiness } from './lifecycle.js';
import type { PrState, QueueStateName } from '../../domain/vocabulary.js';
import {
  headBranch,
  testBranchOf,
  type Entry,
  type QueueConfig,
  type QueueRecord,
  type RepoRef,
  type RunStatus,
  type TestRun,
} from './types.js';

export interface EntryView {
  id: string;
  prNumber: number;
  state: PrState;
  stateChangedAt: number;
  priorityValue: number;
  priorityName: string;
  noBatch: boolean;
  /** In the queue now (submitted and not yet merged, failed or cancelled). */
  live: boolean;
  /** The run that passed the PR (merged, tests_passed) or failed it (failed); else null. */
  verifiedByTestRun: string | null;
  submittedAt: number;
  title: string;
  sha: string;
  /** The head branch. */
  branch: string;
  baseBranch: string;
  author: string;
}

export interface TimelineItemView {
  at: number;
  state: PrState;
  reason: string;
  runId: string | null;
  /** The run, while the engine still keeps it. */
  run: RunDetailsView | null;
}

export interface PullRequestView extends EntryView {
  readiness: Readiness;
  /** Every transition of every trip, oldest first (only when asked for). */
  timeline?: TimelineItemView[];
}

export interface RunView {
  id: string;
  repo: RepoRef;
  branch: string;
  prNumbers: number[];
  basePrNumbers: number[];
  status: RunStatus;
  createdAt: number;
  completedAt: number | null;
  isBisection: boolean;
  /** A main-queue run whose failure sent its batch into bisection. */
  startedBisection: boolean;
  testBranch: string;
  testBranchSha: string;
  requiredStatuses: string[];
  requiredStatusesSource: TestRun['requiredStatusesSource'];
  /** TEST_RUN_REQUIRED_STATUS_FAILED or TEST_RUN_TIMEOUT for a failed run, else null. */
  failureReason: string | null;
}

export interface RunDetailsView extends RunView {
  testedPullRequests: Array<{ prNumber: number; title: string }>;
  /** Union of the targets of base and group; absent unless every PR uploaded targets. */
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
}

export interface QueueView {
  state: QueueStateName;
  branch: string;
  config: QueueConfig;
}

export interface QueueWithEntriesView extends QueueView {
  /** Admitted PRs in queue order (those under bisection first). */
  entries: EntryView[];
}

/** One PR's part in one test run (listMergeQueueTestingResults). */
export interface TestingResultView {
  run: RunView;
  prNumber: number;
  /** How the PR's trip through the queue ended; null while it is still in the queue. */
  conclusion: 'merged' | 'failed' | 'cancelled' | null;
}

export function entryView(core: Core, q: QueueRecord, e: Entry): EntryView {
  const pr = fakePrFor(core, q, e.prNumber);
  return {
    id: e.id,
    prNumber: e.prNumber,
    state: e.state,
    stateChangedAt: e.stateChangedAt,
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    noBatch: e.noBatch,
    live: e.live,
    verifiedByTestRun: e.verifiedByTestRun,
    submittedAt: e.submittedAt,
    title: pr?.title ?? `PR #${e.prNumber}`,
    sha: pr?.sha ?? '',
    branch: headBranch(pr, e.prNumber),
    baseBranch: pr?.baseBranch ?? q.branch,
    author: pr?.author ?? '',
  };
}

export function pullRequestView(core: Core, q: QueueRecord, e: Entry, includeTimeline = false): PullRequestView {
  const view: PullRequestView = { ...entryView(core, q, e), readiness: readinessOf(core, q, e.prNumber) };
  if (includeTimeline) {
    const runs = new Map<string, RunDetailsView | null>();
    const runOf = (id: string | null): RunDetailsView | null => {
      if (id === null) return null;
      if (!runs.has(id)) {
        const r = core.state.runs[id];
        runs.set(id, r && r.queueKey === q.key ? runDetailsView(core, q, r) : null);
      }
      return runs.get(id) ?? null;
    };
    view.timeline = e.history.map(([at, state, reason, runId]) => ({ at, state, reason, runId, run: runOf(runId) }));
  }
  return view;
}

export function queueView(q: QueueRecord): QueueView {
  const c = q.config;
  return {
    state: q.state,
    branch: q.branch,
    config: { ...c, requiredStatuses: c.requiredStatuses ? [...c.requiredStatuses] : null },
  };
}

export function runView(q: QueueRecord | undefined, run: TestRun): RunView {
  return {
    id: run.id,
    repo: q ? { ...q.repo } : { host: '', owner: '', name: '' },
    branch: q?.branch ?? '',
    prNumbers: [...run.group],
    basePrNumbers: [...run.base],
    status: run.status,
    createdAt: run.createdAt,
    completedAt: run.completedAt,
    isBisection: run.isBisection,
    startedBisection: run.startedBisection,
    testBranch: testBranchOf(run),
    testBranchSha: run.testBranchSha,
    requiredStatuses: [...run.requiredStatuses],
    requiredStatusesSource: run.requiredStatusesSource,
    failureReason: run.failureReason,
  };
}

export function runDetailsView(core: Core, q: QueueRecord, run: TestRun): RunDetailsView {
  const targetsOf = (n: number): string[] | 'ALL' | undefined => {
    const sha = fakePrFor(core, q, n)?.sha;
    return sha === undefined ? undefined : q.impactedTargets[String(n)]?.[sha];
  };
  const union = (prs: number[]): string[] | undefined => {
    const out = new Set<string>();
    for (const n of prs) {
      const t = targetsOf(n);
      if (t === undefined) return undefined;
      for (const x of t === 'ALL' ? ['ALL'] : t) out.add(x);
    }
    return [...out];
  };
  const tested = union(run.group);
  const all = union([...run.base, ...run.group]);
  return {
    ...runView(q, run),
    testedPullRequests: run.group.map((n) => ({ prNumber: n, title: fakePrFor(core, q, n)?.title ?? `PR #${n}` })),
    ...(all ? { impactedTargets: all } : {}),
    ...(tested ? { impactedTargetsForTestedPrs: tested } : {}),
  };
}
