// v2 queue answers (a queue with `config`, its `/order`, a verification run) decoded leniently and
// mapped onto the v1-shaped records mq prints (src/api/schemas.ts), and v1's updateQueue request
// cut into v2's requests: a config merge patch, a state action, a mode switch.
import * as z from 'zod/mini';
import type { UpdateQueueRequest } from '../client.js';
import { bool, entryOf, num, snake, str, type V2PullRequest } from './wire.js';

export const v2QueueSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    targetBranch: str,
    state: str,
    mode: str,
    config: z.nullish(z.record(z.string(), z.unknown())),
  }),
);
export type V2Queue = z.infer<typeof v2QueueSchema>;

export const stateChangeSchema = z.lazy(() => z.looseObject({ state: str, mode: str }));

const queued = z.lazy(() => z.looseObject({ number: z.number() }));
export const orderSchema = z.lazy(() =>
  z.looseObject({
    batches: z.nullish(z.array(z.looseObject({ pullRequests: z.nullish(z.array(queued)) }))),
    pending: z.nullish(z.array(z.looseObject({ pullRequest: z.nullish(queued) }))),
    awaitingAdmission: z.nullish(z.array(queued)),
  }),
);
export type V2Order = z.infer<typeof orderSchema>;

/** v2 `mode` -> mq's; an unknown word is carried as sent. */
export const v1Mode = (m: string) => (m === 'queue' ? 'single' : m === 'graph' ? 'parallel' : snake(m));
export const v2Mode = (m: string) => (m === 'single' ? 'queue' : m === 'parallel' ? 'graph' : m);
export const camel = (v: string) => v.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** mq's setting field -> v2's config field, where the name changed (the rest keep theirs). */
const RENAMED: Record<string, string> = {
  batch: 'allowBatching',
  createPrsForTestingBranches: 'createsPrsForTestingBranches',
  commentsEnabled: 'areCommentsEnabled',
  commandsEnabled: 'areCommandsEnabled',
  statusCheckEnabled: 'isStatusCheckEnabled',
  extensionEnabled: 'isExtensionEnabled',
  labelCommandsEnabled: 'areLabelCommandsEnabled',
  stateLabelsEnabled: 'areStateLabelsEnabled',
};
/** Settings v2 spells in camelCase (mq: lower snake_case). */
const ENUMS = new Set(['directMergeMode', 'optimizationMode', 'mergeMethod', 'testBranchConstructionMode']);

/** The v1 queue record's settings, in v1's order (extras after the registry's). */
const V1_ORDER = [
  'concurrency',
  'testingTimeoutMinutes',
  'mode',
  'canOptimisticallyMerge',
  'pendingFailureDepth',
  'batch',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'extensionEnabled',
  'bisectionConcurrency',
  'requiredStatuses',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
  'enqueueingLabel',
  'labelCommandsEnabled',
  'stateLabelsEnabled',
  'testBranchConstructionMode',
];

/** A v2 queue's state, settings and branch as v1's record (no entries). */
export function queueSettings(q: V2Queue): Record<string, unknown> {
  const c = q.config ?? {};
  const out: Record<string, unknown> = { state: q.state == null ? q.state : snake(q.state), branch: q.targetBranch };
  for (const field of V1_ORDER) {
    const value = field === 'mode' ? (q.mode == null ? q.mode : v1Mode(q.mode)) : c[RENAMED[field] ?? field];
    if (value === undefined) continue;
    out[field] = ENUMS.has(field) && typeof value === 'string' ? snake(value) : value;
  }
  // v2: 0 shares `concurrency`; v1 reports the concurrency then used.
  if (out.bisectionConcurrency === 0) out.bisectionConcurrency = out.concurrency;
  if (out.enqueueingLabel === '') out.enqueueingLabel = null;
  const notReady = c.notReadyTimeoutMinutes;
  if (typeof notReady === 'number') out.notReadyTimeoutHours = notReady / 60;
  return out;
}

/** PR numbers in queue order: batches' PRs, then pending, then those awaiting admission. */
export function orderNumbers(o: V2Order): number[] {
  return [
    ...(o.batches ?? []).flatMap((b) => (b.pullRequests ?? []).map((p) => p.number)),
    ...(o.pending ?? []).flatMap((p) => (p.pullRequest ? [p.pullRequest.number] : [])),
    ...(o.awaitingAdmission ?? []).map((p) => p.number),
  ];
}

/** v1's getQueue answer (decoded as v1's): settings, then the entries in order (a PR not admitted left out, as v1). */
export function queueRecord(q: V2Queue, order?: V2Order, live?: Map<number, V2PullRequest>): Record<string, unknown> {
  const raw: Record<string, unknown> = queueSettings(q);
  if (order && live) {
    const seen = new Set<number>();
    const entries = [];
    for (const n of orderNumbers(order)) {
      const pr = live.get(n);
      if (pr && !seen.has(n)) entries.push(entryOf(pr));
      seen.add(n);
    }
    raw.enqueuedPullRequests = entries;
  }
  return raw;
}

/** Entry states a queue's order holds (not-ready PRs hold no position). */
export const ADMITTED_STATES = 'pending,testing,testsPassed,pendingFailure';

/** v1's updateQueue request as v2's: a state action, a mode switch and a config merge patch. */
export function updatePlan(req: UpdateQueueRequest): {
  action?: 'pause' | 'resume' | 'drain';
  mode?: string;
  patch: Record<string, unknown>;
} {
  const { repo: _r, targetBranch: _b, state, mode, deleteRequiredStatuses, ...settings } = req;
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    patch[RENAMED[field] ?? field] = ENUMS.has(field) && typeof value === 'string' ? camel(value) : value;
  }
  // v1 ignores an empty list; v2's `[]` clears it, which v1 says with deleteRequiredStatuses.
  if (Array.isArray(patch.requiredStatuses) && patch.requiredStatuses.length === 0) delete patch.requiredStatuses;
  if (deleteRequiredStatuses) patch.requiredStatuses = [];
  const action = state === 'paused' ? 'pause' : state === 'draining' ? 'drain' : state ? 'resume' : undefined;
  return { ...(action ? { action } : {}), ...(mode ? { mode: v2Mode(mode) } : {}), patch };
}

// ---- verification runs -------------------------------------------------------------------------

const prRef = z.lazy(() => z.looseObject({ number: num, url: str, title: str }));
const targetSet = z.lazy(() =>
  z.nullish(z.looseObject({ impactsAllTargets: bool, impactedTargets: z.nullish(z.array(z.string())) })),
);
export const verificationRunSchema = z.lazy(() =>
  z.looseObject({
    requiredStatuses: z.nullish(z.array(z.string())),
    requiredStatusesSource: str,
    testBranch: str,
    testBranchSha: str,
    createdAt: str,
    status: str,
    checks: z.nullish(
      z.array(
        z.looseObject({
          name: str,
          kind: str,
          url: str,
          status: str,
          conclusion: str,
          providerStatus: str,
          providerConclusion: str,
        }),
      ),
    ),
    testedPullRequests: z.nullish(z.array(prRef)),
    dependentPullRequests: z.nullish(z.array(prRef)),
    impactedTargets: z.nullish(z.looseObject({ all: targetSet, testedPullRequestsOnly: targetSet })),
  }),
);
type V2Run = z.infer<typeof verificationRunSchema>;

const targetList = (t: z.infer<typeof targetSet>) =>
  t == null ? undefined : t.impactsAllTargets ? ['ALL'] : [...(t.impactedTargets ?? [])];
const upper = (v: string | null | undefined) => (v == null ? undefined : snake(v).toUpperCase());

/** A verification run as v1's testing details answer: `checks` split back into check runs and statuses. */
export function testingDetails(r: V2Run): Record<string, unknown> {
  const checks = r.checks ?? [];
  const runs = checks
    .filter((c) => c.kind !== 'statusCheck')
    .map((c) => ({
      name: c.name,
      url: c.url,
      status: c.providerStatus ?? upper(c.status),
      ...(c.status === 'completed' ? { conclusion: c.providerConclusion ?? upper(c.conclusion) } : {}),
    }));
  const all = targetList(r.impactedTargets?.all);
  const tested = targetList(r.impactedTargets?.testedPullRequestsOnly);
  return {
    requiredStatuses: r.requiredStatuses ?? [],
    // v1 says trunk_config where v2 gives no source.
    requiredStatusesSource: r.requiredStatusesSource ? snake(r.requiredStatusesSource) : 'trunk_config',
    testBranch: r.testBranch,
    testBranchSha: r.testBranchSha,
    createdAt: r.createdAt,
    status: r.status == null ? r.status : snake(r.status),
    checkSuites: runs.length > 0 ? [{ checkRuns: runs }] : [],
    statusChecks: checks
      .filter((c) => c.kind === 'statusCheck')
      .map((c) => ({ context: c.name, url: c.url, state: c.providerConclusion ?? upper(c.conclusion) })),
    testedPullRequests: (r.testedPullRequests ?? []).map((p) => ({ prNumber: p.number, prUrl: p.url, title: p.title })),
    ...(all ? { impactedTargets: all } : {}),
    ...(tested ? { impactedTargetsForTestedPrs: tested } : {}),
    dependentPrs: (r.dependentPullRequests ?? []).flatMap((p) => (typeof p.number === 'number' ? [p.number] : [])),
  };
}
