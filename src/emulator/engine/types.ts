// The engine's state model: plain JSON, so the state is saved and loaded as is. Times are epoch ms.

import type {
  DirectMergeMode,
  MergeMethod,
  OptimizationMode,
  PrState,
  QueueMode,
  QueueStateName,
  RequestableQueueState,
} from '../../domain/vocabulary.js';

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

/** A PR's membership in one queue, for ever: a resubmission starts a new trip, so `id` stays stable. */
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
  /** Rank in the started list (increasing along it, so sorting by it is sorting by queue position). */
  pinRank: number | null;
  /** Targets for this trip (parallel mode), from the upload for the head SHA; null in single mode. */
  targets: Targets | null;
  /** Id of the bisection the PR is in while its failed batch is being bisected, else null. */
  bisection: string | null;
  list: ListName | null;
  prev: number | null;
  next: number | null;
  /** Every transition of every trip, oldest first (the v1 timeline). */
  history: HistoryItem[];
}

/** One transition of an entry: [at, state, reason, test run id or null]. */
export type HistoryItem = [number, PrState, string, string | null];

/** Impacted targets: a list of opaque names, or ALL (overlaps every PR with a non-empty list). */
export type Targets = string[] | 'ALL';

/** How many waiting-region entries have each target (parallel-mode overlap without a scan). */
export interface TargetIndex {
  targets: Record<string, number>;
  /** Entries whose targets are ALL. */
  all: number;
  /** Entries whose targets are ALL or a non-empty list. */
  nonEmpty: number;
}

/** A group under test in a bisection; `base` is explicit as a skipped redundant test drops PRs ahead. */
export interface BisectNode {
  prs: number[];
  base: number[];
  state: 'waiting' | 'testing' | 'failed';
  runId: string | null;
  failureReason: string | null;
}

/** A failed batch bisected outside the main order (D7); a failed single PR on a cleared base is the culprit. */
export interface Bisection {
  id: string;
  /** The PRs ahead of the failed batch it was tested on (frozen when the bisection starts). */
  base: number[];
  nodes: BisectNode[];
  /** PRs of this bisection whose node passed. */
  cleared: number[];
  /** Sorted, comma-joined PR sets (base + group) of every failed run of this bisection. */
  failedSets: string[];
}

/** A mode change waiting for the queue to empty (queue state switching_modes, D11). */
export interface ModeSwitch {
  to: QueueMode;
  /** The state the queue returns to afterwards; `state` updates during the switch change it. */
  resume: RequestableQueueState;
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
  /** Runs in flight, main queue and bisection (concurrency counts runs, i.e. groups, not PRs). */
  inFlight: { main: number; bisection: number };
  runIds: string[];
  /** Waiting-region entries per target (parallel mode look-ups). */
  waitingIndex: TargetIndex;
  /** When the forming batch at the front may start at the latest (batchingMaxWaitTimeMinutes). */
  batchTimerAt: number | null;
  bisections: Record<string, Bisection>;
  /** Bisection activity for the queue_type="bisection" metric series. */
  bisectionSamples: { conclusions: MetricSeries<[number, 'failed']>; restarts: MetricSeries<number> };
  everBisected: boolean;
  switching: ModeSwitch | null;
  /** Engine sequence tick of the last merge into the branch (direct merge staleness), 0 = none. */
  tipSeq: number;
  /** How many merges into the branch the queue has made (identifies the branch's state for reuse). */
  merges: number;
  /** Impacted targets per PR number, then per head SHA ("last upload wins per SHA"). */
  impactedTargets: Record<string, Record<string, string[] | 'ALL'>>;
  samples: QueueSamples;
  /** Serves v2 merge estimates; absent (older data dirs too): the emulator's --estimates default. */
  estimates?: boolean;
}

export interface FakePr {
  repo: RepoRef;
  number: number;
  title: string;
  author: string;
  sha: string;
  /** The head branch, when the control API named one (else `pr-<number>`, see headBranch). */
  branch?: string;
  /** null until first submitted: it then takes the queue's branch (see upsertFakePr). */
  baseBranch: string | null;
  mergeable: boolean;
  breaksBuild: boolean;
  outcomes: RunOutcome[];
  testMinutes: number;
  /** Engine tick when the PR was declared up to date; a later merge (QueueRecord.tipSeq) makes it stale. */
  upToDateTip: number | null;
}

/** A PR's head branch: the one the control API named, else derived (older data dirs stay valid). */
export const headBranch = (pr: Pick<FakePr, 'branch'> | undefined, number: number): string =>
  pr?.branch ?? `pr-${number}`;

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
  /** Scripted outcomes the run started with; each is spent only if the run reaches that PR's result (runs.ts). */
  scripts: Array<[number, RunOutcome]>;
  /** Branch state the run starts from: queue merges at its start minus the base PRs merged by then. */
  branchAt: number;
  /** A main-queue run whose failure sent its batch into bisection. */
  startedBisection: boolean;
  isBisection: boolean;
  bisectionId: string | null;
  /** Union of the group's targets (parallel mode), so a group overlaps as a unit. */
  targets: Targets | null;
  testBranchSha: string;
  requiredStatuses: string[];
  requiredStatusesSource: 'merge_instance' | 'repo_provider_branch_protection';
  failureReason: string | null;
}

/** [at, kindRank, seq, id]; kindRank 0 = run completion, 1 = run timeout (run id), 2 = batch timer (queue key). */
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

/** What an effect says about the test run involved (webhook test_branch, batched, is_bisection). */
export interface EffectRun {
  id: string;
  testBranch: string;
  testBranchSha: string;
  prNumbers: number[];
  isBisection: boolean;
}

/** A PR state transition, for webhooks and for tests that watch the path a PR took. */
export interface PrStateEffect {
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
  author: string;
  run: EffectRun | null;
}

/** Two or more PRs reaching a state together (pull_request_batch.*), after the last member's transition. */
export interface BatchEffect {
  type: 'batch';
  event: 'testing' | 'pending_failure' | 'failed' | 'merged';
  repo: RepoRef;
  branch: string;
  prNumbers: number[];
  reason: string;
  run: EffectRun;
  at: number;
}

export type Effect = PrStateEffect | BatchEffect;

// Derived, not stored (tens of thousands of runs would each keep a ~60-char copy); bisection runs: -bisection.
export function testBranchOf(run: Pick<TestRun, 'group' | 'id' | 'isBisection'>): string {
  return `trunk-merge/pr-${run.group[0] ?? 0}/${run.id}${run.isBisection ? '-bisection' : ''}`;
}
