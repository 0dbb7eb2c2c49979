/**
 * The merge-queue engine (pure: state + time in, state + effects out). Semantics follow the
 * queue-semantics research notes; where the sources are silent or disagree, the engine decides:
 *
 *  D1  pendingFailureDepth = successor levels (groups) whose runs a failed group waits for (T-PFD).
 *  D2  no successor within the depth → the failure resolves at once.
 *  D3  groups beyond the depth behind an unresolved PENDING_FAILURE are not started.
 *  D4  only runs in flight hold concurrency slots (a batch is one slot); a passed PR waiting to
 *      merge holds none.
 *  D5  batchingMinSize is both the trigger and the cap of a batch.
 *  D6  a batch's wait clock starts when its earliest PR was admitted (became PENDING).
 *  D7  bisection: the failed batch leaves the main order and is split in half, L on its base and
 *      R on base + L, recursively; a passing part goes back to the main queue to be retested,
 *      unless its run tested exactly what the main queue would test it on now (same branch state,
 *      same PRs under it): that run is then its test (no identical rerun, reuse.ts); a failing
 *      single PR whose base holds only cleared PRs is the culprit. bisectionConcurrency unset =
 *      bisection shares the main `concurrency` slots.
 *  D8  bisection_skip_redundant_tests reuses failures only (the batching page), per bisection.
 *  D9  submit is accepted in any queue state; the PR stays NOT_READY until the queue runs.
 *  D10 a draining queue stays draining when it empties, until set to running.
 *  D11 a mode change with admitted PRs → switching_modes (admits nothing, like draining) until no
 *      admitted PR is left, then the mode applies and the queue returns to the state requested
 *      before or during the switch. During it, updateQueue may only change `state`; any setting
 *      change (concurrency included: the docs refuse "config and mode writes") is a 400.
 *  D12 a run past testingTimeoutMinutes is a failure (reason TEST_RUN_TIMEOUT), not a cancel.
 *  D13 directMergeMode defaults to off.
 *  D14 optimistic merging only vouches for PRs inside the passing run's tested set.
 *  D15 same-instant events: all completions first (front of the queue first), then the queue reacts.
 *  D16 an urgent PR goes to the front of its lane (behind earlier urgent ones) and every started PR
 *      it overtakes there goes back to PENDING (SKIP_THE_LINE_INTERRUPTED); slots then fill front
 *      to back, so the last ones wait.
 *  Own choices:
 *  - a fake PR's scripted outcome is spent only by a run that reaches that PR's own result; a run
 *    cancelled or restarted, or failed by another PR of its content, leaves it for the next run;
 *  - a failed PR's verifiedByTestRun names the run that failed it; timelines keep every trip;
 *  - vouching is all-or-nothing over the passing run's base (a merge must match a tested state), and
 *    a PENDING_FAILURE PR can only be vouched for while pendingFailureDepth > 0 (the hold is open);
 *  - manual restart retests only that PR (v1: "without ... causing other PRs to be retested") —
 *    with the rest of its batch when the run in flight is shared;
 *  - a vouched PR whose proof run contained a PR that then left unmerged goes back to PENDING
 *    (reason VERIFYING_TEST_RUN_INVALIDATED; only reachable while paused);
 *  - resubmitting a live PR keeps fields it leaves out; createQueue defaults come from config.ts;
 *  - requiredStatuses without an override report [] in getQueue, and runs gate on `ci`, the fake
 *    host's branch protection (requiredStatusesSource repo_provider_branch_protection);
 *  - pendingFailureDepth and batchingMaxWaitTimeMinutes accept 0; an empty requiredStatuses list
 *    is ignored (v1), deleteRequiredStatuses clears it;
 *  - a batch also starts when it cannot grow (the next PR is noBatch or already started) and when
 *    one of its PRs was tested before in this trip (restarts, PRs back from bisection);
 *  - PRs cleared by a bisection go back at the front of their priority bucket, in their old order,
 *    behind the runs already started; a batch that fails as a whole sends pull_request_batch.failed
 *    when it goes to bisection; bisection culprits and restarts report under queue_type="bisection";
 *  - parallel mode: a PR depends on the started PRs ahead whose targets overlap its own,
 *    transitively; an empty list overlaps nothing (not even ALL); a batch takes PRs of one lane;
 *    the pending-failure window counts groups along the lane;
 *  - direct merge needs the fake PR's `upToDate` (set through the control API, cleared by the next
 *    merge into its branch), an empty queue (single mode, or any mode with batching on) or an
 *    empty lane (parallel), and happens when the PR is admitted.
 */
export { QueueEngine, type EngineOptions, type PrRef, type QueueRef } from './engine.js';
export { EngineError, type EngineErrorKind } from './errors.js';
export { createState, validateState } from './state.js';
export { overlaps, targetsOf } from './targets.js';
export { resolvePriority, type QueueUpdate } from './config.js';
export type { FakePrInput, FakePrView } from './fake-prs.js';
export type { Readiness } from './lifecycle.js';
export type { QueueMetricsSnapshot } from './metrics.js';
export type { ListQuery } from './pr-ops.js';
export { MAX_BATCH_LOOKUP, MAX_WINDOW_DAYS, type TestingResultsQuery } from './history.js';
export * from './types.js';
export type {
  EntryView,
  PullRequestView,
  QueueView,
  QueueWithEntriesView,
  RunDetailsView,
  RunView,
  TestingResultView,
  TimelineItemView,
} from './views.js';
