// The merge-queue engine: a pure state machine over a JSON state. Each operation takes `now` and first
// processes the events due by then (no clock, no I/O, ids from a PRNG in the state; time never goes
// back). It validates before changing anything and throws EngineError; reads answer with views.ts.
import type { QueueUpdate } from './config.js';
import { badRequest, notFound } from './errors.js';
import { heapPeek, heapPop } from './event-heap.js';
import { completeBisectionRun } from './bisection.js';
import { bisectingEntries } from './bisection-nodes.js';
import { estimateEntry, type EstimateView } from './estimate.js';
import { upsertFakePr, type FakePrInput, type FakePrView } from './fake-prs.js';
import { repoKey, type Core } from './lifecycle.js';
import { snapshotQueue, type QueueMetricsSnapshot } from './metrics.js';
import * as prOps from './pr-ops.js';
import { inQueueOrder } from './queue-order.js';
import * as queueOps from './queue-ops.js';
import type { QueueRef } from './queue-ops.js';
import { KIND_BATCH_TIMER, KIND_COMPLETE, breakersOf, runIdFrom, spendScripts } from './runs.js';
import { completeRun, reconcile } from './scheduler.js';
import { createState, describeQueue, mustQueue } from './state.js';
import type { QueueMode } from '../../domain/vocabulary.js';
import type { Effect, EngineState, QueueRecord, RepoRef, TestRun } from './types.js';
import { lookupPullRequests, testingResults, type TestingResultsQuery } from './history.js';
import {
  entryView,
  pullRequestView,
  queueView,
  runDetailsView,
  runView,
  type EntryView,
  type PullRequestView,
  type QueueView,
  type QueueWithEntriesView,
  type RunDetailsView,
  type RunView,
  type TestingResultView,
} from './views.js';

export type { QueueRef };
export interface PrRef extends QueueRef {
  pr: { number: number };
}

export interface EngineOptions {
  /** Called for every PR state transition and batch event, in order (webhooks, tests). */
  onEffect?: (effect: Effect) => void;
}

export class QueueEngine {
  state: EngineState;
  private readonly core: Core;

  constructor(state: EngineState = createState(), options: EngineOptions = {}) {
    this.state = state;
    const onEffect = options.onEffect;
    // The core reads `this.state` late so reset() can swap the state object.
    const self = this;
    this.core = {
      get state() {
        return self.state;
      },
      ...(onEffect ? { emit: (e: Effect) => onEffect(e) } : {}),
    };
  }

  get now(): number {
    return this.state.now;
  }

  /** Counts state changes (due events, changing calls); readers cache while it stays (http/read-cache.ts). */
  changes = 0;

  /** What a call that changes state does first: apply the events due by `now`, and count a change. */
  private change(now: number): void {
    this.advance(now);
    this.changes++;
  }

  /** Processes events due by `now`: same-instant completions first, front first, then queues reconcile (D15). */
  advance(now: number): number {
    const s = this.state;
    const target = Math.max(now, s.now);
    for (let top = this.peekLive(); top && top[0] <= target; top = this.peekLive()) {
      const at = top[0];
      s.now = at;
      this.changes++;
      const due: Array<{ run: TestRun; kind: number }> = [];
      const touched = new Set<string>();
      while ((top = this.peekLive()) && top[0] === at) {
        heapPop(s.events);
        if (top[1] === KIND_BATCH_TIMER) {
          touched.add(top[3]);
          continue;
        }
        const run = s.runs[top[3]] as TestRun;
        if (top[1] === KIND_COMPLETE && run.dueAt !== at) continue;
        due.push({ run, kind: top[1] });
      }
      const rank = (r: TestRun) => {
        const e = s.queues[r.queueKey]?.entries[String(r.group[0])];
        return e?.pinRank ?? Number.MAX_SAFE_INTEGER;
      };
      due.sort((a, b) =>
        a.run.queueKey === b.run.queueKey
          ? rank(a.run) - rank(b.run) || a.kind - b.kind
          : a.run.queueKey < b.run.queueKey
            ? -1
            : 1,
      );
      for (const { run, kind } of due) {
        const q = s.queues[run.queueKey];
        if (!q || run.status !== 'in_progress') continue;
        let passed = false;
        if (kind === KIND_COMPLETE) {
          const breakers = breakersOf(this.core, q, run);
          passed = breakers.length === 0 && run.scripted !== 'fail';
          spendScripts(this.core, q, run, { kind: 'completed', breakers });
        } else {
          spendScripts(this.core, q, run, { kind: 'timed_out' });
        }
        const reason = kind === KIND_COMPLETE ? 'TEST_RUN_REQUIRED_STATUS_FAILED' : 'TEST_RUN_TIMEOUT';
        finishRun(this.core, q, run, passed, reason);
        touched.add(q.key);
      }
      for (const key of touched) {
        const q = s.queues[key];
        if (q) reconcile(this.core, q);
      }
    }
    s.now = target;
    return target;
  }

  /** The time of the next due event, or null; a real-clock server sets its timer from it. */
  nextDueAt(): number | null {
    return this.peekLive()?.[0] ?? null;
  }

  /** Top of the event heap, past events of finished or vanished runs and replaced batch timers. */
  private peekLive() {
    const events = this.state.events;
    for (let top = heapPeek(events); top; top = heapPeek(events)) {
      if (top[1] === KIND_BATCH_TIMER) {
        if (this.state.queues[top[3]]?.batchTimerAt === top[0]) return top;
      } else {
        const run = this.state.runs[top[3]];
        if (run && run.status === 'in_progress') return top;
      }
      heapPop(events);
    }
    return undefined;
  }

  createQueue(req: QueueRef & { mode?: QueueMode; concurrency?: number }, now: number): void {
    this.change(now);
    queueOps.createQueue(this.core, req);
  }

  /** Deleting a missing queue is a no-op; a queue with live PRs (NOT_READY included) is refused. */
  deleteQueue(req: QueueRef, now: number): void {
    this.change(now);
    queueOps.deleteQueue(this.core, req);
  }

  getQueue(req: QueueRef, now: number): QueueWithEntriesView {
    this.advance(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    const entries = [...bisectingEntries(q), ...inQueueOrder(q)].map((e) => entryView(this.core, q, e));
    return { ...queueView(q), entries };
  }

  /** Stores settings and resumes, pauses, drains or switches mode (queue-ops.ts tells how). */
  updateQueue(req: QueueRef & QueueUpdate, now: number): QueueView {
    this.change(now);
    return queueOps.updateQueue(this.core, req);
  }

  submit(req: PrRef & { priority?: string | number | null; noBatch?: boolean }, now: number): void {
    this.change(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    prOps.submit(this.core, q, req.pr.number, req.priority, req.noBatch);
  }

  cancel(req: PrRef, now: number): void {
    this.change(now);
    prOps.cancel(this.core, mustQueue(this.state, req.repo, req.targetBranch), req.pr.number);
  }

  restart(req: PrRef, now: number): void {
    this.change(now);
    prOps.restart(this.core, mustQueue(this.state, req.repo, req.targetBranch), req.pr.number);
  }

  /** A PR's record in this queue (404 if never submitted to it), with its timeline if asked for. */
  getSubmittedPullRequest(req: PrRef & { includeTimeline?: boolean }, now: number): PullRequestView {
    this.advance(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    prOps.checkPrNumber(req.pr.number);
    return pullRequestView(this.core, q, prOps.anyEntry(q, req.pr.number), req.includeTimeline === true);
  }

  /** When the PR should merge if every test passes (estimate.ts); the state is not changed. */
  estimate(req: PrRef, now: number): EstimateView {
    this.advance(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    prOps.checkPrNumber(req.pr.number);
    return estimateEntry(this.state, q, req.pr.number, (copy) => new QueueEngine(copy));
  }

  /** Whether the queue serves merge estimates (v2); unset: the emulator's default. */
  setEstimates(req: QueueRef & { enabled: boolean }, now: number): void {
    this.change(now);
    mustQueue(this.state, req.repo, req.targetBranch).estimates = req.enabled;
  }

  /** Up to 50 PRs at once; the numbers never submitted to this queue come back in `notFound`. */
  getSubmittedPullRequests(
    req: QueueRef & { prs: Array<{ number: number }>; includeTimeline?: boolean },
    now: number,
  ): { pullRequests: PullRequestView[]; notFound: number[] } {
    this.advance(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    for (const [i, p] of req.prs.entries()) prOps.checkPrNumber(p.number, `prs.${i}.number`);
    return lookupPullRequests(
      this.core,
      q,
      req.prs.map((p) => p.number),
      req.includeTimeline === true,
    );
  }

  /** One row per PR per finished test run in a window of at most 45 days, paged by offset/take. */
  listTestingResults(
    req: QueueRef & TestingResultsQuery,
    now: number,
  ): { results: TestingResultView[]; total: number } {
    this.advance(now);
    return testingResults(this.core, mustQueue(this.state, req.repo, req.targetBranch), req);
  }

  setImpactedTargets(
    req: QueueRef & { pr: { number: number; sha: string }; impactedTargets: string[] | 'ALL' },
    now: number,
  ): void {
    this.change(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    prOps.setImpactedTargets(this.core, q, req.pr.number, req.pr.sha, req.impactedTargets);
  }

  listPullRequests(req: QueueRef & prOps.ListQuery, now: number): { pullRequests: EntryView[]; nextCursor?: string } {
    this.advance(now);
    return prOps.listPullRequests(this.core, mustQueue(this.state, req.repo, req.targetBranch), req);
  }

  getTestingDetails(req: QueueRef & { testRunId: string }, now: number): RunDetailsView {
    this.advance(now);
    const q = mustQueue(this.state, req.repo, req.targetBranch);
    // Accept the bare UUID (with or without -bisection), or the whole test branch name.
    const id = runIdFrom(req.testRunId);
    const run = this.state.runs[id];
    if (!run || run.queueKey !== q.key) {
      throw notFound(`test run ${req.testRunId} not found in the merge queue for ${describeQueue(q.repo, q.branch)}`);
    }
    return runDetailsView(this.core, q, run);
  }

  upsertFakePr(input: FakePrInput, now: number): FakePrView {
    this.change(now);
    return upsertFakePr(this.core, input);
  }

  /** Finishes an in-flight run now with the given result, then lets its queue react. */
  completeRun(id: string, result: 'passed' | 'failed', now: number): RunView {
    this.change(now);
    const run = this.state.runs[id];
    if (!run) throw notFound(`test run ${id} not found`);
    if (run.status !== 'in_progress') throw badRequest(`test run ${id} already finished (${run.status})`);
    const q = this.state.queues[run.queueKey];
    if (!q) throw notFound(`test run ${id} not found`);
    spendScripts(this.core, q, run, { kind: 'forced' });
    finishRun(this.core, q, run, result === 'passed', 'TEST_RUN_REQUIRED_STATUS_FAILED');
    reconcile(this.core, q);
    return runView(q, run);
  }

  listRuns(filter: { host?: string; owner?: string; name?: string; branch?: string } = {}): RunView[] {
    const out: RunView[] = [];
    for (const q of Object.values(this.state.queues)) {
      if (filter.host !== undefined && q.repo.host !== filter.host) continue;
      if (filter.owner !== undefined && q.repo.owner !== filter.owner) continue;
      if (filter.name !== undefined && q.repo.name !== filter.name) continue;
      if (filter.branch !== undefined && q.branch !== filter.branch) continue;
      for (const id of q.runIds) {
        const run = this.state.runs[id];
        if (run) out.push(runView(q, run));
      }
    }
    return out;
  }

  /** Empties everything; the clock and the random sequence carry on. */
  reset(now: number): void {
    this.changes++;
    const s = this.state;
    this.state = { ...createState(s.rng, Math.max(now, s.now)), seq: s.seq };
  }

  /** One snapshot per queue, optionally only the queues of one repository. */
  metrics(now: number, repo?: RepoRef): QueueMetricsSnapshot[] {
    this.advance(now);
    const wanted = repo ? repoKey(repo) : undefined;
    return Object.values(this.state.queues)
      .filter((q) => wanted === undefined || repoKey(q.repo) === wanted)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((q) => snapshotQueue(q, this.state.now));
  }
}

function finishRun(core: Core, q: QueueRecord, run: TestRun, passed: boolean, reason: string): void {
  if (run.isBisection) completeBisectionRun(core, q, run, passed, reason);
  else completeRun(core, q, run, passed, reason);
}
