// No identical rerun after bisection (issue 15.2): when a passing bisection run tested exactly what
// the main queue would test its PRs on now (same branch state, same PRs under each), it is their test:
// they stay TESTS_PASSED and join the end of the started list. Otherwise they are retested.
import { pin, returnToWaiting, unlink } from './queue-order.js';
import { baseFor, headOfBucketAfter, nextInOrder } from './start-runs.js';
import type { Entry, QueueRecord, TestRun } from './types.js';
import type { Core } from './lifecycle.js';

/** The PRs a started entry sits on now: everything started ahead (single), its lane (parallel). */
function underNow(core: Core, q: QueueRecord, e: Entry): Entry[] | null {
  if (q.config.mode === 'parallel') {
    const { base, blocked } = baseFor(core, q, e, new Set());
    return blocked ? null : base;
  }
  const out: Entry[] = [];
  for (let cur = q.started.head === null ? undefined : q.entries[String(q.started.head)]; cur && cur !== e; ) {
    out.push(cur);
    cur = cur.next === null ? undefined : q.entries[String(cur.next)];
  }
  return out;
}

const sameSet = (a: number[], b: number[]): boolean => {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
};

/** Moves a passing bisection run's PRs to the started list if its content matches; false otherwise. */
export function reuseBisectionPass(core: Core, q: QueueRecord, run: TestRun, members: Entry[]): boolean {
  if (members.length === 0 || members.length !== run.group.length || run.branchAt < 0) return false;
  // The same branch state: every merge since the run's starting point is a PR of its base.
  const unmergedBase: number[] = [];
  let mergedBase = 0;
  for (const n of run.base) {
    if (q.entries[String(n)]?.state === 'merged') mergedBase++;
    else unmergedBase.push(n);
  }
  if (q.merges - run.branchAt !== mergedBase) return false;
  // They would be the next to start: nothing waits ahead of them, and they are consecutive.
  let w = headOfBucketAfter(q, -1);
  for (const m of members) {
    if (w !== m) return false;
    w = nextInOrder(q, m);
  }
  for (const m of members) pin(q, m);
  const ok = members.every((m, i) => {
    const under = underNow(core, q, m);
    if (under === null) return false;
    const ahead = new Set(members.slice(0, i).map((x) => x.prNumber));
    // Everything under it that is not of its own group is live main-queue work on its way to merge.
    for (const u of under) {
      if (ahead.has(u.prNumber)) continue;
      if ((u.state !== 'testing' && u.state !== 'tests_passed') || u.bisection !== null) return false;
    }
    return sameSet(
      under.map((u) => u.prNumber),
      [...unmergedBase, ...ahead],
    );
  });
  if (ok) return true;
  for (const m of members) {
    unlink(q, m);
    m.pinRank = null;
  }
  for (const m of members) returnToWaiting(q, m);
  return false;
}
