// The queue's rules. After any change, `reconcile` settles blame, merges passed PRs, moves bisections on,
// fills free slots and ends a mode switch; admission (NOT_READY → PENDING) happens only on its triggers.
// One rule for both modes: a run's base is the started PRs ahead whose targets overlap (all, in single mode).
// Cost: bounded by runs in flight and passed PRs waiting, never by queue length (SCAN_LIMIT per call).
import { reconcileBisections, startBisection } from './bisection.js';
import { TERMINAL, emitBatch, transition, type Core } from './lifecycle.js';
import { admitAll, hasAny, leaveQueue, restartDependents, revokeProofsContaining } from './membership.js';
import { entryOf } from './queue-order.js';
import { cancelRun, settleRun } from './runs.js';
import { SCAN_LIMIT, baseFor, headOfBucketAfter, heldByFailure, nextInOrder, startRuns } from './start-runs.js';
import { TargetSet, indexOverlaps, targetsOf } from './targets.js';
import type { Entry, QueueRecord, TestRun } from './types.js';

/** Paused, or switching modes on behalf of a queue that was paused. */
function flowStopped(q: QueueRecord): boolean {
  return q.state === 'paused' || (q.state === 'switching_modes' && q.switching?.resume === 'paused');
}

export function reconcile(core: Core, q: QueueRecord): void {
  if (q.counts.pendingFailure > 0) resolvePendingFailures(core, q);
  const flowing = !flowStopped(q);
  if (flowing) mergeReady(core, q);
  if (hasAny(q.bisections)) reconcileBisections(core, q, flowing);
  if (flowing) startRuns(core, q);
  if (q.state === 'switching_modes') finishModeSwitch(core, q);
}

// ---- merging -----------------------------------------------------------------------------------

/** A passed PR merges once its base and the group members ahead have merged (one per commit, T7). */
function mergeReady(core: Core, q: QueueRecord): void {
  if (q.config.mode !== 'parallel') {
    for (let head = entryOf(q, q.started.head); head?.state === 'tests_passed'; head = entryOf(q, q.started.head)) {
      mergeOne(core, q, head);
    }
    return;
  }
  for (let cur = entryOf(q, q.started.head); cur; ) {
    const next = entryOf(q, cur.next);
    if (cur.state === 'tests_passed' && dependenciesMerged(core, q, cur)) mergeOne(core, q, cur);
    cur = next;
  }
}

function dependenciesMerged(core: Core, q: QueueRecord, e: Entry): boolean {
  const run = e.runId === null ? undefined : core.state.runs[e.runId];
  if (!run) return true;
  const merged = (n: number) => q.entries[String(n)]?.state === 'merged';
  if (!run.base.every(merged)) return false;
  for (const n of run.group) {
    if (n === e.prNumber) break;
    if (!merged(n)) return false;
  }
  return true;
}

function mergeOne(core: Core, q: QueueRecord, e: Entry): void {
  e.mergeMethod = q.config.mergeMethod;
  leaveQueue(core, q, e, 'merged', 'MERGE_GRAPH_MERGE');
  const run = e.runId === null ? undefined : core.state.runs[e.runId];
  if (run && run.group.length > 1 && run.group[run.group.length - 1] === e.prNumber) {
    if (run.group.every((n) => q.entries[String(n)]?.state === 'merged')) {
      emitBatch(core, q, 'merged', run, run.group, 'MERGE_GRAPH_MERGE');
    }
  }
}

// ---- pending failure depth ----------------------------------------------------------------------

/**
 * Blame settlement (T-PFD, D1/D2): once the base has passed and the groups within the depth behind have
 * finished, a single PR fails and a batch goes to bisection (T10/T11).
 */
function resolvePendingFailures(core: Core, q: QueueRecord): void {
  const depth = q.config.pendingFailureDepth;
  for (let progressed = true; progressed; ) {
    progressed = false;
    for (let e = entryOf(q, q.started.head); e; e = entryOf(q, e.next)) {
      if (e.state !== 'pending_failure') continue;
      const run = e.runId === null ? undefined : core.state.runs[e.runId];
      if (!run) continue;
      const members = groupMembers(q, run, 'pending_failure');
      if (members[0] !== e) continue;
      if (!basePassed(q, run)) continue;
      if (!windowFinished(core, q, members, run, depth)) continue;
      settleFailure(core, q, members, run);
      progressed = true;
      break;
    }
  }
}

/** The members of a run's group still in `state` on that run, in group order. */
function groupMembers(q: QueueRecord, run: TestRun, state: Entry['state']): Entry[] {
  const out: Entry[] = [];
  for (const n of run.group) {
    const m = q.entries[String(n)];
    if (m && m.state === state && m.runId === run.id && m.bisection === null) out.push(m);
  }
  return out;
}

function basePassed(q: QueueRecord, run: TestRun): boolean {
  for (const n of run.base) {
    const s = q.entries[String(n)]?.state;
    if (s !== 'tests_passed' && s !== 'merged') return false;
  }
  return true;
}

function settleFailure(core: Core, q: QueueRecord, members: Entry[], run: TestRun): void {
  const first = members[0];
  if (!first) return;
  if (members.length === 1) {
    leaveQueue(core, q, first, 'failed', first.failureReason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED');
    return;
  }
  const numbers = members.map((m) => m.prNumber);
  emitBatch(core, q, 'failed', run, numbers, first.failureReason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED');
  restartDependents(core, q, numbers, 'PREREQUISITE_MERGE_ITEM_FAILED');
  for (const m of members) revokeProofsContaining(core, q, m);
  startBisection(core, q, members, run);
}

/** Whether the groups within `depth` hops behind a failed group have finished (parallel: along its lane). */
function windowFinished(core: Core, q: QueueRecord, members: Entry[], run: TestRun, depth: number): boolean {
  if (depth === 0) return true;
  const finished = (s: Entry) => s.state === 'tests_passed' || s.state === 'pending_failure';
  if (q.config.mode !== 'parallel') {
    // Hops are counted as D3 counts them (hopsBehind): every other group after the first member.
    let hops = 0;
    let lastRun: string | null = null;
    for (let cur = entryOf(q, (members[0] as Entry).next); cur; cur = entryOf(q, cur.next)) {
      if (cur.runId === run.id && cur.state === 'pending_failure') continue;
      // A PR back in PENDING is a group of its own; a started one belongs to its run's group.
      if (cur.state === 'pending' || cur.runId !== lastRun) {
        if (hops >= depth) return true;
        hops++;
        lastRun = cur.state === 'pending' ? null : cur.runId;
      }
      if (!finished(cur)) return false;
    }
    // Fewer groups started behind it than the depth: a waiting PR would be next (inside the window).
    return hops >= depth || Object.keys(q.waiting).length === 0;
  }
  const first = members[0] as Entry;
  const inGroup = new Set(run.group);
  const lane = new TargetSet(run.targets ?? []);
  let pendingInLane = false;
  for (let cur = entryOf(q, first.next); cur; cur = entryOf(q, cur.next)) {
    if (inGroup.has(cur.prNumber)) continue;
    if (cur.state === 'pending') {
      pendingInLane ||= lane.overlaps(cur.targets ?? []);
      continue;
    }
    const r = cur.runId === null ? undefined : core.state.runs[cur.runId];
    if (!r?.base.some((n) => inGroup.has(n))) continue;
    const hop = hopsBehind(q, r.base, first, run.id);
    if (hop > depth) continue;
    if (!finished(cur)) return false;
    if (hop < depth) lane.add(r.targets ?? cur.targets ?? []);
  }
  if (!pendingInLane && !indexOverlaps(q.waitingIndex, lane)) return true;
  // A PR still to start keeps the window open if tested on top of it and not held (D3 would deadlock).
  const none = new Set<number>();
  const held = new TargetSet();
  let looked = 0;
  for (
    let w = entryOf(q, q.started.head) ?? headOfBucketAfter(q, -1);
    w && looked < SCAN_LIMIT;
    w = nextInOrder(q, w)
  ) {
    if (w.state !== 'pending') continue;
    looked++;
    const t = targetsOf(q, w);
    if (held.overlaps(t)) {
      held.add(t);
      continue;
    }
    const { base, blocked } = baseFor(core, q, w, none);
    if (blocked || heldByFailure(q, base)) held.add(t);
    else if (base.some((b) => inGroup.has(b.prNumber))) return false;
  }
  return true;
}

/** 1 + the number of groups in `base` behind the failed entry `f` (its own group excluded). */
function hopsBehind(q: QueueRecord, base: number[], f: Entry, fRun: string): number {
  const runs = new Set<string>();
  for (const n of base) {
    const b = q.entries[String(n)];
    if (!b || b.pinRank === null || f.pinRank === null || b.pinRank <= f.pinRank) continue;
    if (b.runId !== null && b.runId !== fRun) runs.add(b.runId);
  }
  return runs.size + 1;
}

// ---- run results -------------------------------------------------------------------------------

/** Applies a finished main-queue run: pass → TESTS_PASSED (+ vouching, T12); fail/timeout → PENDING_FAILURE. */
export function completeRun(core: Core, q: QueueRecord, run: TestRun, passed: boolean, reason: string): void {
  settleRun(core, run, passed ? 'succeeded' : 'failed');
  run.failureReason = passed ? null : reason;
  const moved: number[] = [];
  for (const n of run.group) {
    const e = q.entries[String(n)];
    if (e?.state !== 'testing' || e.runId !== run.id) continue;
    if (passed) {
      e.verifiedByTestRun = run.id;
      transition(core, q, e, 'tests_passed', 'TEST_RUN_PASSED', run.id);
    } else {
      e.failureReason = reason;
      transition(core, q, e, 'pending_failure', reason, run.id);
    }
    moved.push(n);
  }
  if (!passed) emitBatch(core, q, 'pending_failure', run, moved, reason);
  if (passed && q.config.canOptimisticallyMerge) vouchForBase(core, q, run);
}

/**
 * Optimistic merging vouches for the whole base, all or nothing (invariant 4.9.1): none if one base PR
 * cannot be (PENDING_FAILURE at depth 0, back to PENDING, or its batch only partly in the base).
 */
function vouchForBase(core: Core, q: QueueRecord, run: TestRun): void {
  const ahead: Entry[] = [];
  const inBase = new Set(run.base);
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
    if (!ok || e.bisection !== null) return;
    const own = e.runId === null ? undefined : core.state.runs[e.runId];
    if (e.state === 'testing' && own && own.group.some((m) => !inBase.has(m))) return;
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

// ---- mode switches -------------------------------------------------------------------------------

/** D11: once no admitted PR is left, the new mode applies and the requested state returns. */
function finishModeSwitch(core: Core, q: QueueRecord): void {
  const sw = q.switching;
  if (!sw || q.counts.admitted > 0) return;
  q.config.mode = sw.to;
  q.state = sw.resume;
  q.switching = null;
  q.batchTimerAt = null;
  if (q.state === 'running') {
    admitAll(core, q);
    reconcile(core, q);
  }
}
