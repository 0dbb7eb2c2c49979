/**
 * Test runs ("verification runs"): one run tests a GROUP of PRs (one PR, a batch, or part of a
 * batch being bisected) on top of a BASE (the unmerged PRs ahead of it in its lane). Runs in flight
 * are counted per queue (main and bisection) because concurrency counts groups, not PRs. The
 * simulated CI decides a run's fate:
 *  - it fails when any PR of group ∪ unmerged base has `breaksBuild` (checked at completion, so a
 *    test can flip the flag while the run is in flight);
 *  - otherwise by the group members' next scripted outcomes (hang > fail > pass), read when the run
 *    starts, since a hang must be known then: it gets no completion event, only the timeout;
 *  - otherwise it passes, after the longest `testMinutes` of its group.
 * A scripted outcome is only spent by the run it was meant for: one that reaches that PR's own
 * result (see spendScripts). A run cancelled or restarted, or failed by another PR, gives it back.
 */
import { heapPush, heapRetain } from './event-heap.js';
import { fakePrFor, type Core } from './lifecycle.js';
import { sha, uuid } from './random.js';
import type { EngineState, QueueRecord, RunOutcome, RunStatus, Targets, TestRun } from './types.js';

export const DEFAULT_TEST_MINUTES = 10;
/** Branch protection of the fake code host, used when the queue has no requiredStatuses override. */
export const DEFAULT_REQUIRED_STATUSES = ['ci'];

/**
 * A run's arrays are never changed in place once it exists (only replaced), so the common values —
 * no base, no scripted outcomes, the default required statuses — are one frozen array shared by all
 * runs instead of a copy each (tens of thousands of runs pile up on a clock that does not move).
 */
const NO_PRS: number[] = Object.freeze([]) as unknown as number[];
const NO_SCRIPTS: Array<[number, RunOutcome]> = Object.freeze([]) as unknown as Array<[number, RunOutcome]>;
const DEFAULT_STATUSES: string[] = Object.freeze([...DEFAULT_REQUIRED_STATUSES]) as unknown as string[];

export const KIND_COMPLETE = 0;
export const KIND_TIMEOUT = 1;
export const KIND_BATCH_TIMER = 2;

export interface RunOptions {
  bisectionId?: string;
  targets?: Targets | null;
}

export function createRun(core: Core, q: QueueRecord, group: number[], base: number[], opts: RunOptions = {}): TestRun {
  const s = core.state;
  const id = uuid(s);
  let scripted: RunOutcome | null = null;
  let minutes = 0;
  const scripts: Array<[number, RunOutcome]> = [];
  for (const n of group) {
    const pr = fakePrFor(core, q, n);
    minutes = Math.max(minutes, pr?.testMinutes ?? DEFAULT_TEST_MINUTES);
    // Read, not taken: the outcome is spent only when this run reaches the PR's own result.
    const outcome = pr?.outcomes[0];
    if (outcome !== undefined) scripts.push([n, outcome]);
    if (outcome === 'hang' || scripted === 'hang') scripted = 'hang';
    else if (outcome === 'fail' || scripted === 'fail') scripted = 'fail';
    else if (outcome === 'pass') scripted = 'pass';
  }
  let mergedBase = 0;
  for (const n of base) if (q.entries[String(n)]?.state === 'merged') mergedBase++;
  const override = q.config.requiredStatuses;
  const run: TestRun = {
    id,
    queueKey: q.key,
    group: [...group],
    base: base.length > 0 ? base : NO_PRS,
    status: 'in_progress',
    createdAt: s.now,
    completedAt: null,
    // At least 1 ms, so a completion is always strictly after the start (no same-instant loops).
    dueAt: scripted === 'hang' ? null : s.now + Math.max(1, Math.round(minutes * 60_000)),
    timeoutAt: s.now + q.config.testingTimeoutMinutes * 60_000,
    scripted,
    scripts: scripts.length > 0 ? scripts : NO_SCRIPTS,
    branchAt: q.merges - mergedBase,
    startedBisection: false,
    isBisection: opts.bisectionId !== undefined,
    bisectionId: opts.bisectionId ?? null,
    targets: opts.targets ?? null,
    testBranchSha: sha(s),
    requiredStatuses: override ? [...override] : DEFAULT_STATUSES,
    requiredStatusesSource: override ? 'merge_instance' : 'repo_provider_branch_protection',
    failureReason: null,
  };
  s.runs[id] = run;
  q.runIds.push(id);
  if (run.isBisection) q.inFlight.bisection++;
  else q.inFlight.main++;
  // A completion at exactly the timeout counts as in time (completion sorts first).
  if (run.dueAt !== null && run.dueAt <= run.timeoutAt) heapPush(s.events, [run.dueAt, KIND_COMPLETE, ++s.seq, id]);
  heapPush(s.events, [run.timeoutAt, KIND_TIMEOUT, ++s.seq, id]);
  compactEvents(s);
  return run;
}

/** Event count past which the heap is swept of dead run events, per state (doubles after a sweep). */
const sweepAt = new WeakMap<EngineState, number>();
const MIN_SWEEP = 1_024;

/**
 * A cancelled run leaves its completion and timeout events in the heap until time reaches them
 * (lazy deletion); on a clock that does not move they would pile up for ever. Once the heap has
 * doubled since the last sweep, the events of runs no longer in progress are dropped: amortised
 * O(log n) per run, and the same events surface in the same order as before.
 */
function compactEvents(s: EngineState): void {
  const events = s.events;
  if (events.length < (sweepAt.get(s) ?? MIN_SWEEP)) return;
  heapRetain(events, (e) => e[1] === KIND_BATCH_TIMER || s.runs[e[3]]?.status === 'in_progress');
  sweepAt.set(s, Math.max(MIN_SWEEP, 2 * events.length));
}

/**
 * The PRs whose `breaksBuild` fails a run that reached its completion time: of its group, and of
 * its base those not merged yet (a merged PR is part of the branch it was tested on).
 */
export function breakersOf(core: Core, q: QueueRecord, run: TestRun): number[] {
  const out: number[] = [];
  for (const n of run.group) if (fakePrFor(core, q, n)?.breaksBuild) out.push(n);
  for (const n of run.base) {
    if (q.entries[String(n)]?.state === 'merged') continue;
    if (fakePrFor(core, q, n)?.breaksBuild) out.push(n);
  }
  return out;
}

/** How a run ended, for spending its scripted outcomes. */
export type RunEnd = { kind: 'completed'; breakers: number[] } | { kind: 'timed_out' } | { kind: 'forced' };

/**
 * Spends the scripted outcomes the run reached (each shifted off its fake PR, if the tester has
 * not rewritten the list meanwhile); the others stay for the PR's next run:
 *  - completed with breaking PRs in its content: only the breaking PRs' own outcomes are spent;
 *  - completed otherwise: a scripted failure spends the `fail` outcomes (a `pass` of a batch mate
 *    was not reached), a pass spends them all;
 *  - timed out: the `hang` outcomes (a run that hung because of a batch mate gives the others back);
 *  - finished by hand through the control API: all of them (the tester decided the result).
 * A cancelled run never gets here, so it spends nothing.
 */
export function spendScripts(core: Core, q: QueueRecord, run: TestRun, end: RunEnd): void {
  for (const [n, outcome] of run.scripts) {
    let spent: boolean;
    if (end.kind === 'forced') spent = true;
    else if (end.kind === 'timed_out') spent = outcome === 'hang';
    else if (end.breakers.length > 0) spent = end.breakers.includes(n);
    else spent = run.scripted === 'fail' ? outcome === 'fail' : true;
    if (!spent) continue;
    const pr = fakePrFor(core, q, n);
    if (pr && pr.outcomes[0] === outcome) pr.outcomes.shift();
  }
  run.scripts = NO_SCRIPTS;
}

/** Ends a run in flight with its final status and frees its slot. */
export function settleRun(core: Core, run: TestRun, status: Exclude<RunStatus, 'in_progress'>): void {
  if (run.status !== 'in_progress') return;
  run.status = status;
  run.completedAt = core.state.now;
  const q = core.state.queues[run.queueKey];
  if (q) {
    if (run.isBisection) q.inFlight.bisection--;
    else q.inFlight.main--;
  }
}

export function cancelRun(core: Core, runId: string | null): void {
  if (runId === null) return;
  const run = core.state.runs[runId];
  if (run) settleRun(core, run, 'cancelled');
}

/** The id a client passes to getMergeQueueTestingDetails: the UUID, maybe with -bisection…. */
export function runIdFrom(testRunId: string): string {
  const last = testRunId.split('/').pop() ?? '';
  return last.replace(/-bisection.*$/, '');
}
