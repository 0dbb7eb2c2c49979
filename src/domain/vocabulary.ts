// The service's vocabulary (lower-case states, v1 enum words), defined once for every part of mq.
// No imports, so it costs nothing at start-up.

/** Largest value of the spec's uint32 fields (PR numbers, queue settings). */
export const MAX_U32 = 4_294_967_295;

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

/** States that end a PR's trip through the queue. */
export const TERMINAL_STATES = ['merged', 'failed', 'cancelled'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

export function isTerminal(state: string): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

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

/** Priority names and their values (0 is the highest; numbers 0..255 are accepted too). */
export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];
export const PRIORITY_VALUES: Readonly<Record<PriorityName, number>> = { urgent: 0, high: 10, medium: 100, low: 200 };

/** A commit id as the service matches it: 7 to 64 hex digits (abbreviated, SHA-1 or SHA-256). */
export const COMMIT_SHA = /^[0-9a-fA-F]{7,64}$/;

/** A GitHub Actions workflow run id (GITHUB_RUN_ID): a fork PR's credential for setImpactedTargets. */
export const WORKFLOW_RUN_ID = /^[1-9]\d{0,19}$/;
