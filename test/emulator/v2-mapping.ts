/**
 * The v1 -> v2 mapping table of the workload test (trunk-v2.md's "v1 -> v2 mapping"): one row per
 * mapped field, with where it is in v1, where in v2, and the conversion (enum case, times, inverted
 * flags, modes); `valueAt` reads a row's path.
 */
type Conv = (v1: any, record: any) => unknown;
/** One mapped field: where it is in v1, where in v2, and how a v1 value becomes the v2 one. */
export interface Row {
  v1: string;
  v2: string;
  conv?: Conv;
  /** Only where v2 spells one v1 value two ways: makes the v2 value comparable. */
  v2conv?: Conv;
}

const camel: Conv = (s) => (typeof s === 'string' ? s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : s);
const not: Conv = (b) => !b;
const time: Conv = (t) => (typeof t === 'string' ? new Date(Date.parse(t)).toISOString() : t);
const nullIsAbsent: Conv = (v) => (v === null ? undefined : v);
const mode: Conv = (m) => (m === 'single' ? 'queue' : m === 'parallel' ? 'graph' : m);
/** v2 gives testing and pendingFailure no reason; the others are UPPERCASE. */
const reason: Conv = (r, item) =>
  item.state === 'testing' || item.state === 'pending_failure' || r === '' ? null : String(r).toUpperCase();
/** A v1 testing result's PR state after that run, from its v1 timeline (set by the test). */
export const NEXT = 'nextStateFromTimeline';
export type TimelineItem = { state: string; testRunId?: string };
/** The state a PR entered next after it started testing in run `runId` (v1 timelines are newest first). */
export function after(timeline: TimelineItem[], runId: string): string | undefined {
  const i = timeline.findLastIndex((t) => t.testRunId === runId && t.state === 'testing');
  return i > 0 ? timeline[i - 1]?.state : undefined;
}
/**
 * v2 has no timed_out (a timeout is a failed run) and splits v1's cancelled: interrupted when the PR
 * stayed in the queue to be retested, cancelled when it left the queue with the run.
 */
const outcome: Conv = (o, r) => {
  if (o === 'timed_out') return 'failed';
  const stayed = ['not_ready', 'pending', 'testing'].includes(r[NEXT]);
  return o === 'cancelled' && stayed ? 'interrupted' : o;
};
/**
 * v1's union of uploaded targets ("ALL" among them) -> v2's set. v1 lists them only when every PR
 * uploaded, v2 also when some did: the workload's runs have uploads for all their PRs or none.
 */
const targetSet: Conv = (t) => {
  if (!Array.isArray(t)) return undefined;
  const all = t.includes('ALL');
  const names = all ? [] : [...new Set(t as string[])].sort();
  return { impactsAllTargets: all, impactedTargets: names, totalImpactedTargets: names.length };
};
/** Unset, v1 reports concurrency and v2 0 (bisection shares concurrency). */
const shared: Conv = (n, q) => (n === 0 ? q.config.concurrency : n);

/** A queue entry: v1's flat record -> v2's PR fields plus `queueEntry`. */
const ENTRY: Row[] = [
  { v1: 'prNumber', v2: 'number' },
  { v1: 'prTitle', v2: 'title' },
  { v1: 'prSha', v2: 'sha' },
  { v1: 'prBaseBranch', v2: 'baseBranch' },
  { v1: 'prAuthor', v2: 'author' },
  { v1: 'id', v2: 'queueEntry.id' },
  { v1: 'state', v2: 'queueEntry.state', conv: camel },
  { v1: 'stateChangedAt', v2: 'queueEntry.stateChangedAt', conv: time },
  { v1: 'priorityValue', v2: 'queueEntry.priorityValue' },
  { v1: 'priorityName', v2: 'queueEntry.priorityName' },
  { v1: 'usedDefaultPriorityName', v2: 'queueEntry.usedDefaultPriorityName' },
  { v1: 'skipTheLine', v2: 'queueEntry.skipsTheLine' },
  { v1: 'noBatch', v2: 'queueEntry.allowBatching', conv: not },
];

export const MAPPING = {
  /** getSubmittedPullRequest -> GET /v2/pull-requests/{id}. */
  pullRequest: [
    ...ENTRY,
    { v1: 'isCurrentlySubmittedToQueue', v2: 'isCurrentlySubmittedToQueue' },
    { v1: 'forceEnqueued', v2: 'queueEntry.direct' },
    { v1: 'verifiedByTestRun', v2: 'queueEntry.verifiedByVerificationRunId', conv: nullIsAbsent },
    { v1: 'readiness.requiresImpactedTargets', v2: 'queueEntry.readiness.requiresImpactedTargets' },
    { v1: 'readiness.hasImpactedTargets', v2: 'queueEntry.readiness.hasImpactedTargets' },
    { v1: 'readiness.doesBaseBranchMatch', v2: 'queueEntry.readiness.doesBaseBranchMatch' },
    { v1: 'readiness.gitHubMergeability', v2: 'queueEntry.readiness.mergeability', conv: camel },
  ],
  /** listPullRequests -> GET /v2/merge-queues/{id}/pull-requests. */
  listed: ENTRY,
  /** A timeline item (newest first) -> a transition of queue-entry-history?direction=newest. */
  transition: [
    { v1: 'timestamp', v2: 'changedAt', conv: time },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'reason', v2: 'reason', conv: reason },
    { v1: 'testRunId', v2: 'verificationRunId' },
  ],
  /** getQueue's settings -> GET /v2/merge-queues/{id}. */
  queue: [
    { v1: 'branch', v2: 'targetBranch' },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'mode', v2: 'mode', conv: mode },
    { v1: 'concurrency', v2: 'config.concurrency' },
    { v1: 'bisectionConcurrency', v2: 'config.bisectionConcurrency', v2conv: shared },
    { v1: 'pendingFailureDepth', v2: 'config.pendingFailureDepth' },
    { v1: 'canOptimisticallyMerge', v2: 'config.canOptimisticallyMerge' },
    { v1: 'batch', v2: 'config.allowBatching' },
    { v1: 'batchingMaxWaitTimeMinutes', v2: 'config.batchingMaxWaitTimeMinutes' },
    { v1: 'batchingMinSize', v2: 'config.batchingMinSize' },
    { v1: 'testingTimeoutMinutes', v2: 'config.testingTimeoutMinutes' },
    { v1: 'createPrsForTestingBranches', v2: 'config.createsPrsForTestingBranches' },
    { v1: 'commentsEnabled', v2: 'config.areCommentsEnabled' },
    { v1: 'commandsEnabled', v2: 'config.areCommandsEnabled' },
    { v1: 'labelCommandsEnabled', v2: 'config.areLabelCommandsEnabled' },
    { v1: 'stateLabelsEnabled', v2: 'config.areStateLabelsEnabled' },
    { v1: 'statusCheckEnabled', v2: 'config.isStatusCheckEnabled' },
    { v1: 'extensionEnabled', v2: 'config.isExtensionEnabled' },
    { v1: 'requiredStatuses', v2: 'config.requiredStatuses' },
    { v1: 'directMergeMode', v2: 'config.directMergeMode' },
    { v1: 'optimizationMode', v2: 'config.optimizationMode', conv: camel },
    { v1: 'mergeMethod', v2: 'config.mergeMethod', conv: camel },
    { v1: 'enqueueingLabel', v2: 'config.enqueueingLabel', conv: (l) => l ?? '' },
  ],
  /** getQueue's settings -> GET /v2/merge-queues/{id}/order's header. */
  orderHeader: [
    { v1: 'mode', v2: 'mode', conv: mode },
    { v1: 'state', v2: 'queueState', conv: camel },
    { v1: 'batch', v2: 'batchingEnabled' },
  ],
  /** getQueue's enqueuedPullRequests[i] -> /order's batches + pending, in order. */
  ordered: [
    { v1: 'prNumber', v2: 'number' },
    { v1: 'prSha', v2: 'sha' },
    { v1: 'prTitle', v2: 'title' },
    { v1: 'state', v2: 'state', conv: camel },
  ],
  /** getQueue's enqueuedPullRequests[i] -> /graph's nodes[i]. */
  node: [
    { v1: 'prNumber', v2: 'pullRequestNumber' },
    { v1: 'prTitle', v2: 'title' },
    { v1: 'prAuthor', v2: 'author' },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'priorityValue', v2: 'priorityValue' },
    { v1: 'priorityName', v2: 'priorityName' },
    { v1: 'skipTheLine', v2: 'skipsTheLine' },
    { v1: 'noBatch', v2: 'allowsBatching', conv: not },
  ],
  /** listMergeQueueTestingResults' testingResults[] -> /testing-results' data[]. */
  testingResult: [
    { v1: 'prNumber', v2: 'pullRequestNumber' },
    { v1: 'completedAt', v2: 'endedAt', conv: time },
    { v1: 'testingDurationMs', v2: 'testingDurationMs' },
    { v1: 'outcome', v2: 'outcome', conv: outcome },
    { v1: 'cycleConclusion', v2: 'entryConclusion', conv: nullIsAbsent },
    { v1: 'bisection', v2: 'isBisection', conv: (b) => b === 'in_bisection' },
    { v1: 'isBisection', v2: 'isBisection' },
    { v1: 'startedBisection', v2: 'startedBisection' },
    { v1: 'testRunId', v2: 'verificationRunId' },
  ],
  /** getMergeQueueTestingDetails -> GET /v2/merge-queue-verification-runs/{id}. */
  run: [
    { v1: 'testBranch', v2: 'testBranch' },
    { v1: 'testBranchSha', v2: 'testBranchSha' },
    { v1: 'createdAt', v2: 'createdAt', conv: time },
    { v1: 'status', v2: 'status', conv: camel },
    { v1: 'requiredStatusesSource', v2: 'requiredStatusesSource', conv: camel },
    { v1: 'requiredStatuses', v2: 'requiredStatuses' },
    { v1: 'testedPullRequests[].prNumber', v2: 'testedPullRequests[].number' },
    { v1: 'testedPullRequests[].title', v2: 'testedPullRequests[].title' },
    { v1: 'testedPullRequests[].prUrl', v2: 'testedPullRequests[].url' },
    { v1: 'dependentPrs', v2: 'dependentPullRequests[].number' },
    { v1: 'impactedTargets', v2: 'impactedTargets.all', conv: targetSet },
    { v1: 'impactedTargetsForTestedPrs', v2: 'impactedTargets.testedPullRequestsOnly', conv: targetSet },
  ],
} satisfies Record<string, Row[]>;
export type Kind = keyof typeof MAPPING;

/** The value at `path` (`a.b`, `list[].field` maps over a list). */
export function valueAt(o: unknown, path: string): unknown {
  const [head, ...rest] = path.split('.');
  if (head === undefined || o === null || typeof o !== 'object') return o === null ? undefined : o;
  if (head.endsWith('[]')) {
    const list = (o as Record<string, unknown>)[head.slice(0, -2)];
    return Array.isArray(list) ? list.map((x) => (rest.length ? valueAt(x, rest.join('.')) : x)) : undefined;
  }
  const v = (o as Record<string, unknown>)[head];
  return rest.length ? valueAt(v, rest.join('.')) : v;
}
