/**
 * Request schemas of the emulator's API. They follow the spec's bounds and the live service's
 * leniency: enums in any case, `pr.number` also as a numeric string (Trunk's own upload script
 * sends it that way), unknown fields ignored. Every check carries a message written for people, and
 * `describeIssues` prefixes it with the field path: `pr.number: expected integer 0..4294967295`.
 */
import { z } from 'zod';

import { MAX_U32 } from '../engine/config.js';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PR_STATES,
  QUEUE_MODES,
  REQUESTABLE_QUEUE_STATES,
  RUN_OUTCOMES,
} from '../engine/types.js';

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const numeric = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);

const str = () => z.string({ error: 'expected a string' });
const nonEmpty = () => str().min(1, { error: 'expected a non-empty string' });
const bool = () => z.boolean({ error: 'expected true or false' });
function int(min: number, max: number) {
  const error = `expected integer ${min}..${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}
function oneOf<T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(lower, z.enum(values, { error: `expected one of ${values.join(', ')}` }));
}
const obj = <S extends z.ZodRawShape>(shape: S) => z.object(shape, { error: 'expected an object' });

const repo = obj({ host: nonEmpty(), owner: nonEmpty(), name: nonEmpty() });
const queueRef = { repo, targetBranch: nonEmpty() };
const prNumber = (min = 0) => z.preprocess(numeric, int(min, MAX_U32));
const prRef = { ...queueRef, pr: obj({ number: prNumber() }) };

export const queueRequest = obj(queueRef);
export const prRequest = obj(prRef);

const PRIORITY_ERROR = 'expected one of urgent, high, medium, low or an integer 0..255';
export const submitRequest = obj({
  ...prRef,
  priority: z
    .preprocess(
      (v) => numeric(lower(v)),
      z.union(
        [
          z.int({ error: PRIORITY_ERROR }).min(0, { error: PRIORITY_ERROR }).max(255, { error: PRIORITY_ERROR }),
          z.enum(['urgent', 'high', 'medium', 'low'], { error: PRIORITY_ERROR }),
          z.null(),
        ],
        { error: PRIORITY_ERROR },
      ),
    )
    .optional(),
  noBatch: bool().optional(),
});

export const impactedTargetsRequest = obj({
  ...queueRef,
  pr: obj({ number: prNumber(1), sha: nonEmpty() }),
  impactedTargets: z.union(
    [
      // "IMPACTS_ALL" is the 2024 spelling of the same thing (trunk-wire §1.5).
      z.enum(['ALL', 'IMPACTS_ALL']).transform(() => 'ALL' as const),
      z.array(str(), { error: 'expected "ALL" or an array of strings' }),
    ],
    { error: 'expected "ALL" or an array of strings' },
  ),
});

export const testingDetailsRequest = obj({ ...queueRef, testRunId: nonEmpty() });

export const createQueueRequest = obj({
  ...queueRef,
  mode: oneOf(QUEUE_MODES).optional(),
  concurrency: int(1, MAX_U32).optional(),
});

export const updateQueueRequest = obj({
  ...queueRef,
  state: oneOf(REQUESTABLE_QUEUE_STATES).optional(),
  mode: oneOf(QUEUE_MODES).optional(),
  concurrency: int(1, MAX_U32).optional(),
  bisectionConcurrency: int(1, MAX_U32).optional(),
  testingTimeoutMinutes: int(1, MAX_U32).optional(),
  // 0 accepted: it is the default the live service reports (trunk-wire §8 Q3).
  pendingFailureDepth: int(0, MAX_U32).optional(),
  batchingMaxWaitTimeMinutes: int(0, MAX_U32).optional(),
  batchingMinSize: int(1, MAX_U32).optional(),
  canOptimisticallyMerge: bool().optional(),
  batch: bool().optional(),
  createPrsForTestingBranches: bool().optional(),
  commentsEnabled: bool().optional(),
  commandsEnabled: bool().optional(),
  statusCheckEnabled: bool().optional(),
  directMergeMode: oneOf(DIRECT_MERGE_MODES).optional(),
  optimizationMode: oneOf(OPTIMIZATION_MODES).optional(),
  mergeMethod: oneOf(MERGE_METHODS).optional(),
  requiredStatuses: z.array(str(), { error: 'expected an array of strings' }).optional(),
  deleteRequiredStatuses: bool().optional(),
  extensionEnabled: bool().optional(),
  enqueueingLabel: str().nullable().optional(),
  labelCommandsEnabled: bool().optional(),
  stateLabelsEnabled: bool().optional(),
});

export const listPullRequestsRequest = obj({
  ...queueRef,
  state: oneOf(PR_STATES).optional(),
  since: str()
    .refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO-8601 date-time' })
    .optional(),
  cursor: nonEmpty().optional(),
  take: int(1, 100).optional(),
});

// ---- control API ---------------------------------------------------------------------------------

export const fakePrRequest = obj({
  repo,
  number: prNumber(),
  title: str().optional(),
  author: str().optional(),
  sha: nonEmpty().optional(),
  baseBranch: nonEmpty().optional(),
  mergeable: bool().optional(),
  breaksBuild: bool().optional(),
  outcomes: z.array(oneOf(RUN_OUTCOMES), { error: 'expected an array of "pass", "fail", "hang"' }).optional(),
  testMinutes: z
    .number({ error: 'expected a number of minutes greater than 0' })
    .positive({ error: 'expected a number of minutes greater than 0' })
    .optional(),
  upToDate: bool().optional(),
});

export const advanceRequest = obj({
  minutes: z
    .number({ error: 'expected a number of minutes, 0 or more' })
    .min(0, { error: 'expected a number of minutes, 0 or more' })
    .max(1e9, { error: 'expected a number of minutes, at most 1000000000' }),
});

export const completeRunRequest = obj({ result: oneOf(['passed', 'failed'] as const) });

// ---- messages --------------------------------------------------------------------------------------

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let cur = body;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** One line naming each offending field (at most three), e.g. `repo.owner: required`. */
export function describeIssues(error: z.ZodError, body: unknown): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join('.');
    if (path === '') return 'request body: expected a JSON object';
    const missing = issue.code === 'invalid_type' && valueAt(body, issue.path) === undefined;
    return `${path}: ${missing ? 'required' : issue.message}`;
  });
  return parts.join('; ');
}
