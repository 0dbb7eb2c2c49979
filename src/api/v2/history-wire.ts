// v2 history answers (queue-entry transitions, testing results) decoded leniently and mapped onto
// v1's records (src/api/history.ts): `changedAt` -> `timestamp`, `failureCausingChecks` -> names,
// `verificationRunId` -> `testRunId`, the PR ahead named by number, testing rows in v1's fields.
import * as z from 'zod/mini';
import type { TestingResult, TimelineItem } from '../history.js';
import { bool, num, pageOf, snake, str } from './wire.js';

const ref = z.lazy(() => z.looseObject({ pullRequestId: str, number: num }));
const refs = z.lazy(() => z.nullish(z.array(ref)));
const check = z.lazy(() => z.union([z.string(), z.looseObject({ name: str })]));
const details = z.lazy(() =>
  z.nullish(
    z.looseObject({
      prerequisitePullRequests: refs,
      waitingFor: refs,
      otherTestedPullRequests: refs,
      failureCausingChecks: z.nullish(z.array(check)),
      eventualFailureReason: str,
    }),
  ),
);

export const transitionSchema = z.lazy(() =>
  z.looseObject({
    pullRequestId: str,
    state: str,
    changedAt: str,
    reason: str,
    verificationRunId: str,
    prerequisitePullRequestId: str,
    pending: details,
    pendingFailure: details,
    testsPassed: details,
    failed: details,
  }),
);
export type V2Transition = z.infer<typeof transitionSchema>;

export const historyPage = z.lazy(() => pageOf(transitionSchema));
export const batchHistoryPage = z.lazy(() =>
  pageOf(z.looseObject({ pullRequestId: z.string(), transitions: z.nullish(z.array(transitionSchema)) })),
);

export const testingResultPage = z.lazy(() =>
  pageOf(
    z.looseObject({
      pullRequestNumber: num,
      endedAt: str,
      testingDurationMs: num,
      outcome: str,
      entryConclusion: str,
      isBisection: bool,
      startedBisection: bool,
      verificationRunId: str,
    }),
  ),
);
type V2TestingResult = z.infer<typeof testingResultPage>['data'][number];

/** The newest transitions kept per PR (as v1 answers: a PR resubmitted all day has thousands). */
export const MAX_TIMELINE_ITEMS = 2000;

/** PR numbers by id, from the refs the transitions carry (the entries ahead, waited for, tested with). */
function numbersById(history: readonly V2Transition[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of history) {
    for (const d of [t.pending, t.pendingFailure, t.testsPassed, t.failed]) {
      for (const r of [...(d?.prerequisitePullRequests ?? []), ...(d?.waitingFor ?? [])]) {
        if (r.pullRequestId && typeof r.number === 'number') out.set(r.pullRequestId, r.number);
      }
    }
  }
  return out;
}

const checkNames = (checks: ReadonlyArray<string | { name?: string | null }>): string[] =>
  checks.flatMap((c) => (typeof c === 'string' ? [c] : c.name ? [c.name] : []));

/** One PR's history (newest first, as asked of the service) as v1's timeline items. */
export function timelineOf(history: readonly V2Transition[]): TimelineItem[] {
  const ahead = numbersById(history);
  return history.slice(0, MAX_TIMELINE_ITEMS).map((t) => {
    const state = t.state == null ? t.state : snake(t.state);
    // v2 gives testing and pendingFailure no reason: v1's (its one testing reason, the failure to come).
    const reason =
      t.reason ?? (state === 'testing' ? 'TEST_RUN_STARTED' : (t.pendingFailure?.eventualFailureReason ?? t.reason));
    const item: TimelineItem = { timestamp: t.changedAt ?? null, state, reason: reason?.toUpperCase() ?? reason };
    if (t.verificationRunId) item.testRunId = t.verificationRunId;
    const checks = (t.failed ?? t.pendingFailure)?.failureCausingChecks;
    if (checks) item.failureCausingStatuses = checkNames(checks);
    else if (state === 'failed') item.failureCausingStatuses = [];
    const n = t.prerequisitePullRequestId ? ahead.get(t.prerequisitePullRequestId) : undefined;
    if (n !== undefined) item.prerequisitePrNumber = n;
    return item;
  });
}

const iso = (ms: number) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null);

/** v2's outcomes in v1's words; `interrupted` (cut short, retried) is what v1 calls cancelled. */
const outcomeOf = (o: string | null | undefined) => (o == null ? o : o === 'interrupted' ? 'cancelled' : snake(o));

/** A testing-results row as v1's (no `testBranch`, `failureReason`: v2 keeps them on the run). */
export function testingResultOf(r: V2TestingResult): TestingResult {
  const ended = r.endedAt ? Date.parse(r.endedAt) : Number.NaN;
  const started = typeof r.testingDurationMs === 'number' ? iso(ended - r.testingDurationMs) : null;
  return {
    testRunId: r.verificationRunId ?? null,
    prNumber: r.pullRequestNumber ?? null,
    startedAt: started,
    completedAt: r.endedAt ?? null,
    testingDurationMs: r.testingDurationMs ?? null,
    outcome: outcomeOf(r.outcome),
    cycleConclusion: r.entryConclusion == null ? null : snake(r.entryConclusion),
    bisection: r.isBisection ? 'in_bisection' : r.startedBisection ? 'entered_bisection' : null,
    isBisection: r.isBisection ?? null,
    startedBisection: r.startedBisection ?? null,
  };
}
