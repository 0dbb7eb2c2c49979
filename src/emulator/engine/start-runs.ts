// Starting runs in free slots: predictive testing, batching, the D3 hold. The rules as a whole: scheduler.ts.
import { emitBatch, transition, type Core } from './lifecycle.js';
import { entryOf, pin } from './queue-order.js';
import { KIND_BATCH_TIMER, createRun } from './runs.js';
import { heapPush } from './event-heap.js';
import { TargetSet, groupTargetsOf, targetsOf } from './targets.js';
import type { Entry, QueueRecord, Targets } from './types.js';

/** Waiting PRs of blocked lanes a single start pass may look past (parallel mode). */
export const SCAN_LIMIT = 2_000;
/** How far behind its first PR a forming batch looks for more members (parallel mode). */
const BATCH_LOOKAHEAD = 256;

/** D3: a group would be tested beyond the window behind an unresolved failure in its base. */
export function heldByFailure(q: QueueRecord, base: Entry[]): boolean {
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

function mainSlots(q: QueueRecord): number {
  const c = q.config;
  const used = c.bisectionConcurrency === null ? q.inFlight.main + q.inFlight.bisection : q.inFlight.main;
  return c.concurrency - used;
}

/** The entry after `e` in queue order (crossing from the started list into the waiting buckets). */
export function nextInOrder(q: QueueRecord, e: Entry): Entry | undefined {
  if (e.next !== null) return entryOf(q, e.next);
  if (e.list === 'started') return headOfBucketAfter(q, -1);
  if (e.list === 'waiting') return headOfBucketAfter(q, e.bucket ?? -1);
  return undefined;
}

export function headOfBucketAfter(q: QueueRecord, after: number): Entry | undefined {
  let best: number | undefined;
  for (const k of Object.keys(q.waiting)) {
    const n = Number(k);
    if (n > after && (best === undefined || n < best)) best = n;
  }
  return best === undefined ? undefined : entryOf(q, q.waiting[String(best)]?.head ?? null);
}

/** Parallel mode: the started PRs ahead whose targets overlap, transitively; `blocked` if one is PENDING again. */
export function baseFor(
  core: Core,
  q: QueueRecord,
  e: Entry,
  exclude: ReadonlySet<number>,
): { base: Entry[]; blocked: boolean } {
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
 * Fills free slots in queue order, each group on its base; behind an unresolved failure only the groups
 * within the depth start (D3); slots count runs in flight (D4). A batch (D5/D6) takes up to
 * `batchingMinSize` PRs of its lane and starts when full, unable to grow, holding a PR tested before in
 * this trip, or past `batchingMaxWaitTimeMinutes`; else a timer is set.
 */
export function startRuns(core: Core, q: QueueRecord): void {
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

/** Single mode: one lane; the base and D3 hops are carried along the walk (linear in the started list). */
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

/** Parallel mode: lanes by overlap; a blocked PR blocks overlapping PRs behind it; a batch stays in one lane. */
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
    // The batch from targets alone; bases (costly) only once ready, so a forming batch costs nothing.
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
