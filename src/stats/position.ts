// Where a live PR stands in its queue and why it waits, from the dispatch order (src/domain/order.ts) and
// its record: `mq status`, the Action and the library read the same answer on v1 and v2.
import type { QueueOrder } from '../domain/order.js';
import { clean } from './story.js';

/** What `positionOf` needs of a PR's record (v1 and v2 records and the library's type all fit). */
export interface PositionRecord {
  state?: string | null;
  isCurrentlySubmittedToQueue?: boolean | null;
  readiness?: {
    hasImpactedTargets?: boolean | null;
    requiresImpactedTargets?: boolean | null;
    doesBaseBranchMatch?: boolean | null;
    gitHubMergeability?: string | null;
  } | null;
}

export type WaitCode =
  | 'testing'
  | 'tests_passed'
  | 'pending_failure'
  | 'held_by_failure'
  | 'queue_paused'
  | 'queue_draining'
  | 'impacted_targets_missing'
  | 'base_branch_mismatch'
  | 'not_mergeable'
  | 'awaiting_admission'
  | 'batch_filling'
  | 'waiting_for_slot';

export interface PrPosition {
  /** 1-based among the PRs under test and waiting (PRs awaiting admission are not counted); else null. */
  position: number | null;
  /** How many PRs are under test or waiting; null for a PR no longer in the queue. */
  of: number | null;
  /** The PRs directly ahead of it (v1: the previous entry). */
  ahead: number[];
  /** Failing PRs holding it back. */
  heldBy: number[];
  waitingBecause: { code: WaitCode; words: string } | null;
  /** True when the order was derived from v1's queue record. */
  approximate: boolean;
}

/** No place: a PR that left the queue, or an order that could not be read. */
export const NO_POSITION: PrPosition = {
  position: null,
  of: null,
  ahead: [],
  heldBy: [],
  waitingBecause: null,
  approximate: false,
};

const CONCLUDED = new Set(['merged', 'failed', 'cancelled']);
const NOT_ADMITTING = new Set(['paused', 'draining', 'switching_modes']);
const prs = (ns: readonly number[]) => ns.map((n) => `#${n}`).join(', ');

/** The PRs under test then the PRs waiting: what a position counts. */
export function dispatchSequence(order: QueueOrder): number[] {
  return [...order.batches.flatMap((b) => b.prs.map((p) => p.number)), ...order.pending.map((p) => p.number)];
}

const because = (code: WaitCode, words: string) => ({ code, words });

/** Why a PR not yet admitted waits: its readiness first, then a queue that admits no one. */
function admissionReason(order: QueueOrder, record: PositionRecord | undefined): PrPosition['waitingBecause'] {
  const r = record?.readiness;
  if (r?.requiresImpactedTargets && r.hasImpactedTargets === false)
    return because('impacted_targets_missing', 'its impacted targets are not uploaded (this queue needs them)');
  if (r?.doesBaseBranchMatch === false)
    return because('base_branch_mismatch', "its base branch is not the queue's branch");
  if (r?.gitHubMergeability && r.gitHubMergeability !== 'mergeable')
    return because(
      'not_mergeable',
      `not ready: GitHub says ${clean(r.gitHubMergeability, 40)} (checks pending, a review or a conflict)`,
    );
  const q = order.queueState ?? '';
  if (q === 'paused') return because('queue_paused', 'the queue is paused: it admits no PRs');
  if (NOT_ADMITTING.has(q)) return because('queue_draining', `the queue is ${q.replace('_', ' ')}: it admits no PRs`);
  return because('awaiting_admission', 'not yet admitted to the queue');
}

/** Where `pr` is in `order` and why it waits; nothing for a PR that left the queue. */
export function positionOf(order: QueueOrder, pr: number, record?: PositionRecord): PrPosition {
  const state = (record?.state ?? '').toLowerCase();
  const live = record === undefined || (record.isCurrentlySubmittedToQueue !== false && !CONCLUDED.has(state));
  if (!live) return { ...NO_POSITION };
  const sequence = dispatchSequence(order);
  const index = sequence.indexOf(pr);
  const at: PrPosition = { ...NO_POSITION, of: sequence.length, approximate: order.approximate };
  if (index >= 0) at.position = index + 1;
  const paused = order.queueState === 'paused';

  const batch = order.batches.find((b) => b.prs.some((p) => p.number === pr));
  if (batch) {
    if (order.mode !== 'parallel' && index > 0) at.ahead = [sequence[index - 1] as number];
    const others = batch.prs.filter((p) => p.number !== pr).map((p) => p.number);
    const run = batch.runId ? ` in run ${clean(batch.runId, 80)}` : '';
    if (batch.state === 'tests_passed')
      at.waitingBecause = paused
        ? because('queue_paused', 'its tests passed; the queue is paused, so it does not merge')
        : because('tests_passed', `its tests passed; it merges ${at.ahead.length ? `after ${prs(at.ahead)}` : 'next'}`);
    else if (batch.state === 'pending_failure')
      at.waitingBecause = because('pending_failure', 'its tests failed; it waits for the PRs ahead to finish');
    else {
      const withOthers = others.length > 0 && !order.approximate ? ` with ${prs(others)}` : '';
      const bisect = batch.isBisection ? ' (a bisection)' : '';
      at.waitingBecause = because('testing', `being tested${run}${withOthers}${bisect}`);
    }
    return at;
  }

  const pending = order.pending.find((p) => p.number === pr);
  if (pending && state !== 'not_ready') {
    at.ahead = pending.directlyAhead;
    at.heldBy = pending.heldBy;
    if (pending.heldBy.length > 0)
      at.waitingBecause = because('held_by_failure', `held by ${prs(pending.heldBy)}, whose tests failed`);
    else if (paused) at.waitingBecause = because('queue_paused', 'the queue is paused: no tests start');
    else if (order.batchingEnabled)
      at.waitingBecause = because('batch_filling', 'waiting for a batch to fill (or its wait to end)');
    else
      at.waitingBecause = because(
        'waiting_for_slot',
        `waiting for a test slot${pending.directlyAhead.length ? ` behind ${prs(pending.directlyAhead)}` : ''}`,
      );
    return at;
  }

  const awaiting = order.awaitingAdmission.some((p) => p.number === pr) || state === 'not_ready';
  if (awaiting) {
    at.position = null;
    at.waitingBecause = admissionReason(order, record);
  }
  return at;
}
