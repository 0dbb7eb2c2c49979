/**
 * The queue's rules (queue-semantics.md §1–2). After anything happens to a queue the engine calls
 * `reconcile`, which in this order: settles blame for pending failures (a failed single PR leaves,
 * a failed batch goes to bisection), merges passed PRs whose dependencies have merged, lets running
 * bisections move on, starts runs in free slots, and completes a mode switch once the queue is
 * empty. Admission (NOT_READY → PENDING) is not part of it: readiness only changes on a few
 * triggers (submit, fake-PR update, impacted targets, resume), and those call `tryAdmit`/`admitAll`
 * directly, so reconcile never walks the NOT_READY list.
 *
 * One rule covers both modes: a run's BASE is the closure of the started PRs ahead of its group
 * whose targets overlap (parallel mode, §2.5); single mode is the case where every PR overlaps
 * every other, so the base is everything started ahead. Merges wait for the base, failures restart
 * the runs whose base holds the failed PR, and the pending-failure window counts groups along it.
 *
 * Cost: reconcile walks the started list (PRs that began testing and have not left), which is
 * bounded by the runs in flight plus passed PRs waiting on a slower one ahead — never by the queue
 * length. Starting runs walks the waiting region only until the slots are full; in parallel mode it
 * passes over PRs of blocked lanes, at most SCAN_LIMIT of them per call.
 */
import { dropFromBisections, reconcileBisections, startBisection } from './bisection.js';
import { TERMINAL, emitBatch, fakePrFor, isReady, readinessOf, transition, type Core } from './lifecycle.js';
import { append, entryOf, insertStarted, pin, unlink } from './queue-order.js';
import { KIND_BATCH_TIMER, cancelRun, createRun, settleRun } from './runs.js';
import { heapPush } from './event-heap.js';
import { TargetSet, groupTargetsOf, indexOverlaps, targetsOf } from './targets.js';
import type { Entry, FakePr, QueueRecord, Targets, TestRun } from './types.js';

/** Waiting PRs of blocked lanes a single start pass may look past (parallel mode). */
export const SCAN_LIMIT = 2_000;
/** How far behind its first PR a forming batch looks for more members (parallel mode). */
const BATCH_LOOKAHEAD = 256;

/** Paused, or switching modes on behalf of a queue that was paused. */
function hasAny(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

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

// ---- admission ----------------------------------------------------------------------------------

/** The impacted targets uploaded for the PR's current head SHA, or null. */
export function uploadedTargets(core: Core, q: QueueRecord, prNumber: number): Targets | null {
  const pr = fakePrFor(core, q, prNumber);
  const t = pr ? q.impactedTargets[String(prNumber)]?.[pr.sha] : undefined;
  return t === undefined ? null : t === 'ALL' ? 'ALL' : [...t];
}

/**
 * D9: submissions are accepted in any queue state but only admitted while running. Admission is
 * also where direct merge (§2.8) and urgent preemption (§2.7, D16) happen.
 */
export function tryAdmit(core: Core, q: QueueRecord, e: Entry): boolean {
  if (q.state !== 'running' || e.state !== 'not_ready') return false;
  if (!isReady(readinessOf(core, q, e.prNumber))) return false;
  e.targets = uploadedTargets(core, q, e.prNumber);
  if (directMergeAllowed(core, q, e)) {
    unlink(q, e);
    e.admittedAt = core.state.now;
    e.mergeMethod = q.config.mergeMethod;
    q.tipSeq = ++core.state.seq;
    transition(core, q, e, 'merged', 'MERGE_GRAPH_DIRECT_MERGE');
    return true;
  }
  append(q, e, 'waiting');
  transition(core, q, e, 'pending', 'MERGE_ITEM_NOW_READY');
  if (e.priorityValue === 0) overtake(core, q, e);
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

/** A fake PR is up to date while no merge into its branch happened since it was declared so. */
export function isUpToDate(q: QueueRecord, pr: FakePr | undefined): boolean {
  return pr !== undefined && pr.upToDateTip !== null && pr.upToDateTip > q.tipSeq;
}

/**
 * Direct merge: on, the PR is up to date with the branch, and nothing is in its way — an empty
 * queue in single mode (or with batching on: "if the queue has batching enabled and isn't empty,
 * direct merge won't trigger"), an empty lane in parallel mode.
 */
function directMergeAllowed(core: Core, q: QueueRecord, e: Entry): boolean {
  if (q.config.directMergeMode !== 'always') return false;
  if (!isUpToDate(q, fakePrFor(core, q, e.prNumber))) return false;
  if (q.config.mode !== 'parallel' || q.config.batch) return q.counts.admitted === 0;
  return !laneBusy(core, q, new TargetSet(targetsOf(q, e)));
}

/** Whether any admitted PR (started, waiting or under bisection) overlaps `lane`. */
function laneBusy(core: Core, q: QueueRecord, lane: TargetSet): boolean {
  if (lane.empty) return false;
  for (let cur = entryOf(q, q.started.head); cur; cur = entryOf(q, cur.next)) {
    if (lane.overlaps(groupTargetsOf(q, cur, core.state.runs))) return true;
  }
  if (indexOverlaps(q.waitingIndex, lane)) return true;
  for (const bis of Object.values(q.bisections)) {
    for (const node of bis.nodes) {
      for (const n of node.prs) if (lane.overlaps(q.entries[String(n)]?.targets ?? [])) return true;
    }
  }
  return false;
}

/**
 * An urgent PR goes to the front of its lane, behind earlier urgent ones, ahead of PRs already
 * testing. Every started PR it overtakes in its lane (and whatever was tested on top of those) is
 * interrupted and goes back to PENDING with SKIP_THE_LINE_INTERRUPTED, to be retested behind it
 * (D16: the slots then go front to back, so the last ones wait).
 */
export function overtake(core: Core, q: QueueRecord, u: Entry): void {
  let after: Entry | null = null;
  for (let cur = entryOf(q, q.started.head); cur && cur.priorityValue === 0 && cur !== u; cur = entryOf(q, cur.next)) after = cur;
  insertStarted(q, u, after);
  const single = q.config.mode !== 'parallel';
  const lane = new TargetSet(targetsOf(q, u));
  const restarted = new Set<number>();
  for (let cur = entryOf(q, u.next); cur; ) {
    const next = entryOf(q, cur.next);
    if (cur.state !== 'pending') {
      const run = cur.runId === null ? undefined : core.state.runs[cur.runId];
      const hit =
        single ||
        lane.overlaps(groupTargetsOf(q, cur, core.state.runs)) ||
        (run !== undefined && (run.base.some((n) => restarted.has(n)) || run.group.some((n) => restarted.has(n))));
      if (hit) {
        restartInPlace(core, q, cur, 'SKIP_THE_LINE_INTERRUPTED');
        restarted.add(cur.prNumber);
      }
    }
    cur = next;
  }
}

// ---- leaving the queue and restarting -----------------------------------------------------------

/**
 * Back to PENDING where it stands (its run, if in flight, is cancelled). A batch shares one run,
 * so the PRs of its group still on that run go back with it.
 */
export function restartInPlace(core: Core, q: QueueRecord, s: Entry, reason: string): void {
  const runId = s.runId;
  const run = runId === null ? undefined : core.state.runs[runId];
  const group = run && run.group.length > 1 ? run.group : [s.prNumber];
  for (const n of group) {
    const m = n === s.prNumber ? s : q.entries[String(n)];
    if (!m || m.state === 'pending' || TERMINAL.has(m.state) || m.state === 'not_ready') continue;
    if (m !== s && (m.runId !== runId || m.bisection !== null)) continue;
    if (m.state === 'testing') cancelRun(core, m.runId);
    m.verifiedByTestRun = null;
    m.failureReason = null;
    transition(core, q, m, 'pending', reason, m.runId);
  }
}

/**
 * Every started PR whose run was built on top of one of `leaving` (its base holds it, or it shares
 * the group) goes back to PENDING to be retested without it (T9/T10/T13/T14/T16). In single mode
 * that is everything started behind the first of them. Unstarted PRs are unaffected. A
 * TESTING→PENDING move counts as a restart in the metrics; PENDING_FAILURE/TESTS_PASSED→PENDING
 * does not (invariant 4.9.7).
 */
export function restartDependents(core: Core, q: QueueRecord, leaving: number[], reason: string): void {
  const set = new Set(leaving);
  const single = q.config.mode !== 'parallel';
  let firstRank = Number.POSITIVE_INFINITY;
  for (const n of leaving) firstRank = Math.min(firstRank, q.entries[String(n)]?.pinRank ?? Number.POSITIVE_INFINITY);
  for (let s = entryOf(q, q.started.head); s; ) {
    const next = entryOf(q, s.next);
    if (!set.has(s.prNumber) && s.state !== 'pending') {
      const run = s.runId === null ? undefined : core.state.runs[s.runId];
      // Single mode: a base is everything ahead, so only the rank (and the group) needs checking.
      const hit = single
        ? (s.pinRank ?? 0) > firstRank || (run !== undefined && run.group.some((n) => set.has(n)))
        : run !== undefined && (run.group.some((n) => set.has(n)) || run.base.some((n) => set.has(n)));
      if (hit) restartInPlace(core, q, s, reason);
    }
    s = next;
  }
}

export function leaveQueue(
  core: Core,
  q: QueueRecord,
  e: Entry,
  to: 'merged' | 'failed' | 'cancelled',
  reason: string,
): void {
  if (to !== 'merged') {
    if (e.list === 'started') {
      restartDependents(core, q, [e.prNumber], successorReason(to));
      revokeProofsContaining(core, q, e);
    }
    if (hasAny(q.bisections)) dropFromBisections(core, q, e, successorReason(to));
  }
  if (e.state === 'testing' || to === 'merged') cancelRun(core, e.runId);
  unlink(q, e);
  e.pinRank = null;
  if (to === 'merged') q.tipSeq = ++core.state.seq;
  transition(core, q, e, to, reason, e.runId);
  e.bisection = null;
}

/**
 * A PR vouched for by another run (optimistic merging) has that run as its only proof. If a PR of
 * that run's tested set leaves without merging before the vouched PR merged (possible while
 * paused), merging it would no longer match a tested state (invariant 4.9.1), so it goes back to
 * PENDING and is retested in place. The reason code is the emulator's own: the sources do not name
 * this case.
 */
function revokeProofsContaining(core: Core, q: QueueRecord, leaving: Entry): void {
  for (let cur = entryOf(q, q.started.head); cur; cur = entryOf(q, cur.next)) {
    if (cur === leaving || cur.state !== 'tests_passed' || cur.verifiedByTestRun === null) continue;
    const run = core.state.runs[cur.verifiedByTestRun];
    if (!run || (!run.group.includes(leaving.prNumber) && !run.base.includes(leaving.prNumber))) continue;
    cur.verifiedByTestRun = null;
    transition(core, q, cur, 'pending', 'VERIFYING_TEST_RUN_INVALIDATED', run.id);
  }
}

export function successorReason(to: 'failed' | 'cancelled' | 'merged'): string {
  return to === 'cancelled' ? 'PREREQUISITE_MERGE_ITEM_CANCELLED' : 'PREREQUISITE_MERGE_ITEM_FAILED';
}

// ---- merging -----------------------------------------------------------------------------------

/**
 * A passed PR merges once every PR of its base and the members of its group ahead of it have
 * merged — one PR per commit, even in a batch (T7). Single mode: strictly from the front.
 */
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
 * Blame settlement (T-PFD, decisions D1/D2), per failed group: once every PR of its base has passed
 * (if one failed instead, its removal restarts this group first) and the groups within
 * `pendingFailureDepth` hops behind it have finished their runs, a single PR becomes FAILED and a
 * batch goes to bisection (T10/T11). Fewer successors than the depth means less to wait for, none
 * means no wait (D2). A clearing pass from a successor is handled when its run completes.
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

/**
 * Whether the groups within `depth` hops behind a failed group have finished (passed or failed).
 * Single mode: the groups behind it in queue order; a PR not started yet inside the window keeps
 * it open. Parallel mode: the started runs built on top of it, and any PR still to start in its
 * lane (found through the waiting-region index, not by scanning).
 */
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
    if (!r || !r.base.some((n) => inGroup.has(n))) continue;
    const hop = hopsBehind(q, r.base, first, run.id);
    if (hop > depth) continue;
    if (!finished(cur)) return false;
    if (hop < depth) lane.add(r.targets ?? cur.targets ?? []);
  }
  if (!pendingInLane && !indexOverlaps(q.waitingIndex, lane)) return true;
  // A PR still to start keeps the window open when it would be tested on top of the failed group
  // and nothing holds it: not D3 (a PR held by any failure waits for this one, so counting it would
  // deadlock), nor a PR ahead of it in its lane that is held.
  const none = new Set<number>();
  const held = new TargetSet();
  let looked = 0;
  for (let w = entryOf(q, q.started.head) ?? headOfBucketAfter(q, -1); w && looked < SCAN_LIMIT; w = nextInOrder(q, w)) {
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

/** D3: a group would be tested beyond the window behind an unresolved failure in its base. */
function heldByFailure(q: QueueRecord, base: Entry[]): boolean {
  if (q.counts.pendingFailure === 0) return false;
  const depth = q.config.pendingFailureDepth;
  const seen = new Set<string>();
  for (let i = base.length - 1; i >= 0; i--) {
    const b = base[i] as Entry;
    if (b.state === 'pending_failure' && b.bisection === null) {
      const after = seen.size - (b.runId !== null && seen.has(b.runId) ? 1 : 0);
      if (after + 1 > depth) return true;
    }
    if (b.runId !== null) seen.add(b.runId);
  }
  return false;
}

// ---- starting runs -----------------------------------------------------------------------------

function mainSlots(q: QueueRecord): number {
  const c = q.config;
  const used = c.bisectionConcurrency === null ? q.inFlight.main + q.inFlight.bisection : q.inFlight.main;
  return c.concurrency - used;
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

/**
 * Parallel mode: the started PRs a PR would be tested on top of — those ahead of it whose (group)
 * targets overlap its own, transitively. `blocked` when that set holds a started PR back in
 * PENDING: the PR must wait for it to start first. (Single mode carries its base along the walk.)
 */
function baseFor(core: Core, q: QueueRecord, e: Entry, exclude: ReadonlySet<number>): { base: Entry[]; blocked: boolean } {
  const out: Entry[] = [];
  let blocked = false;
  const from = e.list === 'started' ? entryOf(q, e.prev) : entryOf(q, q.started.tail);
  const needed = new TargetSet(targetsOf(q, e));
  if (needed.empty) return { base: out, blocked };
  for (let cur = from; cur; cur = entryOf(q, cur.prev)) {
    if (exclude.has(cur.prNumber)) continue;
    const t = groupTargetsOf(q, cur, core.state.runs);
    if (!needed.overlaps(t)) continue;
    out.push(cur);
    needed.add(t);
    if (cur.state === 'pending') blocked = true;
  }
  return { base: out.reverse(), blocked };
}

/**
 * Fills free slots in queue order. Each group is tested on its base (predictive testing). Behind an
 * unresolved PENDING_FAILURE only the groups within `pendingFailureDepth` hops start — they are the
 * evidence the failed group waits for; the ones further back are held (D3). Slots count runs in
 * flight (D4: a passed PR waiting to merge holds none).
 *
 * Batching (§2.3, D5/D6): a group takes up to `batchingMinSize` consecutive pending PRs of its lane
 * and starts when it is full, when it cannot grow any more (the next PR is noBatch, already started,
 * or blocked), when one of its PRs was tested before in this trip (a restart or a PR back from
 * bisection has waited already), or once `batchingMaxWaitTimeMinutes` have passed since its
 * earliest PR was admitted; otherwise a timer is set for that moment.
 */
function startRuns(core: Core, q: QueueRecord): void {
  const previousTimer = q.batchTimerAt;
  q.batchTimerAt = null;
  const free = mainSlots(q);
  if (free <= 0) return;
  const timer = q.config.mode === 'parallel' ? startRunsParallel(core, q, free) : startRunsSingle(core, q, free);
  if (timer !== null) {
    q.batchTimerAt = timer;
    if (timer !== previousTimer) heapPush(core.state.events, [timer, KIND_BATCH_TIMER, ++core.state.seq, q.key]);
  }
}

/** Whether a forming batch may start now (see startRuns); otherwise the time it may at the latest. */
function batchReady(q: QueueRecord, group: Entry[], closed: boolean, now: number): true | number {
  const wait = q.config.batchingMaxWaitTimeMinutes * 60_000;
  if (group.length >= q.config.batchingMinSize || closed || wait === 0) return true;
  if (group.some((m) => m.firstTestAt !== null)) return true;
  let since = now;
  for (const m of group) since = Math.min(since, m.admittedAt ?? now);
  return since + wait <= now ? true : since + wait;
}

/**
 * Single mode: one lane, so a group is tested on every started PR ahead of it and the walk stops
 * at the first PR that cannot start. The base and the D3 hop count are carried along the walk
 * instead of being recomputed per group, which keeps a start linear in the started list.
 */
function startRunsSingle(core: Core, q: QueueRecord, slots: number): number | null {
  let free = slots;
  const depth = q.config.pendingFailureDepth;
  const prefix: number[] = [];
  let failHops: number | null = null;
  let failRun: string | null = null;
  let lastRun: string | null = null;
  const passed = (e: Entry) => {
    prefix.push(e.prNumber);
    if (failHops === null) {
      if (e.state === 'pending_failure') {
        failHops = 0;
        failRun = e.runId;
      }
    } else if (e.runId !== lastRun && e.runId !== failRun) {
      failHops++;
    }
    lastRun = e.runId;
  };
  for (let e = entryOf(q, q.started.head) ?? headOfBucketAfter(q, -1); e && free > 0; ) {
    const cur: Entry = e;
    if (cur.state !== 'pending') {
      passed(cur);
      e = nextInOrder(q, cur);
      continue;
    }
    // D3: beyond the window behind an unresolved failure.
    if (failHops !== null && failHops + 1 > depth) return null;
    const group: Entry[] = [cur];
    if (q.config.batch && !cur.noBatch) {
      let closed = false;
      for (let f = nextInOrder(q, cur); f && group.length < q.config.batchingMinSize; f = nextInOrder(q, f)) {
        if (f.state !== 'pending' || f.noBatch) {
          closed = true;
          break;
        }
        group.push(f);
      }
      const ready = batchReady(q, group, closed, core.state.now);
      if (ready !== true) return ready;
    }
    startGroup(core, q, group, prefix.slice(), null);
    for (const m of group) passed(m);
    free--;
    e = nextInOrder(q, group[group.length - 1] as Entry);
  }
  return null;
}

/**
 * Parallel mode: lanes by overlap. PRs of a lane that cannot start block the PRs behind them that
 * overlap; other lanes go on. A batch takes PRs of its first PR's lane.
 */
function startRunsParallel(core: Core, q: QueueRecord, slots: number): number | null {
  let free = slots;
  const blocked = new TargetSet();
  let passedOver = 0;
  let timer: number | null = null;
  const block = (t: Targets): boolean => {
    blocked.add(t);
    return ++passedOver > SCAN_LIMIT;
  };

  for (let e = entryOf(q, q.started.head) ?? headOfBucketAfter(q, -1); e && free > 0; ) {
    const cur: Entry = e;
    e = nextInOrder(q, cur);
    if (cur.state !== 'pending') continue;
    const t = targetsOf(q, cur);
    if (blocked.overlaps(t)) {
      if (block(t)) break;
      continue;
    }
    // The batch this PR would lead, from targets alone; bases (the costly part) only once it is
    // ready to start, so a forming batch costs nothing per reconcile.
    const group: Entry[] = [cur];
    const groupTargets = new TargetSet(t);
    if (q.config.batch && !cur.noBatch) {
      let closed = false;
      const passed = new TargetSet();
      let looked = 0;
      for (let f = nextInOrder(q, cur); f && group.length < q.config.batchingMinSize; f = nextInOrder(q, f)) {
        if (++looked > BATCH_LOOKAHEAD) break;
        const ft = f.state === 'pending' ? targetsOf(q, f) : groupTargetsOf(q, f, core.state.runs);
        if (!groupTargets.overlaps(ft)) {
          passed.add(ft);
          continue;
        }
        if (f.state !== 'pending' || f.noBatch || blocked.overlaps(ft) || passed.overlaps(ft)) {
          closed = true;
          break;
        }
        group.push(f);
        groupTargets.add(ft);
      }
      const ready = batchReady(q, group, closed, core.state.now);
      if (ready !== true) {
        timer = timer === null ? ready : Math.min(timer, ready);
        let stop = false;
        for (const m of group) stop = block(targetsOf(q, m)) || stop;
        if (stop) break;
        continue;
      }
    }
    const members = new Set<number>(group.map((m) => m.prNumber));
    const bases: Entry[][] = [];
    let size = 0;
    for (const m of group) {
      const b = baseFor(core, q, m, members);
      if (b.blocked || heldByFailure(q, b.base)) break;
      bases.push(b.base);
      size++;
    }
    if (size === 0) {
      if (block(t)) break;
      continue;
    }
    // A member that cannot start closes the batch before it (it then starts as it is).
    group.length = size;
    const startTargets = new TargetSet();
    for (const m of group) startTargets.add(targetsOf(q, m));
    startGroup(core, q, group, mergeBases(bases, group), startTargets.toTargets());
    free--;
  }
  return timer;
}

/** The union of the members' bases, in queue (started-list) order, without the members. */
function mergeBases(bases: Entry[][], group: Entry[]): number[] {
  if (bases.length === 1) return (bases[0] as Entry[]).map((b) => b.prNumber);
  const members = new Set(group.map((m) => m.prNumber));
  const all = new Map<number, Entry>();
  for (const b of bases) for (const x of b) if (!members.has(x.prNumber)) all.set(x.prNumber, x);
  return [...all.values()].sort((a, b) => (a.pinRank ?? 0) - (b.pinRank ?? 0)).map((x) => x.prNumber);
}

function startGroup(core: Core, q: QueueRecord, group: Entry[], base: number[], targets: Targets | null): void {
  for (const m of group) pin(q, m);
  const run = createRun(
    core,
    q,
    group.map((m) => m.prNumber),
    base,
    targets === null ? {} : { targets },
  );
  for (const m of group) {
    m.runId = run.id;
    m.verifiedByTestRun = null;
    transition(core, q, m, 'testing', 'TEST_RUN_STARTED', run.id);
  }
  emitBatch(core, q, 'testing', run, run.group, 'TEST_RUN_STARTED');
}

// ---- run results -------------------------------------------------------------------------------

/**
 * Applies a finished main-queue run to its group. A pass makes the group TESTS_PASSED and, with
 * optimistic merging, vouches for its whole base (T12); a failure (or timeout, D12) puts the group
 * in PENDING_FAILURE with the reason it will fail with if blame settles on it (T8).
 */
export function completeRun(core: Core, q: QueueRecord, run: TestRun, passed: boolean, reason: string): void {
  settleRun(core, run, passed ? 'succeeded' : 'failed');
  run.failureReason = passed ? null : reason;
  const moved: number[] = [];
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
    moved.push(n);
  }
  if (!passed) emitBatch(core, q, 'pending_failure', run, moved, reason);
  if (passed && q.config.canOptimisticallyMerge) vouchForBase(core, q, run);
}

/**
 * Optimistic merging: a passing run proves its whole tested set, so every PR of its base may merge
 * with it. All or nothing (invariant 4.9.1: a merge must be covered by a run whose tested set is
 * exactly what gets merged): if any base PR cannot be vouched for — a PENDING_FAILURE one while
 * pendingFailureDepth is 0 (the hold must be open, T12), one that went back to PENDING, or one
 * whose batch is only partly in the base — none is.
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

/**
 * D11: once no admitted PR is left (merged, failed or cancelled, bisections included), the new mode
 * applies and the queue returns to the state it was asked to be in; waiting submissions are then
 * admitted under the new mode.
 */
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
