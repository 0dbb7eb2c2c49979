// Entry state transitions: every change goes through `transition`, which keeps the per-queue counters
// exact (so metrics answer without a scan), records metric samples and emits the webhook effect.
import { record } from './metrics.js';
import type { PrState } from '../../domain/vocabulary.js';
import {
  testBranchOf,
  type BatchEffect,
  type Effect,
  type EffectRun,
  type EngineState,
  type Entry,
  type FakePr,
  type QueueRecord,
  type RepoRef,
  type TestRun,
} from './types.js';

export interface Core {
  state: EngineState;
  /** Absent when nobody listens, so effects are not even built. */
  emit?: (effect: Effect) => void;
}

export const TERMINAL: ReadonlySet<PrState> = new Set(['merged', 'failed', 'cancelled']);
const ADMITTED: ReadonlySet<PrState> = new Set(['pending', 'testing', 'tests_passed', 'pending_failure']);

export const repoKey = (r: RepoRef): string => `${r.host}/${r.owner}/${r.name}`;
export const queueKey = (r: RepoRef, branch: string): string => `${repoKey(r)}:${branch}`;
export const prKey = (r: RepoRef, n: number): string => `${repoKey(r)}#${n}`;

// Fake PRs by number per queue record (hot path); records change in place, a state swap brings new caches.
const fakePrCache = new WeakMap<QueueRecord, Map<number, FakePr>>();

export function fakePrFor(core: Core, q: QueueRecord, prNumber: number): FakePr | undefined {
  let cache = fakePrCache.get(q);
  if (!cache) {
    cache = new Map();
    fakePrCache.set(q, cache);
  }
  let pr = cache.get(prNumber);
  if (pr === undefined) {
    pr = core.state.fakePrs[prKey(q.repo, prNumber)];
    if (pr) cache.set(prNumber, pr);
  }
  return pr;
}

function count(q: QueueRecord, s: PrState | null, delta: 1 | -1): void {
  if (s === null) return;
  if (ADMITTED.has(s)) q.counts.admitted += delta;
  if (s === 'not_ready') q.counts.notReady += delta;
  if (s === 'testing') q.counts.testing += delta;
  if (s === 'pending_failure') q.counts.pendingFailure += delta;
}

/**
 * Moves an entry to `to` (`from` null only on first submission). Metrics (trunk-wire §2): wait = admitted
 * to first test, test = first test to conclusion; NOT_READY time counts in neither, and a PR cancelled
 * before admission is no conclusion.
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
  e.history.push([now, to, reason, runId]);
  const s = q.samples;
  if (from === 'not_ready' && to === 'pending') e.admittedAt = now;
  // A PR under bisection reports under queue_type="bisection".
  const bisecting = e.bisection !== null;
  if (from === 'testing' && to === 'pending') record(bisecting ? q.bisectionSamples.restarts : s.restarts, now, now);
  if (to === 'testing' && e.firstTestAt === null) {
    e.firstTestAt = now;
    if (e.admittedAt !== null) record(s.wait, [now, (now - e.admittedAt) / 1000], now);
  }
  if (TERMINAL.has(to)) {
    e.live = false;
    e.conclusionReason = reason;
    if (e.admittedAt !== null) {
      if (bisecting && to === 'failed') record(q.bisectionSamples.conclusions, [now, 'failed'], now);
      else record(s.conclusions, [now, to as 'merged' | 'failed' | 'cancelled'], now);
      record(s.inQueue, [now, (now - e.admittedAt) / 1000], now);
      if (e.firstTestAt !== null) record(s.test, [now, (now - e.firstTestAt) / 1000], now);
    }
  }
  if (!core.emit) return;
  const run = runId === null ? undefined : core.state.runs[runId];
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
    author: fakePrFor(core, q, e.prNumber)?.author ?? '',
    run: run ? effectRun(run) : null,
  });
}

export function effectRun(run: TestRun): EffectRun {
  return {
    id: run.id,
    testBranch: testBranchOf(run),
    testBranchSha: run.testBranchSha,
    prNumbers: [...run.group],
    isBisection: run.isBisection,
  };
}

/** A group of two or more PRs reached `event` together (after the members' own effects). */
export function emitBatch(
  core: Core,
  q: QueueRecord,
  event: BatchEffect['event'],
  run: TestRun,
  prNumbers: number[],
  reason: string,
): void {
  if (!core.emit || prNumbers.length < 2) return;
  core.emit({
    type: 'batch',
    event,
    repo: { ...q.repo },
    branch: q.branch,
    prNumbers: [...prNumbers],
    reason,
    run: effectRun(run),
    at: core.state.now,
  });
}

export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: 'mergeable' | 'not_mergeable' | 'unspecified';
}

/** Readiness as on the wire; targets are kept in every mode but required only in parallel mode. */
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
