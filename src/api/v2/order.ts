// v2's `/order`, `/graph` and queue-entry estimate, decoded leniently and mapped to mq's own shapes
// (src/domain/order.ts): run ids, lower snake_case words, epoch ms.
import * as z from 'zod/mini';
import type { MergeEstimate, OrderedPr, QueueGraph, QueueOrder } from '../../domain/order.js';
import { bool, num, snake, str } from './wire.js';

const queued = z.lazy(() => z.looseObject({ id: str, number: z.number(), title: str }));
const list = <T extends z.ZodMiniType>(item: T) => z.nullish(z.array(item));

export const orderSchema = z.lazy(() =>
  z.looseObject({
    mode: str,
    queueState: str,
    batchingEnabled: bool,
    batches: list(z.looseObject({ verificationRunId: str, state: str, isBisection: bool, pullRequests: list(queued) })),
    pending: list(
      z.looseObject({
        pullRequest: queued,
        schedulability: str,
        predictedBatch: num,
        directlyAhead: list(queued),
        heldBy: list(queued),
      }),
    ),
    awaitingAdmission: list(queued),
    awaitingAdmissionTotal: num,
  }),
);

export const graphSchema = z.lazy(() =>
  z.looseObject({
    nodes: list(
      z.looseObject({
        pullRequestNumber: z.number(),
        title: str,
        author: str,
        state: str,
        priorityValue: num,
        verificationRunId: str,
        isBisection: bool,
        impactedTargets: list(z.string()),
        totalImpactedTargets: num,
      }),
    ),
    edges: list(
      z.looseObject({
        fromPullRequestNumber: z.number(),
        toPullRequestNumber: z.number(),
        commonImpactedTargets: list(z.string()),
        totalCommonImpactedTargets: num,
      }),
    ),
  }),
);

export const estimateSchema = z.lazy(() =>
  z.looseObject({
    status: z.string(),
    reason: str,
    computedAt: str,
    kind: str,
    estimatedAt: str,
    testingStartsAt: str,
    testingEndsAt: str,
    pullRequestsAhead: num,
    waitingOn: list(z.looseObject({ number: z.number() })),
  }),
);

const pr = (p: z.infer<typeof queued>): OrderedPr => ({ number: p.number, title: p.title ?? null });
const word = (v: string | null | undefined, fallback: string) => (v ? snake(v) : fallback);
const ms = (v: string | null | undefined): number | null => {
  const t = v ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? null : t;
};

export function orderOf(o: z.infer<typeof orderSchema>): QueueOrder {
  const awaiting = (o.awaitingAdmission ?? []).map(pr);
  return {
    queueState: o.queueState ? snake(o.queueState) : null,
    mode: o.mode === 'queue' ? 'single' : o.mode === 'graph' ? 'parallel' : (o.mode ?? null),
    batchingEnabled: o.batchingEnabled ?? null,
    batches: (o.batches ?? []).map((b) => ({
      runId: b.verificationRunId ?? null,
      state: word(b.state, 'testing'),
      isBisection: b.isBisection ?? false,
      prs: (b.pullRequests ?? []).map(pr),
    })),
    pending: (o.pending ?? []).map((p) => ({
      ...pr(p.pullRequest),
      schedulability: word(p.schedulability, 'schedulable'),
      predictedBatch: p.predictedBatch ?? null,
      directlyAhead: (p.directlyAhead ?? []).map((a) => a.number),
      heldBy: (p.heldBy ?? []).map((a) => a.number),
    })),
    awaitingAdmission: awaiting,
    awaitingAdmissionTotal: Math.max(o.awaitingAdmissionTotal ?? 0, awaiting.length),
    approximate: false,
  };
}

export function graphOf(g: z.infer<typeof graphSchema>): QueueGraph {
  return {
    nodes: (g.nodes ?? []).map((n) => ({
      number: n.pullRequestNumber,
      title: n.title ?? null,
      author: n.author ?? null,
      state: word(n.state, 'pending'),
      priorityValue: n.priorityValue ?? null,
      runId: n.verificationRunId ?? null,
      isBisection: n.isBisection ?? false,
      ...(n.impactedTargets ? { impactedTargets: n.impactedTargets } : {}),
      ...(n.totalImpactedTargets != null ? { totalImpactedTargets: n.totalImpactedTargets } : {}),
    })),
    edges: (g.edges ?? []).map((e) => ({
      from: e.fromPullRequestNumber,
      to: e.toPullRequestNumber,
      ...(e.commonImpactedTargets ? { commonTargets: e.commonImpactedTargets } : {}),
      ...(e.totalCommonImpactedTargets != null ? { totalCommonTargets: e.totalCommonImpactedTargets } : {}),
    })),
  };
}

export function estimateOf(e: z.infer<typeof estimateSchema>): MergeEstimate {
  const computedAt = ms(e.computedAt);
  if (e.status !== 'available') return { status: 'unavailable', reason: e.reason ?? e.status, computedAt };
  return {
    status: 'available',
    kind: word(e.kind, 'merge'),
    computedAt,
    estimatedAt: ms(e.estimatedAt),
    ...(e.testingStartsAt !== undefined ? { testingStartsAt: ms(e.testingStartsAt) } : {}),
    ...(e.testingEndsAt !== undefined ? { testingEndsAt: ms(e.testingEndsAt) } : {}),
    ...(e.pullRequestsAhead != null ? { pullRequestsAhead: e.pullRequestsAhead } : {}),
    ...(e.waitingOn ? { waitingOn: e.waitingOn.map((w) => w.number) } : {}),
  };
}
