/**
 * The merge-queue engine (pure: state + time in, state + effects out). Semantics follow the
 * queue-semantics research notes; where the sources are silent or disagree, the engine decides:
 *
 *  D1  pendingFailureDepth = successor levels whose runs a failed group waits for (T-PFD).
 *  D2  no successor within the depth → the failure resolves at once.
 *  D3  PRs beyond the depth behind an unresolved PENDING_FAILURE are not started.
 *  D4  only TESTING PRs hold concurrency slots; a passed PR waiting to merge does not.
 *  D9  submit is accepted in any queue state; the PR stays NOT_READY until the queue runs.
 *  D10 a draining queue stays draining when it empties, until set to running.
 *  D12 a run past testingTimeoutMinutes is a failure (reason TEST_RUN_TIMEOUT), not a cancel.
 *  D13 directMergeMode defaults to off (stored; direct merge itself is issue 6).
 *  D14 optimistic merging only vouches for PRs inside the passing run's tested set.
 *  D15 same-instant events: all completions first (front of the queue first), then the queue reacts.
 *  Own choices:
 *  - vouching is all-or-nothing over the passing run's base (a merge must match a tested state), and
 *    a PENDING_FAILURE PR can only be vouched for while pendingFailureDepth > 0 (the hold is open);
 *  - manual restart retests only that PR (v1: "without ... causing other PRs to be retested");
 *  - a vouched PR whose proof run contained a PR that then left unmerged goes back to PENDING
 *    (reason VERIFYING_TEST_RUN_INVALIDATED; only reachable while paused);
 *  - resubmitting a live PR keeps fields it leaves out; createQueue defaults come from config.ts;
 *  - requiredStatuses without an override report [] in getQueue, and runs gate on `ci`, the fake
 *    host's branch protection (requiredStatusesSource repo_provider_branch_protection);
 *  - pendingFailureDepth and batchingMaxWaitTimeMinutes accept 0; an empty requiredStatuses list
 *    is ignored (v1), deleteRequiredStatuses clears it.
 * Batching, bisection, parallel lanes, direct merge, urgent preemption and mode switching (issue 6)
 * fit the same records: runs already carry a group and a base, entries keep their impacted targets.
 */
export { QueueEngine, type EngineOptions, type PrRef, type QueueRef } from './engine.js';
export { EngineError, type EngineErrorStatus } from './errors.js';
export { createState, validateState } from './state.js';
export { PRIORITY_VALUES, resolvePriority, type QueueUpdate } from './config.js';
export type { FakePrInput } from './fake-prs.js';
export type { QueueMetricsSnapshot } from './metrics.js';
export type { ListQuery } from './pr-ops.js';
export * from './types.js';
export type { WirePullRequest, WireQueueEntry, WireRun } from './wire.js';
