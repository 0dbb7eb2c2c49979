/**
 * Request schemas of the emulator's API. They follow the spec's bounds and the live service's
 * leniency: enums in any case, `pr.number` also as a numeric string (Trunk's own upload script
 * sends it that way), unknown fields ignored. Every check carries a message written for people, and
 * `describeIssues` prefixes it with the field path: `pr.number: expected integer 0..4294967295`.
 */
import { z } from 'zod';

import {
  DIRECT_MERGE_MODES,
  MAX_U32,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PR_STATES,
  PRIORITY_NAMES,
  QUEUE_MODES,
  REQUESTABLE_QUEUE_STATES,
} from '../../domain/vocabulary.js';
import { MAX_BATCH_LOOKUP, RUN_OUTCOMES } from '../engine/index.js';

/**
 * Longest strings accepted (issue 15.6): names of branches and repository parts as code hosts
 * bound them, titles as GitHub does, the rest generously above anything real.
 */
export const LIMITS = {
  name: 255,
  title: 1_024,
  sha: 255,
  testRunId: 512,
  target: 1_024,
  status: 255,
  time: 64,
} as const;

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const numeric = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);

const str = () => z.string({ error: 'expected a string' });
const nonEmpty = () => str().min(1, { error: 'expected a non-empty string' });
/** A string of at most `max` characters (UTF-16 units, as JavaScript counts them). */
const upTo = (max: number) => str().max(max, { error: `expected at most ${max} characters` });
const name = () => nonEmpty().max(LIMITS.name, { error: `expected at most ${LIMITS.name} characters` });
const isoTime = () =>
  upTo(LIMITS.time).refine((v) => !Number.isNaN(Date.parse(v)), { error: 'expected an ISO-8601 date-time' });
const bool = () => z.boolean({ error: 'expected true or false' });
function int(min: number, max: number) {
  const error = `expected integer ${min}..${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}
function oneOf<T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(lower, z.enum(values, { error: `expected one of ${values.join(', ')}` }));
}
const obj = <S extends z.ZodRawShape>(shape: S) => z.object(shape, { error: 'expected an object' });

const repo = obj({ host: name(), owner: name(), name: name() });
const queueRef = { repo, targetBranch: name() };
const prNumber = (min = 0) => z.preprocess(numeric, int(min, MAX_U32));
const prRef = { ...queueRef, pr: obj({ number: prNumber() }) };

export const queueRequest = obj(queueRef);
export const prRequest = obj(prRef);
export const getPullRequestRequest = obj({
  ...prRef,
  includeTimeline: bool().optional(),
  // Accepted and ignored: the emulator makes no estimates.
  includeEstimatedTimeToMerge: bool().optional(),
});
export const getPullRequestsRequest = obj({
  ...queueRef,
  prs: z
    .array(obj({ number: prNumber() }), { error: 'expected an array of {"number": …}' })
    .min(1, { error: 'expected at least one pull request' })
    .max(MAX_BATCH_LOOKUP, { error: `expected at most ${MAX_BATCH_LOOKUP} pull requests` }),
  includeTimeline: bool().optional(),
});
export const testingResultsRequest = obj({
  ...queueRef,
  since: isoTime().optional(),
  until: isoTime().optional(),
  offset: int(0, MAX_U32).optional(),
  take: int(1, 100).optional(),
});

const PRIORITY_ERROR = `expected one of ${PRIORITY_NAMES.join(', ')} or an integer 0..255`;
export const submitRequest = obj({
  ...prRef,
  priority: z
    .preprocess(
      (v) => numeric(lower(v)),
      z.union(
        [
          z.int({ error: PRIORITY_ERROR }).min(0, { error: PRIORITY_ERROR }).max(255, { error: PRIORITY_ERROR }),
          z.enum(PRIORITY_NAMES, { error: PRIORITY_ERROR }),
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
  pr: obj({
    number: prNumber(1),
    sha: nonEmpty().max(LIMITS.sha, { error: `expected at most ${LIMITS.sha} characters` }),
  }),
  impactedTargets: z.union(
    [
      // "IMPACTS_ALL" is the 2024 spelling of the same thing (trunk-wire §1.5).
      z.enum(['ALL', 'IMPACTS_ALL']).transform(() => 'ALL' as const),
      z.array(upTo(LIMITS.target), { error: 'expected "ALL" or an array of strings' }),
    ],
    { error: 'expected "ALL" or an array of strings' },
  ),
});

export const testingDetailsRequest = obj({
  ...queueRef,
  testRunId: nonEmpty().max(LIMITS.testRunId, { error: `expected at most ${LIMITS.testRunId} characters` }),
});

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
  requiredStatuses: z.array(upTo(LIMITS.status), { error: 'expected an array of strings' }).optional(),
  deleteRequiredStatuses: bool().optional(),
  extensionEnabled: bool().optional(),
  enqueueingLabel: upTo(LIMITS.name).nullable().optional(),
  labelCommandsEnabled: bool().optional(),
  stateLabelsEnabled: bool().optional(),
});

export const listPullRequestsRequest = obj({
  ...queueRef,
  state: oneOf(PR_STATES).optional(),
  since: isoTime().optional(),
  until: isoTime().optional(),
  cursor: name().optional(),
  take: int(1, 100).optional(),
});

// ---- control API ---------------------------------------------------------------------------------

export const fakePrRequest = obj({
  repo,
  number: prNumber(),
  title: upTo(LIMITS.title).optional(),
  author: upTo(LIMITS.name).optional(),
  sha: nonEmpty()
    .max(LIMITS.sha, { error: `expected at most ${LIMITS.sha} characters` })
    .optional(),
  branch: name().optional(),
  baseBranch: name().optional(),
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

export const estimatesRequest = obj({ ...queueRef, enabled: bool() });

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
