/**
 * The JSON the emulator sends, built from the engine's views: the real service's shapes
 * (trunk-wire.md §1.4, §1.9, §1.15 and the live captures in §1.12) — lowercase enums,
 * ISO-8601 times with milliseconds, `pr*` field names, queue entries without readiness — and the
 * HTTP status of each kind of engine error. Test runs: wire-runs.ts.
 */
import type { PrState } from '../../domain/vocabulary.js';
import type {
  EngineErrorKind,
  EntryView,
  PullRequestView,
  QueueView,
  RepoRef,
  RunDetailsView,
  RunStatus,
  TimelineItemView,
} from '../engine/index.js';

let isoMs = Number.NaN;
let isoText = '';
/** ISO-8601 with milliseconds; the last answer is kept (an answer's times are often the same instant). */
export function iso(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

const ENGINE_ERROR_STATUS: Record<EngineErrorKind, 400 | 404 | 409> = { invalid: 400, not_found: 404, conflict: 409 };

/** invalid → 400, not_found → 404, conflict → 409. */
export function engineErrorStatus(kind: EngineErrorKind): 400 | 404 | 409 {
  return ENGINE_ERROR_STATUS[kind];
}

export const prUrl = (repo: RepoRef, n: number) => `https://${repo.host}/${repo.owner}/${repo.name}/pull/${n}`;
const branchUrl = (repo: RepoRef, branch: string) => `https://${repo.host}/${repo.owner}/${repo.name}/tree/${branch}`;

// ---- pull requests -------------------------------------------------------------------------------

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
  readiness: PullRequestView['readiness'];
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  verifiedByTestRun: string | null;
  timeline?: WireTimelineItem[];
}

export function wireEntry(e: EntryView): WireQueueEntry {
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
    prTitle: e.title,
    prSha: e.sha,
    prBaseBranch: e.baseBranch,
    prAuthor: e.author,
  };
}

export function wirePullRequest(p: PullRequestView, repo: RepoRef): WirePullRequest {
  // Spelled out rather than spread from wireEntry: this is the emulator's most frequent answer.
  return {
    id: p.id,
    state: p.state,
    stateChangedAt: iso(p.stateChangedAt),
    priorityValue: p.priorityValue,
    priorityName: p.priorityName,
    usedDefaultPriorityName: 'medium',
    skipTheLine: p.priorityValue === 0,
    noBatch: p.noBatch,
    prNumber: p.prNumber,
    prTitle: p.title,
    prSha: p.sha,
    prBaseBranch: p.baseBranch,
    prAuthor: p.author,
    readiness: { ...p.readiness },
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: p.live,
    verifiedByTestRun: p.verifiedByTestRun,
    ...(p.timeline ? { timeline: wireTimeline(p.timeline, repo) } : {}),
  };
}

// ---- timelines -----------------------------------------------------------------------------------

/** The per-state object of a v1 timeline item (`notReady.reason`, `failure.reason`, …). */
const STATE_KEY: Record<PrState, string> = {
  not_ready: 'notReady',
  pending: 'pending',
  testing: 'testing',
  tests_passed: 'testsPassed',
  pending_failure: 'pendingFailure',
  failed: 'failure',
  cancelled: 'cancellation',
  merged: 'merged',
};

export interface WireTimelineItem {
  timestamp: string;
  state: PrState;
  /** v1 spells timeline reasons in lowercase (`prerequisite_merge_item_failed`). */
  reason: string;
  testRunId?: string;
  testRun?: WireTimelineRun;
  [stateKey: string]: unknown;
}

interface WireTimelineRun {
  id: string;
  branch: string;
  sha: string;
  status: RunStatus;
  isBisection: boolean;
  requiredStatuses: string[];
  testedPullRequests: Array<{ prNumber: number; prUrl: string; title: string }>;
}

/** The newest transitions a timeline answer carries (a PR resubmitted all day has thousands). */
export const MAX_TIMELINE_ITEMS = 2000;

/**
 * A PR's timeline, newest first as v1 sends it (the current state comes first): each transition
 * with its time, state, reason and the test run it concerns, plus the v1 per-state object.
 */
export function wireTimeline(items: TimelineItemView[], repo: RepoRef): WireTimelineItem[] {
  const out: WireTimelineItem[] = [];
  for (let i = items.length - 1; i >= Math.max(0, items.length - MAX_TIMELINE_ITEMS); i--) {
    const t = items[i] as TimelineItemView;
    const reason = t.reason.toLowerCase();
    const detail: Record<string, unknown> = { reason };
    if (t.runId !== null) detail.testRunId = t.runId;
    if (t.state === 'tests_passed' && t.run) {
      detail.testBranchSha = t.run.testBranchSha;
      detail.testBranchUrl = branchUrl(repo, t.run.testBranch);
    }
    if (t.state === 'failed') {
      detail.failureCausingStatuses =
        t.run && t.reason === 'TEST_RUN_REQUIRED_STATUS_FAILED' ? [...t.run.requiredStatuses] : [];
    }
    out.push({
      timestamp: iso(t.at),
      state: t.state,
      reason,
      ...(t.runId !== null ? { testRunId: t.runId } : {}),
      ...(t.run ? { testRun: timelineRun(t.run, repo) } : {}),
      [STATE_KEY[t.state]]: detail,
    });
  }
  return out;
}

function timelineRun(r: RunDetailsView, repo: RepoRef): WireTimelineRun {
  return {
    id: r.id,
    branch: r.testBranch,
    sha: r.testBranchSha,
    status: r.status,
    isBisection: r.isBisection,
    requiredStatuses: [...r.requiredStatuses],
    testedPullRequests: r.testedPullRequests.map((p) => ({
      prNumber: p.prNumber,
      prUrl: prUrl(repo, p.prNumber),
      title: p.title,
    })),
  };
}

// ---- queues --------------------------------------------------------------------------------------

/** Every setting, as getQueue and updateQueue report them (no repo/branch identity echo but `branch`). */
export function wireQueueSettings(q: QueueView): Record<string, unknown> {
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
