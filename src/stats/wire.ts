// The v1 history answers into the stats model, leniently: fields checked one by one, bad items skipped.
import { newestFirst, STATE_KEYS } from '../api/history.js';
import type { Transition } from '../domain/types.js';
import { isTerminal } from '../domain/vocabulary.js';
import type { ConcludedPr, TestAttempt } from './model.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0
    ? v
    : typeof v === 'string' && /^\d{1,10}$/.test(v)
      ? Number(v)
      : null;

/** The most a Date holds either side of 1970 (ms): a time beyond it cannot be shown or compared sensibly. */
const MAX_DATE_MS = 8.64e15;

/** An ISO time or epoch ms; null when neither. */
export function timeOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && Math.abs(v) <= MAX_DATE_MS ? v : null;
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

function first(o: Obj, keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

function runIdOf(o: Obj): string | null {
  const direct = str(first(o, ['testRunId', 'runId']));
  if (direct) return direct;
  const run = obj(first(o, ['testRun', 'run']));
  return run ? str(run.id) : null;
}

/** One timeline item; reason and run id also from the per-state object, `testRun.id`, failing statuses. */
export function transitionOf(item: unknown): Transition | null {
  const flat = obj(item);
  if (!flat) return null;
  const o: Obj = { ...flat };
  for (const key of STATE_KEYS) {
    const d = obj(flat[key]);
    if (!d) continue;
    for (const k of ['reason', 'testRunId', 'failureCausingStatuses'])
      if (o[k] === undefined || o[k] === null) o[k] = d[k];
  }
  const at = timeOf(first(o, ['at', 'timestamp', 'time', 'createdAt', 'stateChangedAt']));
  const state = str(o.state)?.toLowerCase();
  if (at === null || !state) return null;
  const reason = str(first(o, ['reason', 'stateReason'])) ?? '';
  const ahead = int(first(o, ['aheadPr', 'prerequisitePr', 'causedByPr', 'prerequisitePrNumber']));
  const t: Transition = { at, state, reason: reason.toUpperCase(), runId: runIdOf(o) };
  const statuses = arr(o.failureCausingStatuses).filter((x): x is string => typeof x === 'string');
  if (statuses.length > 0) t.statuses = statuses;
  if (ahead !== null) t.aheadPr = ahead;
  else if (/^PREREQUISITE_MERGE_ITEM_/i.test(reason)) {
    // A nested run may name the PRs it was tested on top of; the one ahead is among them.
    const base = arr(obj(first(o, ['testRun', 'run']))?.basePrNumbers)
      .map(int)
      .filter((n): n is number => n !== null);
    if (base.length === 1) t.aheadPr = base[0] as number;
  }
  return t;
}

/** The timeline newest first (`newestFirst`: equal times keep the service's newest-first list order). */
export function timelineOf(record: unknown): Transition[] {
  const items = arr(obj(record)?.timeline)
    .map(transitionOf)
    .filter((t): t is Transition => t !== null);
  return newestFirst(items, (t) => t.at);
}

/** When the trip that ended last in the timeline (or is under way) began. */
export function lastTripStart(timeline: Transition[]): number | null {
  let start: number | null = null;
  let ended = true;
  for (const t of newestFirst(timeline, (x) => x.at).reverse()) {
    if (ended) start = t.at;
    ended = isTerminal(t.state);
  }
  return start;
}

/** A batch lookup: the records and the numbers never submitted (`[1, 2]` or `[{number: 1}]`). */
export function batchOf(body: unknown): { pullRequests: Obj[]; notFound: number[] } {
  const o = obj(body) ?? {};
  const pullRequests = arr(o.pullRequests)
    .map(obj)
    .filter((x): x is Obj => x !== undefined);
  const notFound = arr(o.notFound)
    .map((n) => int(n) ?? int(obj(n)?.number) ?? int(obj(n)?.prNumber))
    .filter((n): n is number => n !== null);
  return { pullRequests, notFound };
}

function resultOf(o: Obj): TestAttempt['result'] | null {
  const raw = str(
    first(o, ['outcome', 'testRunConclusion', 'runConclusion', 'result', 'status', 'conclusion', 'testRunStatus']),
  );
  if (!raw) return null;
  const r = raw.toLowerCase();
  if (['passed', 'succeeded', 'success', 'pass'].includes(r)) return 'passed';
  if (['failed', 'failure', 'fail', 'timed_out', 'timeout'].includes(r)) return 'failed';
  if (['cancelled', 'canceled', 'aborted'].includes(r)) return 'cancelled';
  return null;
}

/** A testing-results page: one item per PR per run (outcome, start, finish, bisection). */
export function testingPageOf(body: unknown): { attempts: TestAttempt[]; items: number; total: number | null } {
  const o = obj(body) ?? {};
  const list = arr(first(o, ['testingResults', 'results']));
  const attempts: TestAttempt[] = [];
  for (const item of list) {
    const x = obj(item);
    if (!x) continue;
    const run = obj(first(x, ['testRun', 'run'])) ?? {};
    const prNumber = int(first(x, ['prNumber', 'number']));
    const runId = str(first(x, ['testRunId', 'runId'])) ?? str(run.id);
    const finishedAt =
      timeOf(first(x, ['completedAt', 'finishedAt', 'endedAt'])) ?? timeOf(first(run, ['completedAt', 'finishedAt']));
    let startedAt = timeOf(first(x, ['createdAt', 'startedAt'])) ?? timeOf(first(run, ['createdAt', 'startedAt']));
    const seconds = first(x, ['durationSeconds', 'duration']);
    const ms = x.testingDurationMs;
    if (startedAt === null && finishedAt !== null && typeof ms === 'number') startedAt = finishedAt - ms;
    if (startedAt === null && finishedAt !== null && typeof seconds === 'number')
      startedAt = finishedAt - seconds * 1000;
    const result = resultOf(x) ?? resultOf(run);
    if (prNumber === null || !runId || finishedAt === null || startedAt === null || !result) continue;
    const b = first(x, ['bisection', 'isBisection']) ?? run.isBisection;
    const bisection = b === true || b === 'in_bisection' || /-bisection$/.test(runId);
    const sha = str(first(x, ['prSha', 'sha']));
    attempts.push({ runId, prNumber, startedAt, finishedAt, result, bisection, ...(sha ? { sha } : {}) });
  }
  const total = int(first(o, ['totalItems', 'total', 'totalCount']));
  return { attempts, items: list.length, total };
}

/** A concluded PR from a listPullRequests entry; `submittedAt` when the entry carries it. */
export function concludedOf(entry: unknown): ConcludedPr | null {
  const o = obj(entry);
  if (!o) return null;
  const number = int(first(o, ['prNumber', 'number']));
  const state = str(o.state)?.toLowerCase();
  const concludedAt = timeOf(first(o, ['concludedAt', 'stateChangedAt']));
  if (number === null || !state || !isTerminal(state) || concludedAt === null) return null;
  const submittedAt = timeOf(first(o, ['submittedAt', 'enqueuedAt', 'queuedAt']));
  const sha = str(first(o, ['prSha', 'sha']));
  return { number, state, submittedAt, concludedAt, sha };
}
