// Joining and leaving a queue: admission (direct merge, urgent preemption), leaving, and restarting
// the PRs tested on top of a leaving one. The rules as a whole: scheduler.ts.
import { dropFromBisections } from './bisection-nodes.js';
import { TERMINAL, fakePrFor, isReady, readinessOf, transition, type Core } from './lifecycle.js';
import { append, entryOf, insertStarted, unlink } from './queue-order.js';
import { cancelRun } from './runs.js';
import { TargetSet, groupTargetsOf, indexOverlaps, targetsOf } from './targets.js';
import type { Entry, FakePr, QueueRecord, Targets } from './types.js';

export function hasAny(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** The impacted targets uploaded for the PR's current head SHA, or null. */
export function uploadedTargets(core: Core, q: QueueRecord, prNumber: number): Targets | null {
  const pr = fakePrFor(core, q, prNumber);
  const t = pr ? q.impactedTargets[String(prNumber)]?.[pr.sha] : undefined;
  return t === undefined ? null : t === 'ALL' ? 'ALL' : [...t];
}

/** D9: admits only while running; direct merge (§2.8) and urgent preemption (§2.7, D16) happen here. */
export function tryAdmit(core: Core, q: QueueRecord, e: Entry): boolean {
  if (q.state !== 'running' || e.state !== 'not_ready') return false;
  if (!isReady(readinessOf(core, q, e.prNumber))) return false;
  e.targets = uploadedTargets(core, q, e.prNumber);
  if (directMergeAllowed(core, q, e)) {
    unlink(q, e);
    e.admittedAt = core.state.now;
    e.mergeMethod = q.config.mergeMethod;
    q.tipSeq = ++core.state.seq;
    q.merges++;
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

/** Direct merge: on, PR up to date, and an empty queue (single mode or batching) or an empty lane. */
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
 * An urgent PR goes to the front of its lane, behind earlier urgent ones; every started PR it overtakes
 * goes back to PENDING (SKIP_THE_LINE_INTERRUPTED, D16).
 */
export function overtake(core: Core, q: QueueRecord, u: Entry): void {
  let after: Entry | null = null;
  for (let cur = entryOf(q, q.started.head); cur && cur.priorityValue === 0 && cur !== u; cur = entryOf(q, cur.next))
    after = cur;
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

/** Back to PENDING where it stands, with its group's PRs still on the same run. */
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
 * Started PRs whose run was built on one of `leaving` go back to PENDING (T9/T10/T13/T14/T16). Only
 * TESTING→PENDING counts as a restart in the metrics (invariant 4.9.7).
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
        ? (s.pinRank ?? 0) > firstRank || run?.group.some((n) => set.has(n))
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
  if (to === 'failed') {
    // A failed PR names the run that failed it (none when a reused failure named it).
    const run = e.runId === null ? undefined : core.state.runs[e.runId];
    e.verifiedByTestRun = run?.status === 'failed' && run.group.includes(e.prNumber) ? run.id : null;
  }
  if (to === 'merged') {
    q.tipSeq = ++core.state.seq;
    q.merges++;
  }
  transition(core, q, e, to, reason, e.runId);
  e.bisection = null;
}

/**
 * A vouched PR whose proof run held a PR that left unmerged (only while paused) is retested in place
 * (invariant 4.9.1); the reason code is the emulator's own.
 */
export function revokeProofsContaining(core: Core, q: QueueRecord, leaving: Entry): void {
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
