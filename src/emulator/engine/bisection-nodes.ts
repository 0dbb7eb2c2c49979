// Bisection nodes as the rest of the queue sees them (leaving, restarts, getQueue); apart from
// bisection.ts so membership.ts can use them without an import cycle.
import { transition, type Core } from './lifecycle.js';
import { cancelRun } from './runs.js';
import type { BisectNode, Bisection, Entry, QueueRecord } from './types.js';

/** Sorted, comma-joined PR set of a run (base + group): a bisection's failure key. */
export const setKey = (base: number[], prs: number[]): string =>
  [...new Set([...base, ...prs])].sort((a, b) => a - b).join(',');

const node = (prs: number[], base: number[]): BisectNode => ({
  prs,
  base,
  state: 'waiting',
  runId: null,
  failureReason: null,
});

/** L on base, R on base + L. */
export function halves(prs: number[], base: number[]): BisectNode[] {
  const cut = Math.ceil(prs.length / 2);
  const left = prs.slice(0, cut);
  return [node(left, [...base]), node(prs.slice(cut), [...base, ...left])];
}

/** A PR of this bisection still under test (in a node that has not passed). */
export function isOpen(bis: Bisection, n: number): boolean {
  return bis.nodes.some((nd) => nd.prs.includes(n));
}

/** Back to waiting; its PRs under test or held go back to PENDING. */
export function resetNode(core: Core, q: QueueRecord, nd: BisectNode, reason: string): void {
  if (nd.state === 'waiting') return;
  if (nd.state === 'testing') cancelRun(core, nd.runId);
  const runId = nd.runId;
  nd.state = 'waiting';
  nd.runId = null;
  nd.failureReason = null;
  for (const n of nd.prs) {
    const m = q.entries[String(n)];
    if (m && (m.state === 'testing' || m.state === 'pending_failure')) {
      m.failureReason = null;
      transition(core, q, m, 'pending', reason, runId);
    }
  }
}

/** A PR leaving unmerged drops out of its node and every base; nodes run on top of it are retested. */
export function dropFromBisections(core: Core, q: QueueRecord, e: Entry, reason: string): void {
  const n = e.prNumber;
  for (const bis of Object.values(q.bisections)) {
    if (e.bisection === bis.id) {
      const at = bis.nodes.findIndex((x) => x.prs.includes(n));
      const own = bis.nodes[at];
      if (own) {
        own.prs = own.prs.filter((x) => x !== n);
        if (e.state === 'testing') cancelRun(core, own.runId);
        resetNode(core, q, own, reason);
        if (own.prs.length === 0) bis.nodes.splice(at, 1);
      }
    }
    for (const nd of bis.nodes) {
      if (!nd.base.includes(n)) continue;
      nd.base = nd.base.filter((x) => x !== n);
      resetNode(core, q, nd, reason);
    }
    if (bis.nodes.length === 0) delete q.bisections[bis.id];
  }
}

/** restartTestsOnPullRequest on a PR under bisection: its node is retested as it stands. */
export function restartInBisection(core: Core, q: QueueRecord, e: Entry, reason: string): void {
  const bis = e.bisection === null ? undefined : q.bisections[e.bisection];
  const nd = bis?.nodes.find((x) => x.prs.includes(e.prNumber));
  if (nd) resetNode(core, q, nd, reason);
}

/** PRs under bisection, in node order (getQueue lists them first: they were at the front). */
export function* bisectingEntries(q: QueueRecord): Generator<Entry> {
  for (const bis of Object.values(q.bisections)) {
    for (const nd of bis.nodes) {
      for (const n of nd.prs) {
        const e = q.entries[String(n)];
        if (e) yield e;
      }
    }
  }
}
