/** v2 wire shapes (camelCase enums, ids, `queueEntry`) built from the engine's views and records. */
import type { PullRequestView, QueueRecord, RepoRef, TestingResultView } from '../../engine/index.js';
import type { PrState, QueueMode, QueueStateName } from '../../../domain/vocabulary.js';
import { iso } from '../wire.js';
import { OUTCOME } from '../wire-runs.js';
import { pullRequestId, queueId, repositoryId } from './ids.js';

const camel = (s: string): string => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const v2EntryState = (s: PrState): string => camel(s);
export const v2QueueState = (s: QueueStateName): string => camel(s);
export const v2Mode = (m: QueueMode): string => (m === 'single' ? 'queue' : 'graph');
export const v1Mode = (m: string): QueueMode => (m === 'queue' ? 'single' : 'parallel');

const repoUrl = (r: RepoRef): string => `https://${r.host}/${r.owner}/${r.name}`;

function provider(host: string): string {
  if (host === 'github.com' || host.startsWith('github.')) return 'github';
  if (host.includes('gitlab')) return 'gitlab';
  if (host.includes('bitbucket')) return 'bitbucket';
  return 'unknown';
}

export function v2Repository(repo: RepoRef, createdAt: number) {
  return {
    id: repositoryId(repo),
    provider: provider(repo.host),
    path: `${repo.owner}/${repo.name}`,
    host: repo.host === 'github.com' ? null : repo.host,
    url: repoUrl(repo),
    defaultBranch: null,
    isPrivate: null,
    createdAt: iso(createdAt),
    updatedAt: iso(createdAt),
  };
}

export const pullRequestsPath = (q: QueueRecord): string => `/v2/merge-queues/${queueId(q)}/pull-requests`;

export function v2Queue(q: QueueRecord) {
  const c = q.config;
  return {
    id: queueId(q),
    repositoryId: repositoryId(q.repo),
    targetBranch: q.branch,
    state: v2QueueState(q.state),
    mode: v2Mode(c.mode),
    managedState: 'manual',
    createdAt: iso(q.createdAt),
    updatedAt: iso(q.createdAt),
    repositoryUrl: repoUrl(q.repo),
    pullRequestsUrl: pullRequestsPath(q),
    config: {
      concurrency: c.concurrency,
      bisectionConcurrency: c.bisectionConcurrency ?? 0,
      pendingFailureDepth: c.pendingFailureDepth,
      canOptimisticallyMerge: c.canOptimisticallyMerge,
      allowBatching: c.batch,
      batchingMaxWaitTimeMinutes: c.batchingMaxWaitTimeMinutes,
      batchingMinSize: c.batchingMinSize,
      testingTimeoutMinutes: c.testingTimeoutMinutes,
      notReadyTimeoutMinutes: 0,
      createsPrsForTestingBranches: c.createPrsForTestingBranches,
      areCommentsEnabled: c.commentsEnabled,
      areCommandsEnabled: c.commandsEnabled,
      isStatusCheckEnabled: c.statusCheckEnabled,
      isExtensionEnabled: c.extensionEnabled,
      areLabelCommandsEnabled: c.labelCommandsEnabled,
      areStateLabelsEnabled: c.stateLabelsEnabled,
      requiredStatuses: c.requiredStatuses ? [...c.requiredStatuses] : [],
      allowedBotSubmitters: [],
      batchingRules: [],
      directMergeMode: c.directMergeMode,
      optimizationMode: camel(c.optimizationMode),
      mergeMethod: camel(c.mergeMethod),
      testBranchConstructionMode: 'renameTempBranch',
      enqueueingLabel: c.enqueueingLabel ?? '',
    },
  };
}

export function v2StateChange(q: QueueRecord) {
  return {
    id: queueId(q),
    state: v2QueueState(q.state),
    mode: v2Mode(q.config.mode),
    pullRequestsUrl: pullRequestsPath(q),
  };
}

const MERGEABILITY = { mergeable: 'mergeable', not_mergeable: 'notMergeable', unspecified: 'unspecified' } as const;

/**
 * A PR with its entry in queue `q`; times of the entry's first submission come from its history.
 * A list read leaves `hasImpactedTargets` out ("not answered here", per Trunk's Readiness).
 */
export function v2PullRequest(q: QueueRecord, p: PullRequestView, listRead = false) {
  const first = q.entries[String(p.prNumber)]?.history[0]?.[0] ?? p.submittedAt;
  const r = p.readiness;
  return {
    id: pullRequestId(q.repo, p.prNumber),
    repositoryId: repositoryId(q.repo),
    number: p.prNumber,
    title: p.title,
    branch: p.branch,
    sha: p.sha,
    baseBranch: p.baseBranch,
    author: p.author,
    url: `${repoUrl(q.repo)}/pull/${p.prNumber}`,
    state: p.state === 'merged' ? 'merged' : 'open',
    isCurrentlySubmittedToQueue: p.live,
    queueEntry: {
      id: p.id,
      mergeQueueId: queueId(q),
      state: v2EntryState(p.state),
      stateChangedAt: iso(p.stateChangedAt),
      priorityValue: p.priorityValue,
      priorityName: p.priorityName,
      usedDefaultPriorityName: 'medium',
      skipsTheLine: p.priorityValue === 0,
      allowBatching: !p.noBatch,
      direct: false,
      ...(p.verifiedByTestRun ? { verifiedByVerificationRunId: p.verifiedByTestRun } : {}),
      readiness: {
        requiresImpactedTargets: r.requiresImpactedTargets,
        ...(listRead ? {} : { hasImpactedTargets: r.hasImpactedTargets }),
        doesBaseBranchMatch: r.doesBaseBranchMatch,
        mergeability: MERGEABILITY[r.gitHubMergeability],
      },
      createdAt: iso(first),
      updatedAt: iso(p.stateChangedAt),
    },
    createdAt: iso(first),
  };
}

const STAYED = new Set<PrState>(['not_ready', 'pending', 'testing']);

/** A run cut short: `interrupted` if the PR stayed in the queue to be retested, `cancelled` if it left. */
function cutShort(q: QueueRecord, t: TestingResultView): string {
  const h = q.entries[String(t.prNumber)]?.history ?? [];
  const i = h.findLastIndex(([, state, , runId]) => runId === t.run.id && state === 'testing');
  const next = i < 0 ? undefined : h[i + 1]?.[1];
  return next !== undefined && STAYED.has(next) ? 'interrupted' : 'cancelled';
}

/** One PR's row of a finished run of queue `q` (a timeout is a failure; a run never finished was cut short). */
export function v2TestingResult(q: QueueRecord, t: TestingResultView) {
  const r = t.run;
  const end = r.completedAt ?? r.createdAt;
  return {
    pullRequestNumber: t.prNumber,
    endedAt: iso(end),
    testingDurationMs: end - r.createdAt,
    outcome: r.status === 'in_progress' || r.status === 'cancelled' ? cutShort(q, t) : OUTCOME[r.status],
    ...(t.conclusion ? { entryConclusion: t.conclusion } : {}),
    isBisection: r.isBisection,
    startedBisection: r.startedBisection,
    verificationRunId: r.id,
  };
}
