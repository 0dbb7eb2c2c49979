// A queue's dispatch order, dependency graph and a PR's merge estimate as mq understands them,
// whichever API sent them (v2 serves them; on v1 the order is derived and marked approximate).
import type { Known } from './types.js';
import type { PrState } from './vocabulary.js';

export interface OrderedPr {
  number: number;
  title: string | null;
}

/** A batch with a test run: testing, passed, or holding others back after a failure. */
export interface OrderBatch {
  runId: string | null;
  state: Known<PrState>;
  isBisection: boolean;
  prs: OrderedPr[];
}

/** A PR admitted but not testing: whether the next pass may start it, and what is in front of it. */
export interface PendingPr extends OrderedPr {
  schedulability: Known<'schedulable' | 'held_behind_failure'>;
  /** 1-based; PRs predicted to start together share it; null when held or unknown. */
  predictedBatch: number | null;
  directlyAhead: number[];
  heldBy: number[];
}

export interface QueueOrder {
  queueState: string | null;
  mode: string | null;
  batchingEnabled: boolean | null;
  batches: OrderBatch[];
  pending: PendingPr[];
  awaitingAdmission: OrderedPr[];
  /** How many await admission in all (the list may be cut). */
  awaitingAdmissionTotal: number;
  /** True when derived from a v1 queue record rather than served by the service. */
  approximate: boolean;
}

export interface GraphNode {
  number: number;
  title: string | null;
  author: string | null;
  state: Known<PrState>;
  priorityValue: number | null;
  runId: string | null;
  isBisection: boolean;
  impactedTargets?: string[];
  totalImpactedTargets?: number;
}

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

/** The service's own merge estimate (epoch ms), when it serves one. */
export type MergeEstimate =
  | {
      status: 'available';
      kind: Known<'merge' | 'pending_failure_resolution'>;
      computedAt: number | null;
      estimatedAt: number | null;
      testingStartsAt?: number | null;
      testingEndsAt?: number | null;
      pullRequestsAhead?: number | null;
      waitingOn?: number[];
    }
  | { status: 'unavailable'; reason: string; computedAt: number | null };
