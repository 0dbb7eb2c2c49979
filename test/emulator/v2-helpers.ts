/**
 * v2 test helpers: strict schemas written from Trunk's published field lists (unknown fields
 * refused), an emulator with a full key and a read-only key, and request helpers.
 */
import { expect } from 'vitest';
import { z } from 'zod';

import type { RunningEmulator, StartEmulatorOptions } from '../../src/emulator/index.js';
import { PERMISSIONS } from '../../src/emulator/http/v2/auth.js';
import { startTestEmulator, type Client } from './http-helpers.js';

export const KEY = 'trunk_v2_test0123456789';
export const READER = 'trunk_v2_reader0123456789';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isoTime = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

export const Readiness = z.strictObject({
  requiresImpactedTargets: z.boolean(),
  hasImpactedTargets: z.optional(z.boolean()),
  doesBaseBranchMatch: z.boolean(),
  mergeability: z.enum(['mergeable', 'notMergeable', 'inProgress', 'unspecified']),
});
export const QueueEntry = z.strictObject({
  id: z.string(),
  mergeQueueId: z.string(),
  state: z.enum(['notReady', 'pending', 'testing', 'testsPassed', 'merged', 'failed', 'cancelled', 'pendingFailure']),
  stateChangedAt: isoTime,
  priorityValue: z.optional(z.int()),
  priorityName: z.optional(z.string()),
  usedDefaultPriorityName: z.optional(z.string()),
  skipsTheLine: z.boolean(),
  allowBatching: z.boolean(),
  direct: z.boolean(),
  verifiedByVerificationRunId: z.optional(z.string()),
  readiness: Readiness,
  createdAt: isoTime,
  updatedAt: isoTime,
});
export const PullRequest = z.strictObject({
  id: z.string().regex(UUID),
  repositoryId: z.string().regex(UUID),
  number: z.int(),
  title: z.string(),
  branch: z.string(),
  sha: z.string(),
  baseBranch: z.string(),
  author: z.string(),
  url: z.optional(z.string()),
  state: z.optional(z.enum(['open', 'closed', 'merged'])),
  isCurrentlySubmittedToQueue: z.boolean(),
  queueEntry: z.optional(QueueEntry),
  createdAt: isoTime,
});
export const Config = z.strictObject({
  concurrency: z.int(),
  bisectionConcurrency: z.int(),
  pendingFailureDepth: z.int(),
  canOptimisticallyMerge: z.boolean(),
  allowBatching: z.boolean(),
  batchingMaxWaitTimeMinutes: z.int(),
  batchingMinSize: z.int(),
  testingTimeoutMinutes: z.int(),
  notReadyTimeoutMinutes: z.int(),
  createsPrsForTestingBranches: z.boolean(),
  areCommentsEnabled: z.boolean(),
  areCommandsEnabled: z.boolean(),
  isStatusCheckEnabled: z.boolean(),
  isExtensionEnabled: z.boolean(),
  areLabelCommandsEnabled: z.boolean(),
  areStateLabelsEnabled: z.boolean(),
  requiredStatuses: z.array(z.string()).max(100),
  allowedBotSubmitters: z.array(z.string()).max(100),
  batchingRules: z.array(z.strictObject({ targetPattern: z.string(), policy: z.string() })).max(100),
  directMergeMode: z.enum(['off', 'always']),
  optimizationMode: z.enum(['off', 'bisectionSkipRedundantTests']),
  mergeMethod: z.enum(['mergeCommit', 'squash', 'rebase']),
  testBranchConstructionMode: z.enum(['renameTempBranch', 'pushNewBranchFromTemp']),
  enqueueingLabel: z.string(),
});
export const MergeQueue = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9]{8}$/),
  repositoryId: z.string().regex(UUID),
  targetBranch: z.string(),
  state: z.enum(['running', 'paused', 'draining', 'switchingModes']),
  mode: z.enum(['queue', 'graph']),
  managedState: z.enum(['manual', 'terraform', 'terraformWithDrift']),
  createdAt: isoTime,
  updatedAt: isoTime,
  repositoryUrl: z.string(),
  pullRequestsUrl: z.string(),
  htmlUrl: z.optional(z.string()),
  config: Config,
});
export const Repository = z.strictObject({
  id: z.string().regex(UUID),
  provider: z.enum(['github', 'gitlab', 'bitbucket', 'unknown']),
  path: z.string(),
  host: z.nullable(z.string()),
  url: z.string(),
  defaultBranch: z.nullable(z.string()),
  isPrivate: z.nullable(z.boolean()),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export const StateChange = z.strictObject({
  id: z.string(),
  state: z.enum(['running', 'paused', 'draining', 'switchingModes']),
  mode: z.enum(['queue', 'graph']),
  pullRequestsUrl: z.string(),
});
export const list = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    data: z.array(item).max(100),
    nextCursor: z.nullable(z.string()),
    hasMore: z.boolean(),
    total: z.optional(z.int()),
  });
/** Prometheus text exposition 0.0.4: HELP and TYPE lines, `name{labels} value` samples, blank lines. */
export const Exposition = z
  .string()
  .regex(/^(?:(?:# (?:HELP|TYPE) [a-zA-Z_:][\w:]* [^\n]*|[a-zA-Z_:][\w:]*(?:\{[^}\n]*\})? [^\s]+|)\n)*$/);
/** A 202 or 204 answer: no body. */
export const NoBody = z.undefined();
export const ErrorResponse = z.strictObject({ error: z.strictObject({ code: z.string(), message: z.string() }) });

let emu: RunningEmulator | undefined;
/** Stops the emulator `start` made (call in afterEach). */
export async function stop(): Promise<void> {
  await emu?.close();
  emu = undefined;
}

/** Rate limits are off unless `options` say otherwise (v2-rate-limits.test.ts tests them). */
export async function start(dataDir?: string, options: StartEmulatorOptions = { rateLimits: false }): Promise<Client> {
  const started = await startTestEmulator({
    apiKeys: [
      { name: 'ci', key: KEY, permissions: [...PERMISSIONS] },
      { name: 'dashboard', key: READER, permissions: [] },
    ],
    ...(dataDir ? { dataDir } : {}),
    ...options,
  });
  emu = started.emu;
  return started.client;
}

export function v2(c: Client, method: string, path: string, body?: unknown, key = KEY) {
  return c.request(method, path, body, { 'x-api-token': '', authorization: `Bearer ${key}` });
}

export async function ok<T extends z.ZodType>(
  schema: T,
  answer: Promise<{ status: number; text: string; headers: Headers }>,
  status = 200,
) {
  const a = await answer;
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  return schema.parse(JSON.parse(a.text)) as z.output<T>;
}

export async function fails(
  answer: Promise<{ status: number; text: string; headers: Headers }>,
  status: number,
  code: string,
) {
  const a = await answer;
  expect(a.status, a.text).toBe(status);
  expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(ErrorResponse.parse(JSON.parse(a.text)).error.code).toBe(code);
}

export async function setUp(c: Client) {
  const repos = await ok(
    list(Repository),
    v2(c, 'GET', '/v2/repositories?providerUrl=https://github.com/acme/app.git/'),
  );
  const repo = repos.data[0]!;
  expect(repo).toMatchObject({ provider: 'github', path: 'acme/app', url: 'https://github.com/acme/app' });
  const q = await ok(
    MergeQueue,
    v2(c, 'POST', '/v2/merge-queues', { repositoryId: repo.id, targetBranch: 'main' }),
    201,
  );
  return { repo, q };
}

export const TestingResult = z.strictObject({
  pullRequestNumber: z.int().gt(0),
  endedAt: isoTime,
  testingDurationMs: z.int().gte(0),
  outcome: z.optional(z.enum(['passed', 'failed', 'interrupted', 'cancelled'])),
  entryConclusion: z.optional(z.enum(['merged', 'failed', 'cancelled'])),
  isBisection: z.boolean(),
  startedBisection: z.boolean(),
  verificationRunId: z.optional(z.string()),
});

const Queued = z.strictObject({
  id: z.string().regex(UUID),
  number: z.int(),
  sha: z.string(),
  title: z.string(),
  url: z.optional(z.string()),
});
const EntryState = z.enum([
  'notReady',
  'pending',
  'testing',
  'testsPassed',
  'merged',
  'failed',
  'cancelled',
  'pendingFailure',
]);
export const MergeQueueOrder = z.strictObject({
  mode: z.enum(['queue', 'graph']),
  queueState: z.enum(['running', 'paused', 'draining', 'switchingModes']),
  batchingEnabled: z.boolean(),
  isolationResolved: z.boolean(),
  hasCycle: z.boolean(),
  batches: z.array(
    z.strictObject({
      verificationRunId: z.string(),
      state: EntryState,
      isBisection: z.boolean(),
      pullRequests: z.array(Queued),
    }),
  ),
  pending: z.array(
    z.strictObject({
      pullRequest: Queued,
      schedulability: z.enum(['schedulable', 'heldBehindFailure']),
      predictedBatch: z.optional(z.int()),
      directlyAhead: z.array(Queued),
      heldBy: z.array(Queued),
    }),
  ),
  awaitingAdmission: z.array(Queued),
  awaitingAdmissionTotal: z.int(),
});

export const Transition = z.strictObject({
  pullRequestId: z.string().regex(UUID),
  state: EntryState,
  changedAt: isoTime,
  reason: z.nullable(z.string()),
  verificationRunId: z.optional(z.string()),
});
export const EntryHistory = z.strictObject({
  pullRequestId: z.string().regex(UUID),
  transitions: z.array(Transition),
});

const RunPr = z.strictObject({
  id: z.string().regex(UUID),
  number: z.int(),
  sha: z.string(),
  title: z.string(),
  url: z.optional(z.string()),
});
const TargetSet = z.strictObject({
  impactsAllTargets: z.boolean(),
  impactedTargets: z.array(z.string()).max(100_000),
  totalImpactedTargets: z.int().gte(0),
});
export const VerificationRun = z.strictObject({
  id: z.string(),
  isBisection: z.boolean(),
  testBranch: z.string(),
  testBranchSha: z.string(),
  testBranchCommitUrl: z.optional(z.string()),
  createdAt: isoTime,
  updatedAt: isoTime,
  status: z.enum(['inProgress', 'failed', 'cancelled', 'succeeded']),
  requiredStatusesSource: z.optional(z.enum(['trunkConfig', 'repoProviderBranchProtection', 'mergeInstance'])),
  requiredStatuses: z.array(z.string()),
  checks: z.array(z.never()),
  testedPullRequests: z.array(RunPr),
  dependentPullRequests: z.array(RunPr),
  impactedTargets: z.optional(z.strictObject({ all: TargetSet, testedPullRequestsOnly: z.optional(TargetSet) })),
});

export const MergeGraph = z.strictObject({
  nodes: z.array(
    z.strictObject({
      pullRequestNumber: z.int(),
      title: z.string(),
      author: z.string(),
      state: EntryState,
      priorityValue: z.int(),
      priorityName: z.optional(z.string()),
      skipsTheLine: z.boolean(),
      allowsBatching: z.boolean(),
      verificationRunId: z.optional(z.string()),
      isBisection: z.boolean(),
      impactedTargets: z.optional(z.array(z.string())),
      totalImpactedTargets: z.optional(z.int()),
    }),
  ),
  edges: z.array(
    z.strictObject({
      fromPullRequestNumber: z.int(),
      toPullRequestNumber: z.int(),
      commonImpactedTargets: z.optional(z.array(z.string())),
      totalCommonImpactedTargets: z.optional(z.int()),
    }),
  ),
});
