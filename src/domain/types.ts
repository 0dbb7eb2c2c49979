// PRs, queues and timelines as mq understands them, whatever API version sent them (epoch ms, mq's
// lower-case states, neutral names); wire spellings stay in src/api's schemas.
import type { QueueSetting } from './queue-settings.js';
import type { PrState, PriorityName, QueueStateName } from './vocabulary.js';

/** A word mq knows, or one a newer service sends that mq must still carry (never an exhaustive switch). */
export type Known<W extends string> = W | (string & {});

/** One transition of a PR's timeline. */
export interface Transition {
  at: number;
  state: Known<PrState>;
  /** The service's reason code, e.g. TEST_RUN_REQUIRED_STATUS_FAILED (may be empty). */
  reason: string;
  runId: string | null;
  /** For PREREQUISITE_MERGE_ITEM_*: the PR ahead that failed or was cancelled, when known. */
  aheadPr?: number | null;
  /** For a failure: the required statuses the service says caused it. */
  statuses?: string[];
}

/** A PR in a queue (null: the service did not say). */
export interface PrRecord {
  number: number;
  state: Known<PrState>;
  stateChangedAt: number | null;
  /** 0..255, lower goes first. */
  priority: number | null;
  priorityName: Known<PriorityName> | null;
  /** Tested alone, never in a batch. */
  noBatch: boolean;
  /** In the queue now (submitted, not yet merged, failed or cancelled). */
  inQueue: boolean;
  title: string | null;
  sha: string | null;
  author: string | null;
  baseBranch: string | null;
  /** Newest first, when read. */
  timeline?: Transition[];
}

type ValueOf<S> = S extends { kind: 'bool' }
  ? boolean
  : S extends { kind: 'list' }
    ? readonly string[]
    : S extends { kind: 'enum'; values: readonly (infer V extends string)[] }
      ? Known<V>
      : number;

/** A queue's settings, one per entry of the registry, by its field (absent or null: not reported). */
export type QueueSettingValues = { [S in QueueSetting as S['field']]?: ValueOf<S> | null };

/** A queue: its branch, state and settings, and its PRs in queue order when read. */
export interface QueueInfo extends QueueSettingValues {
  branch?: string | null;
  state?: Known<QueueStateName> | null;
  entries?: PrRecord[];
}
