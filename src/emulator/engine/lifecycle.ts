/**
 * State transitions of entries. Every change of `entry.state` goes through `transition`, which
 * keeps the per-queue counters (depth, testing slots, …) exact, records the metric samples the
 * transition implies, and emits the effect that webhooks will be built from. Keeping that in one
 * place is what lets the metrics endpoint answer from counters instead of scanning the queue.
 */
import { record } from './metrics.js';
import type { Effect, EngineState, Entry, FakePr, PrState, QueueRecord, RepoRef } from './types.js';

export interface Core {
  state: EngineState;
  emit(effect: Effect): void;
}

export const TERMINAL: ReadonlySet<PrState> = new Set(['merged', 'failed', 'cancelled']);
const ADMITTED: ReadonlySet<PrState> = new Set(['pending', 'testing', 'tests_passed', 'pending_failure']);

export const repoKey = (r: RepoRef): string => `${r.host}/${r.owner}/${r.name}`;
export const queueKey = (r: RepoRef, branch: string): string => `${repoKey(r)}:${branch}`;
export const prKey = (r: RepoRef, n: number): string => `${repoKey(r)}#${n}`;

export function fakePrFor(core: Core, q: QueueRecord, prNumber: number): FakePr | undefined {
  return core.state.fakePrs[prKey(q.repo, prNumber)];
}

function count(q: QueueRecord, s: PrState | null, delta: 1 | -1): void {
  if (s === null) return;
  if (ADMITTED.has(s)) q.counts.admitted += delta;
  if (s === 'not_ready') q.counts.notReady += delta;
  if (s === 'testing') q.counts.testing += delta;
  if (s === 'pending_failure') q.counts.pendingFailure += delta;
}

/**
 * Moves an entry to `to`. `from` is null only for the very first submission of a PR to a queue.
 * Metric rules (trunk-wire §2): wait = admission to first test start; test = first test start to
 * conclusion; time in queue = admission to conclusion; NOT_READY time counts in none of them, and a
 * PR cancelled before admission never entered the queue, so it is not a conclusion either.
 */
export function transition(
  core: Core,
  q: QueueRecord,
  e: Entry,
  to: PrState,
  reason: string,
  runId: string | null = null,
  from: PrState | null = e.state,
): void {
  const now = core.state.now;
  count(q, from, -1);
  count(q, to, 1);
  e.state = to;
  e.stateChangedAt = now;
  const s = q.samples;
  if (from === 'not_ready' && to === 'pending') e.admittedAt = now;
  if (from === 'testing' && to === 'pending') record(s.restarts, now, now);
  if (to === 'testing' && e.firstTestAt === null) {
    e.firstTestAt = now;
    if (e.admittedAt !== null) record(s.wait, [now, (now - e.admittedAt) / 1000], now);
  }
  if (TERMINAL.has(to)) {
    e.live = false;
    e.conclusionReason = reason;
    if (e.admittedAt !== null) {
      record(s.conclusions, [now, to as 'merged' | 'failed' | 'cancelled'], now);
      record(s.inQueue, [now, (now - e.admittedAt) / 1000], now);
      if (e.firstTestAt !== null) record(s.test, [now, (now - e.firstTestAt) / 1000], now);
    }
  }
  core.emit({
    type: 'pr_state',
    repo: { ...q.repo },
    branch: q.branch,
    prNumber: e.prNumber,
    entryId: e.id,
    from,
    to,
    reason,
    runId,
    at: now,
  });
}

export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: 'mergeable' | 'not_mergeable' | 'unspecified';
}

/**
 * Readiness as the wire reports it. Impacted targets are stored per (PR, head SHA) in every mode,
 * but only parallel mode requires them (trunk-wire §1.4 `requiresImpactedTargets`).
 */
export function readinessOf(core: Core, q: QueueRecord, prNumber: number): Readiness {
  const pr = fakePrFor(core, q, prNumber);
  const targets = q.impactedTargets[String(prNumber)];
  return {
    hasImpactedTargets: pr !== undefined && targets !== undefined && targets[pr.sha] !== undefined,
    requiresImpactedTargets: q.config.mode === 'parallel',
    doesBaseBranchMatch: pr !== undefined && pr.baseBranch === q.branch,
    gitHubMergeability: pr === undefined ? 'unspecified' : pr.mergeable ? 'mergeable' : 'not_mergeable',
  };
}

export function isReady(r: Readiness): boolean {
  return (
    r.doesBaseBranchMatch &&
    r.gitHubMergeability === 'mergeable' &&
    (!r.requiresImpactedTargets || r.hasImpactedTargets)
  );
}
