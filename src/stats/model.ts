// The history model of the story and statistics: plain records, epoch ms, wire-independent (wire.ts maps).
import type { TerminalState } from '../domain/vocabulary.js';

/** A check of a test run, from its testing details. */
export interface Check {
  name: string;
  conclusion: string;
  url: string | null;
}

/** A PR that left the queue (listPullRequests, state merged / failed / cancelled). */
export interface ConcludedPr {
  number: number;
  state: TerminalState;
  /** When its last trip began (submitted); null when the service did not say. */
  submittedAt: number | null;
  concludedAt: number;
  sha?: string | null;
}

/** One PR's part in one test run (listMergeQueueTestingResults). */
export interface TestAttempt {
  runId: string;
  prNumber: number;
  startedAt: number;
  finishedAt: number;
  result: 'passed' | 'failed' | 'cancelled';
  /** A run testing part of a failed batch. */
  bisection: boolean;
  /** The PR's head sha when the run was made, when known. */
  sha?: string | null;
}

/** The queue's current settings that bound its throughput. */
export interface QueueSettings {
  concurrency: number | null;
  batch: boolean;
  batchingMinSize: number | null;
}

export interface Window {
  since: number;
  until: number;
}
