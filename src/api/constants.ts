/** Wire vocabulary, kept free of zod so argument parsing stays cheap to load. */
export const MAX_U32 = 4294967295;

export const PR_STATES = ['not_ready', 'pending', 'testing', 'tests_passed', 'merged', 'failed', 'cancelled', 'pending_failure'] as const;
export const TERMINAL_PR_STATES = ['merged', 'failed', 'cancelled'] as const;
export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export const REQUESTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export const QUEUE_MODES = ['single', 'parallel'] as const;
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
export const PRIORITY_VALUES: Record<(typeof PRIORITY_NAMES)[number], number> = { urgent: 0, high: 10, medium: 100, low: 200 };
