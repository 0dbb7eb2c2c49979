/**
 * Schemas and types of the v1 endpoints that hold history (trunk-wire.md §1.4, §1.6, §1.15):
 * requests strict (the service's bounds), responses lenient as everywhere in the client — unknown
 * fields kept, absent or null fields tolerated, states read case-insensitively. Timeline reasons are
 * lowercase in v1 (`prerequisite_merge_item_failed`) and uppercase in webhooks; they are decoded to
 * the uppercase spelling, so callers compare them with one vocabulary (`BISECTION_REQUIRED`).
 */
import { z } from 'zod';

import { MAX_U32, PR_STATES } from './constants.js';
import { queueEntrySchema, repoRef, submittedPullRequestSchema } from './schemas.js';

/** getSubmittedPullRequests takes at most this many PRs per call. */
export const MAX_PRS_PER_LOOKUP = 50;
/** listMergeQueueTestingResults covers at most this many days per call (the service keeps 45). */
export const MAX_TESTING_WINDOW_DAYS = 45;

// ---- requests ----------------------------------------------------------------------------------

const queueTarget = { repo: repoRef, targetBranch: z.string().min(1).max(255) };
const prNumber = z.int().min(0).max(MAX_U32);
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO-8601 date-time' });

export const getPullRequestWithTimelineRequest = z.object({
  ...queueTarget,
  pr: z.object({ number: prNumber }),
  includeTimeline: z.boolean().optional(),
});
export type GetPullRequestWithTimelineRequest = z.infer<typeof getPullRequestWithTimelineRequest>;

export const getPullRequestsRequest = z.object({
  ...queueTarget,
  prs: z
    .array(z.object({ number: prNumber }))
    .min(1)
    .max(MAX_PRS_PER_LOOKUP),
  includeTimeline: z.boolean().optional(),
});
export type GetPullRequestsRequest = z.infer<typeof getPullRequestsRequest>;

export const testingResultsRequest = z
  .object({
    ...queueTarget,
    since: isoTime.optional(),
    until: isoTime.optional(),
    offset: z.int().min(0).max(MAX_U32).optional(),
    take: z.int().min(1).max(100).optional(),
  })
  .refine(
    (r) =>
      r.since === undefined ||
      r.until === undefined ||
      (Date.parse(r.since) <= Date.parse(r.until) && Date.parse(r.until) - Date.parse(r.since) <= MAX_TESTING_WINDOW_DAYS * 86_400_000),
    { error: `expected since <= until, at most ${MAX_TESTING_WINDOW_DAYS} days apart`, path: ['since'] },
  );
export type TestingResultsRequest = z.infer<typeof testingResultsRequest>;

export const listConcludedPullRequestsRequest = z.object({
  ...queueTarget,
  state: z.enum(PR_STATES).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  cursor: z.string().optional(),
  take: z.int().min(1).max(100).optional(),
});
export type ListConcludedPullRequestsRequest = z.infer<typeof listConcludedPullRequestsRequest>;

// ---- responses ---------------------------------------------------------------------------------

const lower = z.string().transform((s) => s.toLowerCase());
const upper = z.string().transform((s) => s.toUpperCase());
const str = z.string().nullish();
const num = z.number().nullish();
const bool = z.boolean().nullish();

const testedPullRequest = z.looseObject({ prNumber: num, prUrl: str, title: str });

/** The test run a timeline item concerns. */
export const timelineRunSchema = z.looseObject({
  id: str,
  branch: str,
  sha: str,
  status: lower.nullish(),
  isBisection: bool,
  requiredStatuses: z.array(z.string()).nullish(),
  testedPullRequests: z.array(testedPullRequest).nullish(),
});

/**
 * One transition. v1 puts the reason in a per-state object (`notReady.reason`, `failure.reason`,
 * `testsPassed.testRunId`, …); the emulator also sends it flat. `reason` and `testRunId` are filled
 * from whichever is present.
 */
export const timelineItemSchema = z.preprocess(
  flattenTimelineItem,
  z.looseObject({
    timestamp: str,
    state: lower.nullish(),
    reason: upper.nullish(),
    testRunId: str,
    testRun: timelineRunSchema.nullish(),
    failureCausingStatuses: z.array(z.string()).nullish(),
  }),
);
export type TimelineItem = z.infer<typeof timelineItemSchema>;

const STATE_KEYS = ['notReady', 'pending', 'testing', 'testsPassed', 'pendingFailure', 'failure', 'cancellation', 'merged'];

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

export const pullRequestWithTimelineSchema = submittedPullRequestSchema.extend({
  timeline: z.array(timelineItemSchema).nullish(),
});
export type PullRequestWithTimeline = z.infer<typeof pullRequestWithTimelineSchema>;

/** notFound entries: `{ number }` (what the emulator sends) or a bare number. */
const notFoundEntry = z.union([z.number().transform((number) => ({ number })), z.looseObject({ number: num })]);

export const pullRequestsLookupSchema = z.looseObject({
  pullRequests: z.array(pullRequestWithTimelineSchema).nullish(),
  notFound: z.array(notFoundEntry).nullish(),
});
export type PullRequestsLookup = z.infer<typeof pullRequestsLookupSchema>;

export const testingResultSchema = z.looseObject({
  testRunId: str,
  testBranch: str,
  prNumber: num,
  startedAt: str,
  completedAt: str,
  testingDurationMs: num,
  /** passed, failed, timed_out or cancelled. */
  outcome: lower.nullish(),
  failureReason: upper.nullish(),
  /** How the PR's trip ended: merged, failed, cancelled; null while it is still in the queue. */
  cycleConclusion: lower.nullish(),
  /** in_bisection (a bisection run) or entered_bisection (the run whose failure started one). */
  bisection: lower.nullish(),
  isBisection: bool,
  startedBisection: bool,
});
export type TestingResult = z.infer<typeof testingResultSchema>;

export const testingResultsPageSchema = z.looseObject({
  testingResults: z.array(testingResultSchema).nullish(),
  totalItems: num,
});
export type TestingResultsPage = z.infer<typeof testingResultsPageSchema>;

export const concludedPullRequestPageSchema = z.looseObject({
  pullRequests: z.array(queueEntrySchema).nullish(),
  nextCursor: str,
});

// ---- helpers -----------------------------------------------------------------------------------

/** v1 sends the newest transition first; this gives them oldest first (stable for equal times). */
export function chronological(timeline: readonly TimelineItem[]): TimelineItem[] {
  const at = (t: TimelineItem) => (t.timestamp ? Date.parse(t.timestamp) : Number.NaN);
  return timeline
    .map((t, i) => ({ t, i }))
    .sort((a, b) => {
      const d = at(a.t) - at(b.t);
      return Number.isNaN(d) || d === 0 ? b.i - a.i : d;
    })
    .map((x) => x.t);
}

/** Whether a testing result was a bisection run or the run whose failure started one. */
export function bisectionRole(r: TestingResult): 'in_bisection' | 'entered_bisection' | null {
  if (r.bisection === 'in_bisection' || r.isBisection) return 'in_bisection';
  if (r.bisection === 'entered_bisection' || r.startedBisection) return 'entered_bisection';
  return null;
}
