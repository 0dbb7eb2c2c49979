/**
 * Builders for realistic service records used by the queue tests; times are minutes before FIXED_NOW.
 */
import { FIXED_NOW } from './clock.js';

export { FIXED_NOW };

// ---- builders --------------------------------------------------------------------------------

/** Minutes before FIXED_NOW, as the service writes times. */
export function minutesAgo(m: number, now = FIXED_NOW): string {
  return new Date(now - m * 60_000).toISOString();
}

export function entry(prNumber: number, state: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `00000000-0000-4000-8000-${String(prNumber).padStart(12, '0')}`,
    state,
    stateChangedAt: minutesAgo(5),
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    prNumber,
    prTitle: `Change number ${prNumber}`,
    prSha: `${String(prNumber).padStart(4, '0')}aedddd30582f9a457ddf459c5d3a97d1d`,
    prBaseBranch: 'main',
    prAuthor: 'octocat',
    ...extra,
  };
}

/** A getQueue answer shaped like the live service's, settings overridable. */
export function queueRecord(
  overrides: Record<string, unknown> = {},
  prs: Array<Record<string, unknown>> = [],
): Record<string, unknown> {
  return {
    state: 'running',
    branch: 'main',
    concurrency: 3,
    testingTimeoutMinutes: 60,
    mode: 'single',
    canOptimisticallyMerge: true,
    pendingFailureDepth: 2,
    batch: true,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 2,
    createPrsForTestingBranches: false,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: 2,
    requiredStatuses: ['ci/build'],
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
    enqueuedPullRequests: prs,
    labelCommandsEnabled: true,
    ...overrides,
  };
}
