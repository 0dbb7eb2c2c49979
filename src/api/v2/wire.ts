// v2 answers, decoded leniently (unknown fields and enum values kept), and mapped onto the records
// mq's commands and library already speak (src/api/schemas.ts): camelCase enums become mq's
// lower-case words, `queueEntry` fields come up to the record, `allowBatching` becomes `noBatch`.
// The v2 schemas here and beside are built on first use: a v1 command line builds none of them
// (bench/status.mjs).
import * as z from 'zod/mini';
import type { QueueEntry, SubmittedPullRequest } from '../schemas.js';

export const str = z.nullish(z.string());
export const num = z.nullish(z.number());
export const bool = z.nullish(z.boolean());

/** `pendingFailure` -> `pending_failure`; a value mq does not know is carried in the same spelling. */
export function snake(value: string): string {
  return value.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).toLowerCase();
}

export const queueEntrySchema = z.lazy(() =>
  z.looseObject({
    id: str,
    mergeQueueId: str,
    state: str,
    stateChangedAt: str,
    priorityValue: num,
    priorityName: str,
    usedDefaultPriorityName: str,
    skipsTheLine: bool,
    allowBatching: bool,
    direct: bool,
    verifiedByVerificationRunId: str,
    readiness: z.nullish(
      z.looseObject({
        hasImpactedTargets: bool,
        requiresImpactedTargets: bool,
        doesBaseBranchMatch: bool,
        mergeability: str,
      }),
    ),
  }),
);

export const pullRequestSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    repositoryId: str,
    number: z.number(),
    title: str,
    branch: str,
    sha: str,
    baseBranch: str,
    author: str,
    isCurrentlySubmittedToQueue: bool,
    queueEntry: z.nullish(queueEntrySchema),
  }),
);
export type V2PullRequest = z.infer<typeof pullRequestSchema>;

export const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.looseObject({ data: z.array(item), nextCursor: str, hasMore: bool, total: num });

export const idList = z.lazy(() => pageOf(z.looseObject({ id: z.string() })));
export const pullRequestList = z.lazy(() => pageOf(pullRequestSchema));

const lowerOrNull = (v: string | null | undefined) => (v == null ? v : snake(v));

/** A v2 PR as the v1-shaped record the commands print (`--json` keeps its field names). */
export function prRecord(pr: V2PullRequest): SubmittedPullRequest {
  const e = pr.queueEntry;
  const r = e?.readiness;
  return {
    id: e?.id ?? null,
    state: lowerOrNull(e?.state),
    stateChangedAt: e?.stateChangedAt ?? null,
    priorityValue: e?.priorityValue ?? null,
    priorityName: lowerOrNull(e?.priorityName),
    usedDefaultPriorityName: lowerOrNull(e?.usedDefaultPriorityName),
    skipTheLine: e?.skipsTheLine ?? null,
    noBatch: e?.allowBatching == null ? null : !e.allowBatching,
    prNumber: pr.number,
    prTitle: pr.title ?? null,
    prSha: pr.sha ?? null,
    prBaseBranch: pr.baseBranch ?? null,
    prAuthor: pr.author ?? null,
    forceEnqueued: e?.direct ?? null,
    isCurrentlySubmittedToQueue: pr.isCurrentlySubmittedToQueue ?? null,
    readiness: r
      ? {
          hasImpactedTargets: r.hasImpactedTargets ?? null,
          requiresImpactedTargets: r.requiresImpactedTargets ?? null,
          doesBaseBranchMatch: r.doesBaseBranchMatch ?? null,
          gitHubMergeability: lowerOrNull(r.mergeability),
        }
      : null,
    verifiedByTestRun: e?.verifiedByVerificationRunId ?? null,
  };
}

/** A listed PR as v1's queue entry (no readiness, no forceEnqueued). */
export function entryOf(pr: V2PullRequest): QueueEntry {
  const r = prRecord(pr);
  return {
    id: r.id,
    state: r.state,
    stateChangedAt: r.stateChangedAt,
    priorityValue: r.priorityValue,
    priorityName: r.priorityName,
    usedDefaultPriorityName: r.usedDefaultPriorityName,
    skipTheLine: r.skipTheLine,
    noBatch: r.noBatch,
    prNumber: r.prNumber,
    prTitle: r.prTitle,
    prSha: r.prSha,
    prBaseBranch: r.prBaseBranch,
    prAuthor: r.prAuthor,
  };
}
