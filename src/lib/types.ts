// The library's public types, written by hand without zod so the .d.ts needs only TypeScript;
// client.ts maps them onto the CLI's client, so the compiler keeps the two compatible.
import type { MergeQueueError } from './errors.js';

/** A repository on the code host: `{ host: 'github.com', owner: 'acme', name: 'app' }`. */
export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

export type PrState =
  | 'not_ready'
  | 'pending'
  | 'testing'
  | 'tests_passed'
  | 'merged'
  | 'failed'
  | 'cancelled'
  | 'pending_failure';
export type PriorityName = 'urgent' | 'high' | 'medium' | 'low';

export interface QueueTargetRequest {
  repo: RepoRef;
  targetBranch: string;
}

export interface PrRequest extends QueueTargetRequest {
  pr: { number: number };
}

export interface SubmitRequest extends PrRequest {
  /** A name, or a number 0 (most urgent) ..255. */
  priority?: number | PriorityName;
  noBatch?: boolean;
}

export interface ImpactedTargetsRequest extends QueueTargetRequest {
  pr: { number: number; sha: string };
  /** Target names, or 'ALL' when the PR may affect everything. */
  impactedTargets: 'ALL' | string[];
}

export interface TestingDetailsRequest extends QueueTargetRequest {
  testRunId: string;
}

export interface CreateQueueRequest extends QueueTargetRequest {
  mode?: 'single' | 'parallel';
  concurrency?: number;
}

export interface UpdateQueueRequest extends QueueTargetRequest {
  state?: 'running' | 'paused' | 'draining';
  concurrency?: number;
  bisectionConcurrency?: number;
  testingTimeoutMinutes?: number;
  pendingFailureDepth?: number;
  canOptimisticallyMerge?: boolean;
  batch?: boolean;
  batchingMaxWaitTimeMinutes?: number;
  batchingMinSize?: number;
  mode?: 'single' | 'parallel';
  commentsEnabled?: boolean;
  commandsEnabled?: boolean;
  createPrsForTestingBranches?: boolean;
  directMergeMode?: 'off' | 'always';
  optimizationMode?: 'off' | 'bisection_skip_redundant_tests';
  mergeMethod?: 'merge_commit' | 'squash' | 'rebase';
  statusCheckEnabled?: boolean;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
}

export interface ListPullRequestsRequest extends QueueTargetRequest {
  state?: PrState;
  /** ISO-8601 date-time. */
  since?: string;
  /** ISO-8601 date-time: with it, the PRs that concluded (merged, failed, cancelled) between since and until. */
  until?: string;
  cursor?: string;
  /** Page size, 1..100. */
  take?: number;
}

export interface MetricsRequest {
  /** `owner/name`. */
  repo?: string;
  repoHost?: string;
}

// ---- results: read leniently (any field may be missing or null, enums lower-cased, unknown kept) ----

type Maybe<T> = T | null | undefined;

export interface QueueEntry {
  id?: Maybe<string>;
  /** One of PrState, lower-case (a newer service may send states this version does not know). */
  state?: Maybe<string>;
  stateChangedAt?: Maybe<string>;
  priorityValue?: Maybe<number>;
  priorityName?: Maybe<string>;
  usedDefaultPriorityName?: Maybe<string>;
  skipTheLine?: Maybe<boolean>;
  noBatch?: Maybe<boolean>;
  prNumber?: Maybe<number>;
  prTitle?: Maybe<string>;
  prSha?: Maybe<string>;
  prBaseBranch?: Maybe<string>;
  prAuthor?: Maybe<string>;
  [field: string]: unknown;
}

export interface Readiness {
  hasImpactedTargets?: Maybe<boolean>;
  requiresImpactedTargets?: Maybe<boolean>;
  doesBaseBranchMatch?: Maybe<boolean>;
  gitHubMergeability?: Maybe<string>;
  [field: string]: unknown;
}

export interface SubmittedPullRequest extends QueueEntry {
  forceEnqueued?: Maybe<boolean>;
  isCurrentlySubmittedToQueue?: Maybe<boolean>;
  readiness?: Maybe<Readiness>;
  /** The test run that proved the PR (set once it passed). */
  verifiedByTestRun?: Maybe<string>;
}

export interface Queue {
  state?: Maybe<string>;
  branch?: Maybe<string>;
  concurrency?: Maybe<number>;
  testingTimeoutMinutes?: Maybe<number>;
  mode?: Maybe<string>;
  canOptimisticallyMerge?: Maybe<boolean>;
  pendingFailureDepth?: Maybe<number>;
  batch?: Maybe<boolean>;
  batchingMaxWaitTimeMinutes?: Maybe<number>;
  batchingMinSize?: Maybe<number>;
  createPrsForTestingBranches?: Maybe<boolean>;
  commentsEnabled?: Maybe<boolean>;
  commandsEnabled?: Maybe<boolean>;
  statusCheckEnabled?: Maybe<boolean>;
  bisectionConcurrency?: Maybe<number>;
  requiredStatuses?: Maybe<string[]>;
  directMergeMode?: Maybe<string>;
  optimizationMode?: Maybe<string>;
  mergeMethod?: Maybe<string>;
  enqueuedPullRequests?: Maybe<QueueEntry[]>;
  [field: string]: unknown;
}

export interface CheckRun {
  name?: Maybe<string>;
  url?: Maybe<string>;
  status?: Maybe<string>;
  conclusion?: Maybe<string>;
  [field: string]: unknown;
}

export interface StatusCheck {
  context?: Maybe<string>;
  url?: Maybe<string>;
  state?: Maybe<string>;
  [field: string]: unknown;
}

export interface TestingDetails {
  requiredStatuses?: Maybe<string[]>;
  requiredStatusesSource?: Maybe<string>;
  testBranch?: Maybe<string>;
  testBranchSha?: Maybe<string>;
  createdAt?: Maybe<string>;
  status?: Maybe<string>;
  checkSuites?: Maybe<Array<{ checkRuns?: Maybe<CheckRun[]>; [field: string]: unknown }>>;
  statusChecks?: Maybe<StatusCheck[]>;
  testedPullRequests?: Maybe<
    Array<{ prNumber?: Maybe<number>; prUrl?: Maybe<string>; title?: Maybe<string>; [field: string]: unknown }>
  >;
  impactedTargets?: Maybe<string[]>;
  impactedTargetsForTestedPrs?: Maybe<string[]>;
  dependentPrs?: Maybe<number[]>;
  [field: string]: unknown;
}

export interface PullRequestPage {
  pullRequests?: Maybe<QueueEntry[]>;
  nextCursor?: Maybe<string>;
  [field: string]: unknown;
}

export interface MetricsResult {
  contentType: string;
  /** Prometheus text exposition. */
  body: string;
}

// ---- history -----------------------------------------------------------------------------------

/** Per call: an absolute deadline (epoch ms) after which no attempt or retry starts; a signal that stops the call. */
export interface CallOptions {
  deadline?: number;
  signal?: AbortSignal;
}

export interface GetPullRequestRequest extends PrRequest {
  /** Also return the PR's `timeline`: every transition of its trips through the queue. */
  includeTimeline?: boolean;
}

export interface GetPullRequestsRequest extends QueueTargetRequest {
  /** At most 50. */
  prs: Array<{ number: number }>;
  includeTimeline?: boolean;
}

export interface TestingResultsRequest extends QueueTargetRequest {
  /** ISO-8601; the window is at most 45 days. */
  since?: string;
  until?: string;
  offset?: number;
  /** Page size, 1..100. */
  take?: number;
}

export interface TimelineRun {
  id?: Maybe<string>;
  branch?: Maybe<string>;
  sha?: Maybe<string>;
  status?: Maybe<string>;
  isBisection?: Maybe<boolean>;
  requiredStatuses?: Maybe<string[]>;
  testedPullRequests?: Maybe<
    Array<{ prNumber?: Maybe<number>; prUrl?: Maybe<string>; title?: Maybe<string>; [field: string]: unknown }>
  >;
  [field: string]: unknown;
}

/** One transition of a PR. `reason` is upper-case (TEST_RUN_REQUIRED_STATUS_FAILED, ...). */
export interface TimelineItem {
  timestamp?: Maybe<string>;
  state?: Maybe<string>;
  reason?: Maybe<string>;
  testRunId?: Maybe<string>;
  testRun?: Maybe<TimelineRun>;
  failureCausingStatuses?: Maybe<string[]>;
  [field: string]: unknown;
}

export interface PullRequestWithTimeline extends SubmittedPullRequest {
  /** Newest first, as the service sends it; only with `includeTimeline`. */
  timeline?: Maybe<TimelineItem[]>;
}

export interface PullRequestsLookup {
  pullRequests?: Maybe<PullRequestWithTimeline[]>;
  /** The PRs never submitted to this queue. */
  notFound?: Maybe<Array<{ number?: Maybe<number>; [field: string]: unknown }>>;
  [field: string]: unknown;
}

/** One PR's part in one finished test run. */
export interface TestingResult {
  testRunId?: Maybe<string>;
  testBranch?: Maybe<string>;
  prNumber?: Maybe<number>;
  startedAt?: Maybe<string>;
  completedAt?: Maybe<string>;
  testingDurationMs?: Maybe<number>;
  /** passed, failed, timed_out or cancelled. */
  outcome?: Maybe<string>;
  failureReason?: Maybe<string>;
  /** How the PR's trip ended (merged, failed, cancelled); null while it is in the queue. */
  cycleConclusion?: Maybe<string>;
  bisection?: Maybe<string>;
  isBisection?: Maybe<boolean>;
  startedBisection?: Maybe<boolean>;
  [field: string]: unknown;
}

export interface TestingResultsPage {
  testingResults?: Maybe<TestingResult[]>;
  totalItems?: Maybe<number>;
  [field: string]: unknown;
}

// ---- waiting -----------------------------------------------------------------------------------

export interface WaitRequest extends QueueTargetRequest {
  /** The PR, as a number or as `{ number }`. */
  pr: number | { number: number };
  /** Give up after this long (default 2 hours). */
  timeoutMs?: number;
  /** Time between polls (default 15 s; at least 100 ms). */
  intervalMs?: number;
  /** Stops the wait; it then rejects with a MergeQueueError of kind `interrupted`. */
  signal?: AbortSignal;
  /** Called on every state change seen, the first poll included. */
  onTransition?: (transition: Transition, pr: SubmittedPullRequest) => void;
  /** Called when a poll failed for a transient reason (it is retried, with a longer interval). */
  onRetry?: (error: MergeQueueError) => void;
}

export interface Transition {
  from: string | null;
  to: string;
  /** When the service says the PR entered `to` (ISO-8601), else when this wait saw it. */
  at: string;
  /** Time spent in `from`, as far as this wait saw it. */
  afterMs: number | null;
}

export type WaitOutcome = 'merged' | 'failed' | 'cancelled' | 'left_queue' | 'timeout';

export interface WaitResult {
  pr: number;
  outcome: WaitOutcome;
  /** What `mq wait` would exit with: 0 merged, 9 left the queue (failed, cancelled), 8 timeout. */
  exitCode: 0 | 8 | 9;
  /** The PR's last state seen (null if no poll ever succeeded). */
  state: string | null;
  waitedMs: number;
  transitions: Transition[];
  pullRequest: SubmittedPullRequest | null;
}

// ---- errors ------------------------------------------------------------------------------------

export type { ErrorKind } from './errors.js';
