// Test runs: a run tests a GROUP of PRs on top of a BASE (the unmerged PRs ahead in its lane).
// Fate: fails if any PR of group + unmerged base `breaksBuild` (checked at completion); else the
// group's next scripted outcomes (hang > fail > pass, read at start); else pass after the longest
// `testMinutes`. An outcome is spent only by the run that reaches that PR's result (spendScripts).
import { heapPush, heapRetain } from './event-heap.js';
import { fakePrFor, type Core } from './lifecycle.js';
import { sha, uuid } from './random.js';
import type { EngineState, QueueRecord, RunOutcome, RunStatus, Targets, TestRun } from './types.js';

export const DEFAULT_TEST_MINUTES = 10;
/** Branch protection of the fake code host, used when the queue has no requiredStatuses override. */
export const DEFAULT_REQUIRED_STATUSES = ['ci'];

// Runs' arrays are only replaced, never changed, so common values are one shared frozen array.
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

// Cancelled runs' events stay in the heap (lazy deletion); once it doubles, dead ones are swept (same order).
function compactEvents(s: EngineState): void {
  const events = s.events;
  if (events.length < (sweepAt.get(s) ?? MIN_SWEEP)) return;
  heapRetain(events, (e) => e[1] === KIND_BATCH_TIMER || s.runs[e[3]]?.status === 'in_progress');
  sweepAt.set(s, Math.max(MIN_SWEEP, 2 * events.length));
}

/** The PRs whose `breaksBuild` fails a run: of its group, and of its base those not merged yet. */
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
 * Spends the scripted outcomes the run reached; others stay for the next run. Breakers: only theirs;
 * failed: the `fail` ones; passed or finished by hand: all; timed out: the `hang` ones. Cancelled: none.
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
