// Wire schemas: strict requests (spec bounds), lenient answers (unknown fields kept, enums any case,
// nulls tolerated, older names accepted). zod/mini keeps the start-up bundle small; schemas
// a one-PR read does not need are built on first use.
import en from 'zod/v4/locales/en.js';
import * as z from 'zod/mini';

import { MAX_U32, PR_STATES, PRIORITY_NAMES } from '../domain/vocabulary.js';
import {
  QUEUE_SETTINGS,
  SETTING_MAX,
  SETTING_MIN,
  type QueueSetting,
  type QueueSettingInfo,
} from '../domain/queue-settings.js';

// zod's mini API starts without messages; classic zod configures English itself.
z.config(en());

// ---- queue settings, generated from the registry -------------------------------------------------

const positiveU32 = () => z.optional(z.int().check(z.gte(SETTING_MIN), z.lte(SETTING_MAX)));
const requestBool = () => z.optional(z.boolean());
const requestList = () => z.optional(z.array(z.string().check(z.minLength(1))));
function requestEnum<const V extends readonly [string, ...string[]]>(values: V) {
  return z.optional(z.enum(values));
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

function requestSchemaOf(s: QueueSettingInfo): z.ZodMiniType {
  if (s.kind === 'enum') return requestEnum((s.requestValues ?? s.values) as readonly [string, ...string[]]);
  if (s.kind === 'bool') return requestBool();
  if (s.kind === 'list') return requestList();
  return positiveU32();
}

/** The updateQueue request fields, one per setting (built on first use). */
let requestFields: SettingRequestShape | undefined;
export function settingRequestFields(): SettingRequestShape {
  requestFields ??= Object.fromEntries(
    QUEUE_SETTINGS.map((s) => [s.field, requestSchemaOf(s)]),
  ) as unknown as SettingRequestShape;
  return requestFields;
}

/** The createQueue request fields: the settings marked `create`. */
export function createRequestFields() {
  const fields = settingRequestFields();
  return { mode: fields.mode, concurrency: fields.concurrency } satisfies Partial<SettingRequestShape>;
}

// ---- response decoding ---------------------------------------------------------------------------

const responseNum = () => z.nullish(z.number());
const responseBool = () => z.nullish(z.boolean());
const responseList = () => z.nullish(z.array(z.string()));
// Enums are read case-insensitively: the live service is not consistent about case.
const responseEnum = () =>
  z.nullish(
    z.pipe(
      z.string(),
      z.transform((s: string) => s.toLowerCase()),
    ),
  );

type ResponseOf<S> = S extends { kind: 'enum' }
  ? ReturnType<typeof responseEnum>
  : S extends { kind: 'bool' }
    ? ReturnType<typeof responseBool>
    : S extends { kind: 'list' }
      ? ReturnType<typeof responseList>
      : ReturnType<typeof responseNum>;

export type SettingResponseShape = { [S in QueueSetting as S['field']]: ResponseOf<S> };

function responseSchemaOf(s: QueueSettingInfo): z.ZodMiniType {
  if (s.kind === 'enum') return responseEnum();
  if (s.kind === 'bool') return responseBool();
  if (s.kind === 'list') return responseList();
  return responseNum();
}

/** How a queue record's settings are decoded (leniently: absent or null is fine); built on first use. */
export function settingResponseFields(): SettingResponseShape {
  return Object.fromEntries(
    QUEUE_SETTINGS.map((s) => [s.field, responseSchemaOf(s)]),
  ) as unknown as SettingResponseShape;
}

// ---- requests ----------------------------------------------------------------------------------

const nonEmpty = () => z.string().check(z.minLength(1));

export const repoRef = z.object({ host: nonEmpty(), owner: nonEmpty(), name: nonEmpty() });
export type RepoRef = z.infer<typeof repoRef>;

const prNumber = z.int().check(z.gte(0), z.lte(MAX_U32));
const queueTarget = { repo: repoRef, targetBranch: nonEmpty() };
const prTarget = { ...queueTarget, pr: z.object({ number: prNumber }) };

export const queueTargetRequest = z.object(queueTarget);
export const prRequest = z.object(prTarget);
export const submitRequest = z.lazy(() =>
  z.object({
    ...prTarget,
    priority: z.optional(z.union([z.int().check(z.gte(0), z.lte(255)), z.enum(PRIORITY_NAMES)])),
    noBatch: z.optional(z.boolean()),
  }),
);
export const impactedTargetsRequest = z.lazy(() =>
  z.object({
    ...queueTarget,
    // The service's schema has no PR 0 here (the other PR endpoints allow it).
    pr: z.object({ number: z.int().check(z.gte(1), z.lte(MAX_U32)), sha: nonEmpty() }),
    impactedTargets: z.union([z.literal('ALL'), z.array(z.string())]),
  }),
);
export const testingDetailsRequest = z.lazy(() => z.object({ ...queueTarget, testRunId: nonEmpty() }));
export const createQueueRequest = z.lazy(() => z.object({ ...queueTarget, ...createRequestFields() }));

export const updateQueueRequest = z.lazy(() =>
  z.object({ ...queueTarget, ...settingRequestFields(), deleteRequiredStatuses: z.optional(z.boolean()) }),
);
export type UpdateQueueSettings = Omit<z.infer<typeof updateQueueRequest>, 'repo' | 'targetBranch'>;

export const listPullRequestsRequest = z.lazy(() =>
  z.object({
    ...queueTarget,
    state: z.optional(z.enum(PR_STATES)),
    since: z.optional(z.string()),
    cursor: z.optional(z.string()),
    take: z.optional(z.int().check(z.gte(1), z.lte(100))),
  }),
);

// ---- responses ---------------------------------------------------------------------------------

const lower = z.pipe(
  z.string(),
  z.transform((s: string) => s.toLowerCase()),
);
const str = z.nullish(z.string());
const num = z.nullish(z.number());
const bool = z.nullish(z.boolean());

export const readinessSchema = z.looseObject({
  hasImpactedTargets: bool,
  requiresImpactedTargets: bool,
  doesBaseBranchMatch: bool,
  gitHubMergeability: z.nullish(lower),
});

const prCommon = {
  id: str,
  state: z.nullish(lower),
  stateChangedAt: str,
  priorityValue: num,
  priorityName: z.nullish(lower),
  usedDefaultPriorityName: z.nullish(lower),
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
  readiness: z.nullish(readinessSchema),
  verifiedByTestRun: str,
});
export type SubmittedPullRequest = z.infer<typeof submittedPullRequestSchema>;

export const queueEntrySchema = z.looseObject(prCommon);
export type QueueEntry = z.infer<typeof queueEntrySchema>;

/** Reads older setting names (registry `legacy`, `batchingMode`) as today's, which win; old names dropped. */
function renameLegacyQueueFields(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const q = { ...(input as Record<string, unknown>) };
  const absent = (field: string) => q[field] === undefined || q[field] === null;
  for (const s of QUEUE_SETTINGS as readonly QueueSettingInfo[]) {
    for (const old of s.legacy ?? []) {
      if (absent(s.field) && q[old] !== undefined) q[s.field] = q[old];
      delete q[old];
    }
  }
  if (absent('batch') && typeof q.batchingMode === 'string') q.batch = q.batchingMode.toUpperCase() !== 'NONE';
  delete q.batchingMode;
  return q;
}

export const queueSchema = z.lazy(() =>
  z.pipe(
    z.transform(renameLegacyQueueFields),
    z.looseObject({
      branch: str,
      ...settingResponseFields(),
      enqueuedPullRequests: z.nullish(z.array(queueEntrySchema)),
    }),
  ),
);
export type Queue = z.infer<typeof queueSchema>;

/** A queue record read for its order: state, mode, batching and PRs; the other settings are not decoded. */
export const queueOrderSchema = z.lazy(() =>
  z.looseObject({
    state: responseEnum(),
    mode: responseEnum(),
    batch: z.nullish(z.boolean()),
    enqueuedPullRequests: z.nullish(z.array(queueEntrySchema)),
  }),
);

/** A queue record read for its state alone: its PRs (thousands, in a busy queue) are not decoded. */
export const queueStateSchema = z.lazy(() => z.looseObject({ state: responseEnum() }));

export const testingDetailsSchema = z.lazy(() =>
  z.looseObject({
    requiredStatuses: z.nullish(z.array(z.string())),
    requiredStatusesSource: z.nullish(lower),
    testBranch: str,
    testBranchSha: str,
    createdAt: str,
    status: z.nullish(lower),
    checkSuites: z.nullish(
      z.array(
        z.looseObject({
          checkRuns: z.nullish(z.array(z.looseObject({ name: str, url: str, status: str, conclusion: str }))),
        }),
      ),
    ),
    statusChecks: z.nullish(z.array(z.looseObject({ context: str, url: str, state: str }))),
    testedPullRequests: z.nullish(z.array(z.looseObject({ prNumber: num, prUrl: str, title: str }))),
    impactedTargets: z.nullish(z.array(z.string())),
    impactedTargetsForTestedPrs: z.nullish(z.array(z.string())),
    dependentPrs: z.nullish(z.array(z.number())),
  }),
);
export type TestingDetails = z.infer<typeof testingDetailsSchema>;

export const pullRequestPageSchema = z.lazy(() =>
  z.looseObject({
    pullRequests: z.nullish(z.array(queueEntrySchema)),
    nextCursor: str,
  }),
);
export type PullRequestPage = z.infer<typeof pullRequestPageSchema>;
