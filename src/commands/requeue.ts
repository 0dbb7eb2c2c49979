// `--requeue N`: after a PR failed, classify the failure and resubmit it, within a budget, only when
// it is a flake or the infrastructure's and the queue no longer holds it. Shared by wait and the Action.
import type { CallOptions } from '../api/http.js';
import type { MergeQueueService } from '../api/service.js';
import type { Target } from '../context.js';
import { ExitCode, MqError, UsageError } from '../errors.js';
import type { FailureDecision, FailureKind } from '../stats/failure-kind.js';
import type { readFailure } from '../stats/failure-read.js';

export const MAX_REQUEUES = 10;

export interface RequeueSettings {
  /** Requeues allowed (1..10). */
  max: number;
  /** --flaky-check names. */
  flakyChecks: string[];
}

export interface Requeue {
  attempt: number;
  /** The run that failed the PR. */
  runId: string | null;
  kind: FailureKind;
  reason: string;
  at: string;
}

/** How to resubmit: the original submit's flags (submit --wait), else the PR's record. */
export interface Resubmit {
  priority?: number | string;
  noBatch?: boolean;
}

export type RequeueStep =
  | { action: 'requeued'; requeue: Requeue; decision: FailureDecision; note: string }
  | { action: 'live'; state: string; note: string }
  | { action: 'stop'; decision: FailureDecision; note: string };

/** --requeue and --flaky-check, checked (0 = off); wiring only. */
export function parseRequeue(requeue: string | undefined, flakyChecks: string[] = []): RequeueSettings | undefined {
  if (requeue === undefined) {
    if (flakyChecks.length > 0)
      throw new UsageError('--flaky-check only applies with --requeue', {
        hints: ['add --requeue N, e.g. --requeue 2'],
      });
    return undefined;
  }
  const t = requeue.trim();
  const max = Number(t);
  if (!/^\d+$/.test(t) || max > MAX_REQUEUES)
    throw new UsageError(`--requeue: ${JSON.stringify(requeue)} must be an integer from 0 to ${MAX_REQUEUES}`, {
      hints: ['the most resubmits after a flaky or infrastructure failure, e.g. --requeue 2 (0 turns it off)'],
    });
  if (max === 0) return undefined;
  for (const name of flakyChecks)
    if (name.trim() === '')
      throw new UsageError('--flaky-check: expected the name of a check', { hints: ['e.g. --flaky-check e2e'] });
  return { max, flakyChecks };
}

/**
 * After a poll saw the PR failed: reads its state and timeline first (a PR back in the queue is never
 * resubmitted), then requeues a flake or infrastructure failure if `done` < max, else stops.
 */
export async function requeueAfterFailure(
  client: MergeQueueService,
  target: Target,
  pr: number,
  settings: RequeueSettings,
  done: number,
  resubmit: Resubmit | undefined,
  now: () => number,
  call?: CallOptions,
): Promise<RequeueStep> {
  let read: Awaited<ReturnType<typeof readFailure>>;
  try {
    // In the api bundle: the history schemas are not parsed for a wait that never fails.
    const { readFailure: read_ } = await import('../stats/lazy.js');
    read = await read_(client, target, pr, settings.flakyChecks, call);
  } catch (err) {
    if (!(err instanceof MqError) || err.exitCode === ExitCode.interrupted) throw err;
    const decision: FailureDecision = {
      kind: 'own',
      reason: `its history could not be read (${err.why})`,
      runId: null,
      checks: [],
    };
    return { action: 'stop', decision, note: `not requeued: ${decision.reason}` };
  }
  const { record, decision } = read;
  const state = record.state ?? 'unknown';
  if (state !== 'failed' || record.isCurrentlySubmittedToQueue === true)
    return { action: 'live', state, note: `is ${state} again: the queue holds it, not resubmitted` };
  const what = `${kindWords(decision.kind)}: ${decision.reason}`;
  if (decision.kind === 'own') return { action: 'stop', decision, note: `not requeued: ${what}` };
  if (done >= settings.max)
    return {
      action: 'stop',
      decision,
      note: `not requeued: ${what}; the requeue budget is spent (${done} of ${settings.max})`,
    };
  const priority = resubmit ? resubmit.priority : (record.priorityValue ?? undefined);
  const noBatch = resubmit ? resubmit.noBatch : record.noBatch === true || undefined;
  await client.submitPullRequest(
    {
      ...target,
      pr: { number: pr },
      ...(priority !== undefined ? { priority: priority as number } : {}),
      ...(noBatch ? { noBatch: true } : {}),
    },
    call,
  );
  const requeue: Requeue = {
    attempt: done + 1,
    runId: decision.runId,
    kind: decision.kind,
    reason: decision.reason,
    at: new Date(now()).toISOString(),
  };
  return { action: 'requeued', requeue, decision, note: `requeued (${done + 1} of ${settings.max}): ${what}` };
}

function kindWords(kind: FailureKind): string {
  return kind === 'own' ? 'its own failure' : kind === 'flaky' ? 'a flake' : 'an infrastructure failure';
}
