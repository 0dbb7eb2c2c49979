/**
 * Wire schemas. Requests are strict (the spec's bounds, lowercase enums); responses are lenient,
 * as the live service is: unknown fields are kept, enums are read case-insensitively, absent or
 * null fields are tolerated, and older field names are accepted where renaming was cheap.
 */
import { z } from 'zod';

import { MAX_U32, PR_STATES, PRIORITY_NAMES } from './constants.js';
import { QUEUE_SETTINGS, SETTING_MAX, SETTING_MIN, type QueueSetting, type QueueSettingInfo } from './queue-settings.js';

// ---- queue settings, generated from the registry -------------------------------------------------

const positiveU32 = () => z.int().min(SETTING_MIN).max(SETTING_MAX).optional();
const requestBool = () => z.boolean().optional();
const requestList = () => z.array(z.string().min(1)).optional();
function requestEnum<const V extends readonly [string, ...string[]]>(values: V) {
  return z.enum(values).optional();
}

type RequestOf<S> = S extends { requestValues: infer V extends readonly [string, ...string[]] }
  ? ReturnType<typeof requestEnum<V>>
  : S extends { kind: 'enum'; values: infer V extends readonly [string, ...string[]] }
    ? ReturnType<typeof requestEnum<V>>
    : S extends { kind: 'bool' }
      ? ReturnType<typeof requestBool>
      : S extends { kind: 'list' }
        ? ReturnType<typeof requestList>
        : ReturnType<typeof positiveU32>;

export type SettingRequestShape = { [S in QueueSetting as S['field']]: RequestOf<S> };

function requestSchemaOf(s: QueueSettingInfo): z.ZodType {
  if (s.kind === 'enum') return requestEnum((s.requestValues ?? s.values) as readonly [string, ...string[]]);
  if (s.kind === 'bool') return requestBool();
  if (s.kind === 'list') return requestList();
  return positiveU32();
}

/** The updateQueue request fields, one per setting. */
export const settingRequestFields = Object.fromEntries(QUEUE_SETTINGS.map((s) => [s.field, requestSchemaOf(s)])) as unknown as SettingRequestShape;

/** The createQueue request fields: the settings marked `create`. */
export const createRequestFields = {
  mode: settingRequestFields.mode,
  concurrency: settingRequestFields.concurrency,
} satisfies Partial<SettingRequestShape>;

// ---- response decoding ---------------------------------------------------------------------------

const responseNum = () => z.number().nullish();
const responseBool = () => z.boolean().nullish();
const responseList = () => z.array(z.string()).nullish();
// Enums are read case-insensitively: the live service is not consistent about case.
const responseEnum = () =>
  z
    .string()
    .transform((s) => s.toLowerCase())
    .nullish();

type ResponseOf<S> = S extends { kind: 'enum' }
  ? ReturnType<typeof responseEnum>
  : S extends { kind: 'bool' }
    ? ReturnType<typeof responseBool>
    : S extends { kind: 'list' }
      ? ReturnType<typeof responseList>
      : ReturnType<typeof responseNum>;

export type SettingResponseShape = { [S in QueueSetting as S['field']]: ResponseOf<S> };

function responseSchemaOf(s: QueueSettingInfo): z.ZodType {
  if (s.kind === 'enum') return responseEnum();
  if (s.kind === 'bool') return responseBool();
  if (s.kind === 'list') return responseList();
  return responseNum();
}

/** How a queue record's settings are decoded (leniently: absent or null is fine). */
export const settingResponseFields = Object.fromEntries(QUEUE_SETTINGS.map((s) => [s.field, responseSchemaOf(s)])) as unknown as SettingResponseShape;

// ---- requests ----------------------------------------------------------------------------------

export const repoRef = z.object({ host: z.string().min(1), owner: z.string().min(1), name: z.string().min(1) });
export type RepoRef = z.infer<typeof repoRef>;

const prNumber = z.int().min(0).max(MAX_U32);
const queueTarget = { repo: repoRef, targetBranch: z.string().min(1) };
const prTarget = { ...queueTarget, pr: z.object({ number: prNumber }) };

export const queueTargetRequest = z.object(queueTarget);
export const prRequest = z.object(prTarget);
export const submitRequest = z.object({
  ...prTarget,
  priority: z.union([z.int().min(0).max(255), z.enum(PRIORITY_NAMES)]).optional(),
  noBatch: z.boolean().optional(),
});
export const impactedTargetsRequest = z.object({
  ...queueTarget,
  pr: z.object({ number: prNumber, sha: z.string().min(1) }),
  impactedTargets: z.union([z.literal('ALL'), z.array(z.string())]),
});
export const testingDetailsRequest = z.object({ ...queueTarget, testRunId: z.string().min(1) });
export const createQueueRequest = z.object({ ...queueTarget, ...createRequestFields });

export const updateQueueFields = {
  ...settingRequestFields,
  deleteRequiredStatuses: z.boolean().optional(),
};
export const updateQueueRequest = z.object({ ...queueTarget, ...updateQueueFields });
export type UpdateQueueSettings = Omit<z.infer<typeof updateQueueRequest>, 'repo' | 'targetBranch'>;

export const listPullRequestsRequest = z.object({
  ...queueTarget,
  state: z.enum(PR_STATES).optional(),
  since: z.string().optional(),
  cursor: z.string().optional(),
  take: z.int().min(1).max(100).optional(),
});

// ---- responses ---------------------------------------------------------------------------------

const lower = z.string().transform((s) => s.toLowerCase());
const str = z.string().nullish();
const num = z.number().nullish();
const bool = z.boolean().nullish();

export const readinessSchema = z.looseObject({
  hasImpactedTargets: bool,
  requiresImpactedTargets: bool,
  doesBaseBranchMatch: bool,
  gitHubMergeability: lower.nullish(),
});

const prCommon = {
  id: str,
  state: lower.nullish(),
  stateChangedAt: str,
  priorityValue: num,
  priorityName: lower.nullish(),
  usedDefaultPriorityName: lower.nullish(),
  skipTheLine: bool,
  noBatch: bool,
  prNumber: num,
  prTitle: str,
  prSha: str,
  prBaseBranch: str,
  prAuthor: str,
};

export const submittedPullRequestSchema = z.looseObject({
  ...prCommon,
  forceEnqueued: bool,
  isCurrentlySubmittedToQueue: bool,
  readiness: readinessSchema.nullish(),
  verifiedByTestRun: str,
});
export type SubmittedPullRequest = z.infer<typeof submittedPullRequestSchema>;

export const queueEntrySchema = z.looseObject(prCommon);
export type QueueEntry = z.infer<typeof queueEntrySchema>;

/** Older deployments used other names for three settings; map them onto today's. */
function renameLegacyQueueFields(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const q = { ...(input as Record<string, unknown>) };
  if (q.testingTimeoutMinutes === undefined && q.testingTimeoutMins !== undefined) q.testingTimeoutMinutes = q.testingTimeoutMins;
  if (q.batchingMaxWaitTimeMinutes === undefined && q.batchingMaxWaitTimeMins !== undefined) q.batchingMaxWaitTimeMinutes = q.batchingMaxWaitTimeMins;
  if (q.batch === undefined && typeof q.batchingMode === 'string') q.batch = q.batchingMode.toUpperCase() !== 'NONE';
  return q;
}

export const queueSchema = z.preprocess(
  renameLegacyQueueFields,
  z.looseObject({
    branch: str,
    ...settingResponseFields,
    enqueuedPullRequests: z.array(queueEntrySchema).nullish(),
  }),
);
export type Queue = z.infer<typeof queueSchema>;

export const testingDetailsSchema = z.looseObject({
  requiredStatuses: z.array(z.string()).nullish(),
  requiredStatusesSource: lower.nullish(),
  testBranch: str,
  testBranchSha: str,
  createdAt: str,
  status: lower.nullish(),
  checkSuites: z.array(z.looseObject({ checkRuns: z.array(z.looseObject({ name: str, url: str, status: str, conclusion: str })).nullish() })).nullish(),
  statusChecks: z.array(z.looseObject({ context: str, url: str, state: str })).nullish(),
  testedPullRequests: z.array(z.looseObject({ prNumber: num, prUrl: str, title: str })).nullish(),
  impactedTargets: z.array(z.string()).nullish(),
  impactedTargetsForTestedPrs: z.array(z.string()).nullish(),
  dependentPrs: z.array(z.number()).nullish(),
});
export type TestingDetails = z.infer<typeof testingDetailsSchema>;

export const pullRequestPageSchema = z.looseObject({
  pullRequests: z.array(queueEntrySchema).nullish(),
  nextCursor: str,
});
export type PullRequestPage = z.infer<typeof pullRequestPageSchema>;
