// Schemas of the v1 history endpoints (trunk-wire §1.4, §1.6, §1.15): strict requests, lenient answers.
// Timeline reasons (lowercase in v1, uppercase in webhooks) decode to the uppercase spelling.
import * as z from 'zod/mini';

import { MAX_U32, PR_STATES } from '../domain/vocabulary.js';
import { queueEntrySchema, repoRef, submittedPullRequestSchema } from './schemas.js';

/** getSubmittedPullRequests takes at most this many PRs per call. */
export const MAX_PRS_PER_LOOKUP = 50;
/** listMergeQueueTestingResults covers at most this many days per call (the service keeps 45). */
export const MAX_TESTING_WINDOW_DAYS = 45;

// ---- requests ----------------------------------------------------------------------------------

const queueTarget = { repo: repoRef, targetBranch: z.string().check(z.minLength(1), z.maxLength(255)) };
const prNumber = z.int().check(z.gte(0), z.lte(MAX_U32));
const isoTime = z
  .string()
  .check(z.refine((s: string) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO-8601 date-time' }));

export const getPullRequestWithTimelineRequest = z.object({
  ...queueTarget,
  pr: z.object({ number: prNumber }),
  includeTimeline: z.optional(z.boolean()),
});
export type GetPullRequestWithTimelineRequest = z.infer<typeof getPullRequestWithTimelineRequest>;

export const getPullRequestsRequest = z.lazy(() =>
  z.object({
    ...queueTarget,
    prs: z.array(z.object({ number: prNumber })).check(z.minLength(1), z.maxLength(MAX_PRS_PER_LOOKUP)),
    includeTimeline: z.optional(z.boolean()),
  }),
);
export type GetPullRequestsRequest = z.infer<typeof getPullRequestsRequest>;

export const testingResultsRequest = z.lazy(() =>
  z
    .object({
      ...queueTarget,
      since: z.optional(isoTime),
      until: z.optional(isoTime),
      offset: z.optional(z.int().check(z.gte(0), z.lte(MAX_U32))),
      take: z.optional(z.int().check(z.gte(1), z.lte(100))),
    })
    .check(
      z.refine(
        (r: { since?: string; until?: string }) =>
          r.since === undefined ||
          r.until === undefined ||
          (Date.parse(r.since) <= Date.parse(r.until) &&
            Date.parse(r.until) - Date.parse(r.since) <= MAX_TESTING_WINDOW_DAYS * 86_400_000),
        { error: `expected since <= until, at most ${MAX_TESTING_WINDOW_DAYS} days apart`, path: ['since'] },
      ),
    ),
);
export type TestingResultsRequest = z.infer<typeof testingResultsRequest>;

export const listConcludedPullRequestsRequest = z.lazy(() =>
  z.object({
    ...queueTarget,
    state: z.optional(z.enum(PR_STATES)),
    since: z.optional(isoTime),
    until: z.optional(isoTime),
    cursor: z.optional(z.string()),
    take: z.optional(z.int().check(z.gte(1), z.lte(100))),
  }),
);
export type ListConcludedPullRequestsRequest = z.infer<typeof listConcludedPullRequestsRequest>;

// ---- responses ---------------------------------------------------------------------------------

const lower = z.pipe(
  z.string(),
  z.transform((s: string) => s.toLowerCase()),
);
const upper = z.pipe(
  z.string(),
  z.transform((s: string) => s.toUpperCase()),
);
const str = z.nullish(z.string());
const num = z.nullish(z.number());
const bool = z.nullish(z.boolean());

const testedPullRequest = z.looseObject({ prNumber: num, prUrl: str, title: str });

/** The test run a timeline item concerns. */
export const timelineRunSchema = z.looseObject({
  id: str,
  branch: str,
  sha: str,
  status: z.nullish(lower),
  isBisection: bool,
  requiredStatuses: z.nullish(z.array(z.string())),
  testedPullRequests: z.nullish(z.array(testedPullRequest)),
});

/** One transition; `reason`/`testRunId` come from v1's per-state object or the emulator's flat fields. */
export const timelineItemSchema = z.pipe(
  z.transform(flattenTimelineItem),
  z.looseObject({
    timestamp: str,
    state: z.nullish(lower),
    reason: z.nullish(upper),
    testRunId: str,
    testRun: z.nullish(timelineRunSchema),
    failureCausingStatuses: z.nullish(z.array(z.string())),
  }),
);
export type TimelineItem = z.infer<typeof timelineItemSchema>;

/** v1 puts a transition's details in an object named after its state (`failure.reason`, `testsPassed.testRunId`). */
export const STATE_KEYS = [
  'notReady',
  'pending',
  'testing',
  'testsPassed',
  'pendingFailure',
  'failure',
  'cancellation',
  'merged',
];

function flattenTimelineItem(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const item = { ...(input as Record<string, unknown>) };
  for (const key of STATE_KEYS) {
    const detail = item[key];
    if (!detail || typeof detail !== 'object' || Array.isArray(detail)) continue;
    const d = detail as Record<string, unknown>;
    if (item.reason === undefined && typeof d.reason === 'string') item.reason = d.reason;
    if (item.testRunId === undefined && typeof d.testRunId === 'string') item.testRunId = d.testRunId;
    if (item.failureCausingStatuses === undefined && Array.isArray(d.failureCausingStatuses)) {
      item.failureCausingStatuses = d.failureCausingStatuses;
    }
  }
  return item;
}

export const pullRequestWithTimelineSchema = z.extend(submittedPullRequestSchema, {
  timeline: z.nullish(z.array(timelineItemSchema)),
});
export type PullRequestWithTimeline = z.infer<typeof pullRequestWithTimelineSchema>;

/** notFound entries: `{ number }` (what the emulator sends) or a bare number. */
const notFoundEntry = () =>
  z.union([
    z.pipe(
      z.number(),
      z.transform((number: number) => ({ number })),
    ),
    z.looseObject({ number: num }),
  ]);

export const pullRequestsLookupSchema = z.lazy(() =>
  z.looseObject({
    pullRequests: z.nullish(z.array(pullRequestWithTimelineSchema)),
    notFound: z.nullish(z.array(notFoundEntry())),
  }),
);
export type PullRequestsLookup = z.infer<typeof pullRequestsLookupSchema>;

export const testingResultSchema = z.lazy(() =>
  z.looseObject({
    testRunId: str,
    testBranch: str,
    prNumber: num,
    startedAt: str,
    completedAt: str,
    testingDurationMs: num,
    /** passed, failed, timed_out or cancelled. */
    outcome: z.nullish(lower),
    failureReason: z.nullish(upper),
    /** How the PR's trip ended: merged, failed, cancelled; null while it is still in the queue. */
    cycleConclusion: z.nullish(lower),
    /** in_bisection (a bisection run) or entered_bisection (the run whose failure started one). */
    bisection: z.nullish(lower),
    isBisection: bool,
    startedBisection: bool,
  }),
);
export type TestingResult = z.infer<typeof testingResultSchema>;

export const testingResultsPageSchema = z.lazy(() =>
  z.looseObject({
    testingResults: z.nullish(z.array(testingResultSchema)),
    totalItems: num,
  }),
);
export type TestingResultsPage = z.infer<typeof testingResultsPageSchema>;

export const concludedPullRequestPageSchema = z.lazy(() =>
  z.looseObject({
    pullRequests: z.nullish(z.array(queueEntrySchema)),
    nextCursor: str,
  }),
);

// ---- helpers -----------------------------------------------------------------------------------

/** Newest first by time; ties (whole seconds, a still clock) keep the service's (newest-first) order. */
export function newestFirst<T>(items: readonly T[], at: (item: T) => number): T[] {
  return items
    .map((item, i) => ({ item, i, at: at(item) }))
    .sort((a, b) => {
      const d = b.at - a.at;
      return Number.isNaN(d) || d === 0 ? a.i - b.i : d;
    })
    .map((x) => x.item);
}

/** The timeline oldest first: `newestFirst` reversed. */
export function chronological(timeline: readonly TimelineItem[]): TimelineItem[] {
  return newestFirst(timeline, (t) => (t.timestamp ? Date.parse(t.timestamp) : Number.NaN)).reverse();
}

/** Whether a testing result was a bisection run or the run whose failure started one. */
export function bisectionRole(r: TestingResult): 'in_bisection' | 'entered_bisection' | null {
  if (r.bisection === 'in_bisection' || r.isBisection) return 'in_bisection';
  if (r.bisection === 'entered_bisection' || r.startedBisection) return 'entered_bisection';
  return null;
}
