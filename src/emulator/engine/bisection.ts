// Bisection of a failed batch (queue-semantics §2.3–2.4, D7, D8). Its PRs leave the main order
// (BISECTION_REQUIRED) and are split in half, L on the base and R on base + L, in the bisection slots.
// A passing node's PRs go back to the front of the main queue for a retest, unless its run is reusable
// (reuse.ts); a failing node waits for its base to clear, then a single PR is the culprit and a group
// splits again. A culprit leaving restarts the nodes built on it. bisection_skip_redundant_tests skips
// a node whose exact set already failed in this bisection (D8).
import { halves, isOpen, setKey } from './bisection-nodes.js';
import { emitBatch, transition, type Core } from './lifecycle.js';
import { leaveQueue } from './membership.js';
import { returnToWaiting, unlink } from './queue-order.js';
import { reuseBisectionPass } from './reuse.js';
import { uuid } from './random.js';
import { createRun, settleRun } from './runs.js';
import type { BisectNode, Bisection, Entry, QueueRecord, TestRun } from './types.js';

function bisectionSlots(q: QueueRecord): number {
  const c = q.config;
  if (c.bisectionConcurrency === null) return c.concurrency - q.inFlight.main - q.inFlight.bisection;
  return c.bisectionConcurrency - q.inFlight.bisection;
}

export function startBisection(core: Core, q: QueueRecord, members: Entry[], failed: TestRun): void {
  const id = uuid(core.state);
  const base = failed.base.filter((n) => {
    const b = q.entries[String(n)];
    return b !== undefined && (b.state === 'merged' || (b.live && b.bisection === null));
  });
  const bis: Bisection = { id, base, nodes: [], cleared: [], failedSets: [setKey(failed.base, failed.group)] };
  q.bisections[id] = bis;
  q.everBisected = true;
  failed.startedBisection = true;
  const prs: number[] = [];
  for (const m of members) {
    unlink(q, m);
    m.pinRank = null;
    m.bisection = id;
    m.failureReason = null;
    m.verifiedByTestRun = null;
    transition(core, q, m, 'pending', 'BISECTION_REQUIRED', failed.id);
    prs.push(m.prNumber);
  }
  bis.nodes = halves(prs, base);
}

/** Settles failed nodes, then (unless the queue is paused) skips redundant tests and starts runs. */
export function reconcileBisections(core: Core, q: QueueRecord, flowing: boolean): void {
  for (const bis of Object.values(q.bisections)) {
    if (q.bisections[bis.id] !== bis) continue;
    resolveFailedNodes(core, q, bis);
    if (flowing && q.bisections[bis.id] === bis) scheduleNodes(core, q, bis);
    if (bis.nodes.length === 0) delete q.bisections[bis.id];
  }
}

function resolveFailedNodes(core: Core, q: QueueRecord, bis: Bisection): void {
  for (let changed = true; changed && q.bisections[bis.id] === bis; ) {
    changed = false;
    for (const nd of bis.nodes) {
      if (nd.state !== 'failed' || nd.base.some((n) => isOpen(bis, n))) continue;
      if (nd.prs.length === 1) failCulprit(core, q, nd, nd.failureReason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED');
      else splitInPlace(core, q, bis, nd, nd.base);
      changed = true;
      break;
    }
  }
}

function failCulprit(core: Core, q: QueueRecord, nd: BisectNode, reason: string): void {
  const e = q.entries[String(nd.prs[0])];
  if (e) leaveQueue(core, q, e, 'failed', reason);
}

function splitInPlace(core: Core, q: QueueRecord, bis: Bisection, nd: BisectNode, base: number[]): void {
  const at = bis.nodes.indexOf(nd);
  bis.nodes.splice(at, 1, ...halves(nd.prs, base));
  for (const n of nd.prs) {
    const m = q.entries[String(n)];
    if (m && m.state !== 'pending') {
      m.failureReason = null;
      transition(core, q, m, 'pending', 'BISECTION_REQUIRED', nd.runId);
    }
  }
}

function scheduleNodes(core: Core, q: QueueRecord, bis: Bisection): void {
  const skip = q.config.optimizationMode === 'bisection_skip_redundant_tests';
  for (let i = 0; i < bis.nodes.length; i++) {
    const nd = bis.nodes[i] as BisectNode;
    if (nd.state !== 'waiting') continue;
    if (skip && bis.failedSets.includes(setKey(nd.base, nd.prs))) {
      const detached = nd.base.filter((n) => !isOpen(bis, n));
      if (nd.prs.length === 1 && detached.length === nd.base.length) {
        failCulprit(core, q, nd, 'TEST_RUN_FAILED_BY_OPTIMIZATION');
        if (q.bisections[bis.id] !== bis) return;
        i = -1;
        continue;
      }
      if (nd.prs.length === 1) nd.base = detached;
      else bis.nodes.splice(i, 1, ...halves(nd.prs, detached));
      i--;
      continue;
    }
    if (bisectionSlots(q) <= 0) continue;
    startNode(core, q, bis, nd);
  }
}

function startNode(core: Core, q: QueueRecord, bis: Bisection, nd: BisectNode): void {
  const run = createRun(core, q, nd.prs, [...nd.base], { bisectionId: bis.id });
  nd.state = 'testing';
  nd.runId = run.id;
  for (const n of nd.prs) {
    const m = q.entries[String(n)];
    if (!m) continue;
    m.runId = run.id;
    transition(core, q, m, 'testing', 'TEST_RUN_STARTED', run.id);
  }
  emitBatch(core, q, 'testing', run, nd.prs, 'TEST_RUN_STARTED');
}

export function completeBisectionRun(core: Core, q: QueueRecord, run: TestRun, passed: boolean, reason: string): void {
  settleRun(core, run, passed ? 'succeeded' : 'failed');
  run.failureReason = passed ? null : reason;
  const bis = run.bisectionId === null ? undefined : q.bisections[run.bisectionId];
  const nd = bis?.nodes.find((x) => x.runId === run.id && x.state === 'testing');
  if (!bis || !nd) return;
  const members = nd.prs
    .map((n) => q.entries[String(n)])
    .filter((m): m is Entry => m !== undefined && m.state === 'testing' && m.runId === run.id);
  if (!passed) {
    nd.state = 'failed';
    nd.failureReason = reason;
    bis.failedSets.push(setKey(run.base, run.group));
    for (const m of members) {
      m.failureReason = reason;
      transition(core, q, m, 'pending_failure', reason, run.id);
    }
    emitBatch(
      core,
      q,
      'pending_failure',
      run,
      members.map((m) => m.prNumber),
      reason,
    );
    return;
  }
  bis.nodes.splice(bis.nodes.indexOf(nd), 1);
  bis.cleared.push(...nd.prs);
  for (const m of members) {
    m.verifiedByTestRun = run.id;
    transition(core, q, m, 'tests_passed', 'TEST_RUN_PASSED', run.id);
  }
  for (const m of members) {
    m.bisection = null;
    returnToWaiting(q, m);
  }
  // The run already tested what the main queue would test them on: it is their test (15.2).
  if (!reuseBisectionPass(core, q, run, members)) {
    for (const m of members) {
      m.verifiedByTestRun = null;
      transition(core, q, m, 'pending', 'BISECTION_TEST_RUN_PASSED', run.id);
    }
  }
  if (bis.nodes.length === 0) delete q.bisections[bis.id];
}
