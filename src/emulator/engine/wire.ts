/**
 * Response shapes of the real service (trunk-wire.md §1.4, §1.6, §1.9, §1.15 and the live captures
 * in §1.12): lowercase enums, ISO-8601 times with milliseconds, `pr*` fields read live from the code
 * host (so a push shows a new prSha on the same entry), queue entries without readiness.
 */
import { readinessOf, fakePrFor, type Core, type Readiness } from './lifecycle.js';
import type { Entry, QueueRecord, RunStatus, TestRun } from './types.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

export interface WireQueueEntry {
  id: string;
  state: string;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
}

export interface WirePullRequest extends WireQueueEntry {
  readiness: Readiness;
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  verifiedByTestRun: string | null;
}

export function wireEntry(core: Core, q: QueueRecord, e: Entry): WireQueueEntry {
  const pr = fakePrFor(core, q, e.prNumber);
  return {
    id: e.id,
    state: e.state,
    stateChangedAt: iso(e.stateChangedAt),
    priorityValue: e.priorityValue,
    priorityName: e.priorityName,
    usedDefaultPriorityName: 'medium',
    skipTheLine: e.priorityValue === 0,
    noBatch: e.noBatch,
    prNumber: e.prNumber,
    prTitle: pr?.title ?? `PR #${e.prNumber}`,
    prSha: pr?.sha ?? '',
    prBaseBranch: pr?.baseBranch ?? q.branch,
    prAuthor: pr?.author ?? '',
  };
}

export function wirePullRequest(core: Core, q: QueueRecord, e: Entry): WirePullRequest {
  return {
    ...wireEntry(core, q, e),
    readiness: readinessOf(core, q, e.prNumber),
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: e.live,
    verifiedByTestRun: e.verifiedByTestRun,
  };
}

/** Every setting, as getQueue and updateQueue report them (no repo/branch identity echo but `branch`). */
export function wireQueueSettings(q: QueueRecord): Record<string, unknown> {
  const c = q.config;
  return {
    state: q.state,
    branch: q.branch,
    concurrency: c.concurrency,
    testingTimeoutMinutes: c.testingTimeoutMinutes,
    mode: c.mode,
    canOptimisticallyMerge: c.canOptimisticallyMerge,
    pendingFailureDepth: c.pendingFailureDepth,
    batch: c.batch,
    batchingMaxWaitTimeMinutes: c.batchingMaxWaitTimeMinutes,
    batchingMinSize: c.batchingMinSize,
    createPrsForTestingBranches: c.createPrsForTestingBranches,
    commentsEnabled: c.commentsEnabled,
    commandsEnabled: c.commandsEnabled,
    statusCheckEnabled: c.statusCheckEnabled,
    extensionEnabled: c.extensionEnabled,
    bisectionConcurrency: c.bisectionConcurrency ?? c.concurrency,
    // The schema says string[]; with no override the list is empty (statuses then come from the
    // fake code host's branch protection, which getMergeQueueTestingDetails reports).
    requiredStatuses: c.requiredStatuses ? [...c.requiredStatuses] : [],
    directMergeMode: c.directMergeMode,
    optimizationMode: c.optimizationMode,
    mergeMethod: c.mergeMethod,
    enqueueingLabel: c.enqueueingLabel,
    labelCommandsEnabled: c.labelCommandsEnabled,
    stateLabelsEnabled: c.stateLabelsEnabled,
  };
}

const STATUS_CHECK_STATE: Record<RunStatus, string> = {
  in_progress: 'PENDING',
  succeeded: 'SUCCESS',
  failed: 'FAILURE',
  cancelled: 'ERROR',
};

export function wireTestingDetails(core: Core, q: QueueRecord, run: TestRun): Record<string, unknown> {
  const prUrl = (n: number) => `https://${q.repo.host}/${q.repo.owner}/${q.repo.name}/pull/${n}`;
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
    requiredStatuses: [...run.requiredStatuses],
    requiredStatusesSource: run.requiredStatusesSource,
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    createdAt: iso(run.createdAt),
    status: run.status,
    checkSuites: [],
    statusChecks: run.requiredStatuses.map((context) => ({
      context,
      url: `https://ci.emulator.invalid/runs/${run.id}`,
      state: STATUS_CHECK_STATE[run.status],
    })),
    testedPullRequests: run.group.map((n) => ({
      prNumber: n,
      prUrl: prUrl(n),
      title: fakePrFor(core, q, n)?.title ?? `PR #${n}`,
    })),
    ...(all ? { impactedTargets: all } : {}),
    ...(tested ? { impactedTargetsForTestedPrs: tested } : {}),
    dependentPrs: [...run.base],
  };
}

export interface WireRun {
  id: string;
  prNumbers: number[];
  basePrNumbers: number[];
  status: RunStatus;
  createdAt: string;
  completedAt: string | null;
  isBisection: boolean;
  testBranch: string;
  repo: { host: string; owner: string; name: string };
  branch: string;
}

export function wireRun(q: QueueRecord | undefined, run: TestRun): WireRun {
  return {
    id: run.id,
    prNumbers: [...run.group],
    basePrNumbers: [...run.base],
    status: run.status,
    createdAt: iso(run.createdAt),
    completedAt: run.completedAt === null ? null : iso(run.completedAt),
    isBisection: run.isBisection,
    testBranch: run.testBranch,
    repo: q ? { ...q.repo } : { host: '', owner: '', name: '' },
    branch: q?.branch ?? '',
  };
}
