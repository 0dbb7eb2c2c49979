// The library's types of a queue's dispatch order, its dependency graph and the service's merge
// estimate (written by hand after src/domain/order.ts: declarations ship from src/lib only).
import type { PrState } from './types.js';

/** A PR as the order and the graph name it. */
export interface OrderedPr {
  number: number;
  title: string | null;
}

/** PRs under test together (v1: neighbours in the same state; it does not say which run holds them). */
export interface OrderBatch {
  /** The run testing them (null on v1). */
  runId: string | null;
  /** `testing`, `tests_passed`, `pending_failure`, or a newer state as sent. */
  state: PrState | (string & {});
  isBisection: boolean;
  prs: OrderedPr[];
}

/** A PR admitted but not under test. */
export interface PendingPr extends OrderedPr {
  schedulability: 'schedulable' | 'held_behind_failure' | (string & {});
  /** 1-based; PRs predicted to start together share it; null when held or unknown. */
  predictedBatch: number | null;
  /** The PRs directly ahead of it (v1: the previous entry). */
  directlyAhead: number[];
  /** The failing PRs holding it back. */
  heldBy: number[];
}

/** A queue's dispatch order: batches under test, then PRs waiting, then PRs not yet admitted. */
export interface QueueOrder {
  queueState: string | null;
  /** `single` or `parallel`. */
  mode: string | null;
  batchingEnabled: boolean | null;
  batches: OrderBatch[];
  pending: PendingPr[];
  awaitingAdmission: OrderedPr[];
  /** How many PRs await admission in all (the list may be cut). */
  awaitingAdmissionTotal: number;
  /** True when derived from a v1 queue record rather than served by the service. */
  approximate: boolean;
}

export interface GraphNode {
  number: number;
  title: string | null;
  author: string | null;
  state: PrState | (string & {});
  priorityValue: number | null;
  runId: string | null;
  isBisection: boolean;
  /** With `impactedTargets: true` only. */
  impactedTargets?: string[];
  totalImpactedTargets?: number;
}

/** `to` builds on `from` (they share impacted targets). */
export interface GraphEdge {
  from: number;
  to: number;
  commonTargets?: string[];
  totalCommonTargets?: number;
}

export interface QueueGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The service's merge estimate; times in epoch ms. */
export type MergeEstimate =
  | {
      status: 'available';
      kind: 'merge' | 'pending_failure_resolution' | (string & {});
      computedAt: number | null;
      estimatedAt: number | null;
      testingStartsAt?: number | null;
      testingEndsAt?: number | null;
      pullRequestsAhead?: number | null;
      waitingOn?: number[];
    }
  | { status: 'unavailable'; reason: string; computedAt: number | null };
