// A PR's merge estimate: a copy of its queue run forward on a virtual clock, every test passing at the
// simulated CI's duration (runs.ts), until the PR concludes (or its pending failure resolves).
import { heapPush } from './event-heap.js';
import { fakePrFor, TERMINAL } from './lifecycle.js';
import { bisectingEntries } from './bisection-nodes.js';
import { inQueueOrder } from './queue-order.js';
import { DEFAULT_TEST_MINUTES, KIND_COMPLETE } from './runs.js';
import type { EngineState, Entry, FakePr, QueueRecord, TestRun } from './types.js';

/** Engine time the forward run may cover, and events it may process, before it gives up. */
export const ESTIMATE_HORIZON_MS = 7 * 24 * 60 * 60_000;
export const ESTIMATE_MAX_STEPS = 10_000;

export type EstimateUnavailable =
  | 'notInQueue'
  | 'notReady'
  | 'queuePaused'
  | 'beyondHorizon'
  | 'notScheduled'
  | 'wouldNotMerge';

export type EstimateView =
  | { status: 'unavailable'; reason: EstimateUnavailable }
  | {
      status: 'available';
      kind: 'merge';
      estimatedAt: number;
      /** Start and end of the testing that lets it merge (absent if it merges untested). */
      testingStartsAt: number | null;
      testingEndsAt: number | null;
      /** Live admitted PRs ahead of it in queue order now. */
      ahead: number;
    }
  | { status: 'available'; kind: 'pendingFailureResolution'; estimatedAt: number; waitingOn: number[] };

/** What the forward run needs of an engine over the copy (engine.ts builds one). */
export interface Stepper {
  advance(now: number): number;
  nextDueAt(): number | null;
}

const unavailable = (reason: EstimateUnavailable): EstimateView => ({ status: 'unavailable', reason });

export function estimateEntry(
  s: EngineState,
  q: QueueRecord,
  prNumber: number,
  stepper: (copy: EngineState) => Stepper,
): EstimateView {
  const e = q.entries[String(prNumber)];
  if (!e?.live) return unavailable('notInQueue');
  if (q.state === 'paused' || (q.state === 'switching_modes' && q.switching?.resume === 'paused'))
    return unavailable('queuePaused');
  if (e.state === 'not_ready') return unavailable('notReady');
  const failing = e.state === 'pending_failure';
  const copy = passingCopy(s, q);
  const sim = stepper(copy);
  const mine = (copy.queues[q.key] as QueueRecord).entries[String(prNumber)] as Entry;
  const done = () => (failing ? mine.state !== 'pending_failure' : TERMINAL.has(mine.state));
  const horizon = s.now + ESTIMATE_HORIZON_MS;
  for (let steps = 0; !done(); steps++) {
    const next = sim.nextDueAt();
    if (next === null) return unavailable('notScheduled');
    if (next > horizon || steps >= ESTIMATE_MAX_STEPS) return unavailable('beyondHorizon');
    sim.advance(next);
  }
  if (failing)
    return {
      status: 'available',
      kind: 'pendingFailureResolution',
      estimatedAt: mine.stateChangedAt,
      waitingOn: waitingOn(s, q, e),
    };
  if (mine.state !== 'merged') return unavailable('wouldNotMerge');
  const last = (state: string) => {
    for (let i = mine.history.length - 1; i >= 0; i--) {
      const [at, st] = mine.history[i] as Entry['history'][number];
      if (at < e.submittedAt) break;
      if (st === state) return at;
    }
    return null;
  };
  return {
    status: 'available',
    kind: 'merge',
    estimatedAt: mine.stateChangedAt,
    testingStartsAt: last('testing'),
    testingEndsAt: last('tests_passed'),
    ahead: aheadOf(q, e),
  };
}

/** A copy of the state holding `q` alone, its runs in flight and its repository's PRs, all tests passing. */
function passingCopy(s: EngineState, q: QueueRecord): EngineState {
  // Runs in flight and those live entries and bisections still read (blame, merge order).
  const runs: Record<string, TestRun> = {};
  const keep = (id: string | null) => {
    const r = id === null ? undefined : s.runs[id];
    if (r && id !== null) runs[id] = r;
  };
  for (const id of q.runIds) if (s.runs[id]?.status === 'in_progress') keep(id);
  for (const e of Object.values(q.entries)) if (e.live) keep(e.runId);
  for (const b of Object.values(q.bisections)) for (const nd of b.nodes) keep(nd.runId);
  const fakePrs: Record<string, FakePr> = {};
  for (const [k, p] of Object.entries(s.fakePrs)) {
    if (p.repo.host === q.repo.host && p.repo.owner === q.repo.owner && p.repo.name === q.repo.name) fakePrs[k] = p;
  }
  // Events of other queues' runs and timers are skipped by the engine (no such run or queue in the copy).
  const copy: EngineState = structuredClone({ ...s, queues: { [q.key]: q }, runs, fakePrs });
  const cq = copy.queues[q.key] as QueueRecord;
  cq.runIds = q.runIds.filter((id) => id in runs);
  for (const p of Object.values(copy.fakePrs)) {
    p.breaksBuild = false;
    p.outcomes = [];
  }
  const core = { state: copy };
  for (const r of Object.values(copy.runs)) {
    r.scripted = null;
    r.scripts = [];
    if (r.dueAt !== null) continue;
    // A hanging run passes after its PRs' test minutes instead.
    let minutes = 0;
    for (const n of r.group) minutes = Math.max(minutes, fakePrFor(core, cq, n)?.testMinutes ?? DEFAULT_TEST_MINUTES);
    r.dueAt = Math.max(copy.now + 1, r.createdAt + Math.max(1, Math.round(minutes * 60_000)));
    if (r.dueAt <= r.timeoutAt) heapPush(copy.events, [r.dueAt, KIND_COMPLETE, ++copy.seq, r.id]);
  }
  return copy;
}

function aheadOf(q: QueueRecord, e: Entry): number {
  let n = 0;
  for (const x of [...bisectingEntries(q), ...inQueueOrder(q)]) {
    if (x === e) return n;
    n++;
  }
  return n;
}

/** A pending failure waits on its base PRs not passed yet and the PRs testing on top of it. */
function waitingOn(s: EngineState, q: QueueRecord, e: Entry): number[] {
  const run = e.runId === null ? undefined : s.runs[e.runId];
  if (!run) return [];
  const out: number[] = [];
  for (const n of run.base) {
    const st = q.entries[String(n)]?.state;
    if (st !== 'tests_passed' && st !== 'merged') out.push(n);
  }
  for (const x of inQueueOrder(q)) {
    if (x.state !== 'testing' || x.runId === null || x.runId === run.id) continue;
    if (s.runs[x.runId]?.base.includes(e.prNumber)) out.push(x.prNumber);
  }
  return out;
}
