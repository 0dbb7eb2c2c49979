// The dispatch order a v1 queue record implies: its entries in queue order, grouped by state. v1 does
// not say which PRs share a run or what holds what, so the result is marked approximate.
import type { OrderBatch, PendingPr, QueueOrder } from '../domain/order.js';
import type { Queue } from './schemas.js';

export function orderFromQueue(queue: Queue): QueueOrder {
  const batches: OrderBatch[] = [];
  const pending: PendingPr[] = [];
  const failing: number[] = [];
  let previous: number | undefined;
  for (const e of queue.enqueuedPullRequests ?? []) {
    if (e.prNumber == null) continue;
    const state = e.state ?? 'pending';
    const pr = { number: e.prNumber, title: e.prTitle ?? null };
    if (state === 'pending' || state === 'not_ready') {
      const held = queue.mode !== 'parallel' && failing.length > 0;
      pending.push({
        ...pr,
        schedulability: held ? 'held_behind_failure' : 'schedulable',
        predictedBatch: null,
        directlyAhead: previous === undefined ? [] : [previous],
        heldBy: held ? [...failing] : [],
      });
    } else {
      if (state === 'pending_failure') failing.push(e.prNumber);
      const last = batches[batches.length - 1];
      // Neighbours in the same state are shown as one batch; v1 does not say which run holds them.
      if (last && last.state === state && state !== 'pending_failure') last.prs.push(pr);
      else batches.push({ runId: null, state, isBisection: false, prs: [pr] });
    }
    previous = e.prNumber;
  }
  return {
    queueState: queue.state ?? null,
    mode: queue.mode ?? null,
    batchingEnabled: queue.batch ?? null,
    batches,
    pending,
    awaitingAdmission: [],
    awaitingAdmissionTotal: 0,
    approximate: true,
  };
}
