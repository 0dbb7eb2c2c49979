/**
 * The history model the story and the statistics work on: plain records with epoch-millisecond
 * times, independent of how the service spells them on the wire (src/stats/wire.ts maps those).
 */

export const TERMINAL_STATES = ['merged', 'failed', 'cancelled'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

export function isTerminal(state: string): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

/** One transition of a PR's timeline. */
export interface Transition {
  at: number;
  state: string;
  /** The service's reason code, e.g. TEST_RUN_REQUIRED_STATUS_FAILED (may be empty). */
  reason: string;
  runId: string | null;
  /** For PREREQUISITE_MERGE_ITEM_*: the PR ahead that failed or was cancelled, when known. */
  aheadPr?: number | null;
  /** For a failure: the required statuses the service says caused it. */
  statuses?: string[];
}

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
