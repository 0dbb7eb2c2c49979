/**
 * The engine's state model. Everything here is plain JSON (numbers, strings, arrays, records) so
 * that the whole state can be written to disk as it is and read back without a translation layer.
 * Times are epoch milliseconds; the wire layer turns them into ISO strings.
 */

export const PR_STATES = [
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'merged',
  'failed',
  'cancelled',
  'pending_failure',
] as const;
export type PrState = (typeof PR_STATES)[number];

export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export type QueueStateName = (typeof QUEUE_STATES)[number];
export const REQUESTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export type RequestableQueueState = (typeof REQUESTABLE_QUEUE_STATES)[number];

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

export const RUN_OUTCOMES = ['pass', 'fail', 'hang'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];
export type RunStatus = 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/** Every setting of a queue; the wire shape of getQueue/updateQueue is built from this. */
export interface QueueConfig {
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /** null = "not configured": bisection shares `concurrency` (reported as that value). */
  bisectionConcurrency: number | null;
  /** null = no API override; the fake code host's branch protection then supplies the statuses. */
  requiredStatuses: string[] | null;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  extensionEnabled: boolean;
  enqueueingLabel: string | null;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
}

/** Which intrusive list an entry currently sits in (see queue-order.ts). */
export type ListName = 'started' | 'waiting' | 'notReady';

/** Head/tail of an intrusive doubly linked list whose nodes are entries keyed by PR number. */
export interface ListLinks {
  head: number | null;
  tail: number | null;
  size: number;
}

/**
 * A PR's membership in one queue. One record per (PR, queue) for ever: a resubmission after a
 * terminal state starts a new trip on the same record, so `id` stays stable as on the live service.
 */
export interface Entry {
  id: string;
  prNumber: number;
  /** Creation order within the queue; listPullRequests pages by it. */
  ordinal: number;
  state: PrState;
  stateChangedAt: number;
  /** isCurrentlySubmittedToQueue: true from submit until a terminal state. */
  live: boolean;
  priorityValue: number;
  priorityName: string;
  noBatch: boolean;
  submittedAt: number;
  admittedAt: number | null;
  firstTestAt: number | null;
  runId: string | null;
  verifiedByTestRun: string | null;
  /** While pending_failure: the reason the entry will fail with if blame settles on it. */
  failureReason: string | null;
  conclusionReason: string | null;
  mergeMethod: MergeMethod | null;
  /** Priority bucket the entry sits in while in the waiting list. */
  bucket: number | null;
  /** Rank in the started list (monotonic, so sorting by it is sorting by queue position). */
  pinRank: number | null;
  list: ListName | null;
  prev: number | null;
  next: number | null;
}

export interface MetricSeries<T> {
  head: number;
  items: T[];
}

export interface QueueSamples {
  conclusions: MetricSeries<[number, 'merged' | 'failed' | 'cancelled']>;
  restarts: MetricSeries<number>;
  wait: MetricSeries<[number, number]>;
  test: MetricSeries<[number, number]>;
  inQueue: MetricSeries<[number, number]>;
}

export interface QueueRecord {
  key: string;
  repo: RepoRef;
  branch: string;
  state: QueueStateName;
  config: QueueConfig;
  createdAt: number;
  entries: Record<string, Entry>;
  /** PR numbers in entry-creation order. */
  entryOrder: number[];
  /** Entries that have started testing in this trip, in queue order; they never move again. */
  started: ListLinks;
  /** Admitted entries that have not started yet, one FIFO list per priority value. */
  waiting: Record<string, ListLinks>;
  /** Submitted but not admitted (not ready, or the queue is not running), in submission order. */
  notReady: ListLinks;
  pinSeq: number;
  counts: { admitted: number; notReady: number; testing: number; pendingFailure: number };
  runIds: string[];
  /** Impacted targets per PR number, then per head SHA ("last upload wins per SHA"). */
  impactedTargets: Record<string, Record<string, string[] | 'ALL'>>;
  samples: QueueSamples;
}

export interface FakePr {
  repo: RepoRef;
  number: number;
  title: string;
  author: string;
  sha: string;
  /** null until first submitted: it then takes the queue's branch (see upsertFakePr). */
  baseBranch: string | null;
  mergeable: boolean;
  breaksBuild: boolean;
  outcomes: RunOutcome[];
  testMinutes: number;
}

export interface TestRun {
  id: string;
  queueKey: string;
  group: number[];
  base: number[];
  status: RunStatus;
  createdAt: number;
  completedAt: number | null;
  dueAt: number | null;
  timeoutAt: number;
  scripted: RunOutcome | null;
  isBisection: boolean;
  testBranch: string;
  testBranchSha: string;
  requiredStatuses: string[];
  requiredStatusesSource: 'merge_instance' | 'repo_provider_branch_protection';
  failureReason: string | null;
}

/** A scheduled engine event: [at, kindRank, seq, runId]. kindRank 0 = completion, 1 = timeout. */
export type ScheduledEvent = [number, number, number, string];

export interface EngineState {
  format: 'mq-emulator-engine';
  version: 1;
  now: number;
  rng: number;
  seq: number;
  queues: Record<string, QueueRecord>;
  fakePrs: Record<string, FakePr>;
  runs: Record<string, TestRun>;
  events: ScheduledEvent[];
}

/** A PR state transition, for webhooks (issue 6) and for tests that watch the path a PR took. */
export interface Effect {
  type: 'pr_state';
  repo: RepoRef;
  branch: string;
  prNumber: number;
  entryId: string;
  from: PrState | null;
  to: PrState;
  reason: string;
  runId: string | null;
  at: number;
}
