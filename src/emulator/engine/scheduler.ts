/**
 * The queue's rules (queue-semantics.md §1–2, single mode). After anything happens to a queue the
 * engine calls `reconcile`, which in this order: settles blame for pending failures, merges passed
 * PRs from the front, and starts runs in free slots. Admission (NOT_READY → PENDING) is not part of
 * it: readiness only changes on a few triggers (submit, fake-PR update, impacted targets, resume),
 * and those call `tryAdmit`/`admitAll` directly, so reconcile never walks the NOT_READY list.
 *
 * Cost: reconcile walks the started list (PRs that began testing and have not left), which is
 * bounded by concurrency plus passed PRs waiting on a slower one ahead — never by the queue length.
 */
import { TERMINAL, isReady, readinessOf, transition, type Core } from './lifecycle.js';
import { append, entryOf, inQueueOrder, pin, startedAfter, unlink } from './queue-order.js';
import { cancelRun, createRun } from './runs.js';
import type { Entry, QueueRecord, TestRun } from './types.js';

const canMerge = (q: QueueRecord) => q.state !== 'paused';
/** Draining (and switching_modes) keeps testing admitted PRs; only paused stops new runs (§1.4). */
const canStart = (q: QueueRecord) => q.state !== 'paused';

export function reconcile(core: Core, q: QueueRecord): void {
  if (q.counts.pendingFailure > 0) resolvePendingFailures(core, q);
  if (canMerge(q)) mergeFromFront(core, q);
  if (canStart(q)) startRuns(core, q);
}

// ---- admission ----------------------------------------------------------------------------------

/** D9: submissions are accepted in any queue state but only admitted while running. */
export function tryAdmit(core: Core, q: QueueRecord, e: Entry): boolean {
  if (q.state !== 'running' || e.state !== 'not_ready') return false;
  if (!isReady(readinessOf(core, q, e.prNumber))) return false;
  append(q, e, 'waiting');
  transition(core, q, e, 'pending', 'MERGE_ITEM_NOW_READY');
  return true;
}

export function admitAll(core: Core, q: QueueRecord): void {
  let cur = entryOf(q, q.notReady.head);
  while (cur) {
    const next = entryOf(q, cur.next);
    tryAdmit(core, q, cur);
    cur = next;
  }
}

// ---- leaving the queue and restarting -----------------------------------------------------------

/**
 * Every PR that started after `e` was tested on a base containing `e`; when `e` leaves without
 * merging, those results mean nothing and they go back to PENDING to be retested on a base without
 * it (T9/T10/T13/T14/T16). Unstarted PRs behind are unaffected. A TESTING→PENDING move counts as a
 * restart in the metrics; PENDING_FAILURE/TESTS_PASSED→PENDING does not (invariant 4.9.7).
 */
export function restartStartedBehind(core: Core, q: QueueRecord, e: Entry, reason: string): void {
  for (const s of startedAfter(q, e)) {
    if (s.state === 'pending') continue;
    if (s.state === 'testing') cancelRun(core, s.runId);
    s.verifiedByTestRun = null;
    s.failureReason = null;
    transition(core, q, s, 'pending', reason, s.runId);
  }
}

export function leaveQueue(
  core: Core,
  q: QueueRecord,
  e: Entry,
  to: 'merged' | 'failed' | 'cancelled',
  reason: string,
): void {
  if (to !== 'merged' && e.list === 'started') {
    restartStartedBehind(core, q, e, successorReason(to));
    revokeProofsContaining(core, q, e);
  }
  if (e.state === 'testing' || to === 'merged') cancelRun(core, e.runId);
  unlink(q, e);
  e.pinRank = null;
  transition(core, q, e, to, reason, e.runId);
}

/**
 * A PR vouched for by a successor's run (optimistic merging) has that run as its only proof, and
 * the run's tested set includes PRs behind it. If one of those leaves without merging before the
 * vouched PR merged (possible while paused), merging it would no longer match a tested state
 * (invariant 4.9.1), so it goes back to PENDING and is retested in place. The reason code is the
 * emulator's own: the sources do not name this case.
 */
function revokeProofsContaining(core: Core, q: QueueRecord, leaving: Entry): void {
  for (let cur = entryOf(q, q.started.head); cur && cur !== leaving; cur = entryOf(q, cur.next)) {
    if (cur.state !== 'tests_passed' || cur.verifiedByTestRun === null) continue;
    const run = core.state.runs[cur.verifiedByTestRun];
    if (!run || (!run.group.includes(leaving.prNumber) && !run.base.includes(leaving.prNumber))) continue;
    cur.verifiedByTestRun = null;
    transition(core, q, cur, 'pending', 'VERIFYING_TEST_RUN_INVALIDATED', run.id);
  }
}

function successorReason(to: 'failed' | 'cancelled'): string {
  return to === 'failed' ? 'PREREQUISITE_MERGE_ITEM_FAILED' : 'PREREQUISITE_MERGE_ITEM_CANCELLED';
}

// ---- merging -----------------------------------------------------------------------------------

/** Merges happen strictly in queue order: only the front may merge, one PR per commit (T7). */
function mergeFromFront(core: Core, q: QueueRecord): void {
  for (let head = entryOf(q, q.started.head); head?.state === 'tests_passed'; head = entryOf(q, q.started.head)) {
    head.mergeMethod = q.config.mergeMethod;
    leaveQueue(core, q, head, 'merged', 'MERGE_GRAPH_MERGE');
  }
}

// ---- pending failure depth ----------------------------------------------------------------------

/**
 * Blame settlement (T-PFD, decisions D1/D2): a PENDING_FAILURE entry becomes FAILED once every entry
 * ahead of it has passed (if one ahead failed instead, its removal restarts this one first) and the
 * `pendingFailureDepth` entries directly behind it have finished their runs. Fewer successors than
 * the depth means there is less to wait for, and none means no wait at all (D2). A clearing pass
 * from a successor is handled when that successor's run completes (see completeRun).
 */
function resolvePendingFailures(core: Core, q: QueueRecord): void {
  const depth = q.config.pendingFailureDepth;
  let allAheadPassed = true;
  let seen = 0;
  for (const e of inQueueOrder(q)) {
    if (e.state === 'pending_failure') {
      seen++;
      if (allAheadPassed && windowFinished(q, e, depth)) {
        // Failing it restarts everything started behind it, so nothing further can resolve now.
        leaveQueue(core, q, e, 'failed', e.failureReason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED');
        return;
      }
      // Nothing behind an unresolved failure can resolve before it does.
      if (seen >= q.counts.pendingFailure) return;
      allAheadPassed = false;
    } else if (e.state !== 'tests_passed') {
      allAheadPassed = false;
    }
  }
}

function windowFinished(q: QueueRecord, e: Entry, depth: number): boolean {
  if (depth === 0) return true;
  let hops = 0;
  let cur = nextInOrder(q, e);
  while (cur && hops < depth) {
    if (cur.state !== 'tests_passed' && cur.state !== 'pending_failure') return false;
    hops++;
    cur = nextInOrder(q, cur);
  }
  return true;
}

/** The entry after `e` in queue order (crossing from the started list into the waiting buckets). */
function nextInOrder(q: QueueRecord, e: Entry): Entry | undefined {
  if (e.next !== null) return entryOf(q, e.next);
  if (e.list === 'started') return headOfBucketAfter(q, -1);
  if (e.list === 'waiting') return headOfBucketAfter(q, e.bucket ?? -1);
  return undefined;
}

function headOfBucketAfter(q: QueueRecord, after: number): Entry | undefined {
  let best: number | undefined;
  for (const k of Object.keys(q.waiting)) {
    const n = Number(k);
    if (n > after && (best === undefined || n < best)) best = n;
  }
  return best === undefined ? undefined : entryOf(q, q.waiting[String(best)]?.head ?? null);
}

// ---- starting runs -----------------------------------------------------------------------------

/**
 * Fills free slots in queue order. A PR is tested on the target branch plus every admitted PR
 * ahead of it (predictive testing). Behind an unresolved PENDING_FAILURE entry only the PRs within
 * `pendingFailureDepth` hops start — they are the evidence the failed entry waits for; the ones
 * further back are held (D3). Slots count TESTING entries only (D4).
 */
function startRuns(core: Core, q: QueueRecord): void {
  const limit = q.config.concurrency;
  if (q.counts.testing >= limit) return;
  const depth = q.config.pendingFailureDepth;
  const base: number[] = [];
  let index = 0;
  let firstFailure: number | null = null;
  for (const e of inQueueOrder(q)) {
    if (e.state === 'pending_failure' && firstFailure === null) firstFailure = index;
    if (e.state === 'pending') {
      if (firstFailure !== null && index - firstFailure > depth) return;
      if (q.counts.testing >= limit) return;
      pin(q, e);
      const run = createRun(core, q, [e.prNumber], base.slice());
      e.runId = run.id;
      e.verifiedByTestRun = null;
      transition(core, q, e, 'testing', 'TEST_RUN_STARTED', run.id);
    }
    base.push(e.prNumber);
    index++;
  }
}

// ---- run results -------------------------------------------------------------------------------

/**
 * Applies a finished run to its group. A pass makes the group TESTS_PASSED and, with optimistic
 * merging, vouches for its whole base (T12); a failure (or timeout, D12) puts the group in
 * PENDING_FAILURE with the reason it will fail with if blame settles on it (T8).
 */
export function completeRun(core: Core, q: QueueRecord, run: TestRun, passed: boolean, reason: string): void {
  run.status = passed ? 'succeeded' : 'failed';
  run.completedAt = core.state.now;
  run.failureReason = passed ? null : reason;
  for (const n of run.group) {
    const e = q.entries[String(n)];
    if (!e || e.state !== 'testing' || e.runId !== run.id) continue;
    if (passed) {
      e.verifiedByTestRun = run.id;
      transition(core, q, e, 'tests_passed', 'TEST_RUN_PASSED', run.id);
    } else {
      e.failureReason = reason;
      transition(core, q, e, 'pending_failure', reason, run.id);
    }
  }
  if (passed && q.config.canOptimisticallyMerge) vouchForBase(core, q, run);
}

/**
 * Optimistic merging: a passing run proves its whole tested set, so every PR of its base may merge
 * with it. All or nothing (invariant 4.9.1: a merge must be covered by a run whose tested set is
 * exactly what gets merged): if any base PR cannot be vouched for — a PENDING_FAILURE one while
 * pendingFailureDepth is 0 (the hold must be open, T12), or one that went back to PENDING — none is.
 */
function vouchForBase(core: Core, q: QueueRecord, run: TestRun): void {
  const ahead: Entry[] = [];
  for (const n of run.base) {
    const e = q.entries[String(n)];
    if (!e || TERMINAL.has(e.state)) {
      if (e?.state === 'merged') continue;
      return;
    }
    const ok =
      e.state === 'testing' ||
      e.state === 'tests_passed' ||
      (e.state === 'pending_failure' && q.config.pendingFailureDepth > 0);
    if (!ok) return;
    ahead.push(e);
  }
  for (const e of ahead) {
    if (e.state === 'tests_passed') continue;
    if (e.state === 'testing') cancelRun(core, e.runId);
    e.failureReason = null;
    e.verifiedByTestRun = run.id;
    transition(core, q, e, 'tests_passed', 'SUCCESSOR_TEST_RUN_PASSED', run.id);
  }
}
