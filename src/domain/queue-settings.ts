// The one registry of queue settings: v1 field, flag, label, key, kind, bounds, help, on/off words.
// Request fields, decoding, `queue update`/`create` flags and `queue show --settings` rows are all
// generated from it. Free of zod (schemas.ts), so command wiring stays cheap to load.
import {
  DIRECT_MERGE_MODES,
  MAX_U32,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  QUEUE_STATES,
  REQUESTABLE_QUEUE_STATES,
} from './vocabulary.js';

export type SettingKind = 'int' | 'minutes' | 'bool' | 'enum' | 'list';

interface SettingBase {
  /** Field of the queue record and of the updateQueue request. */
  field: string;
  /** Stable key for `queue show --settings` (the update flag without dashes). */
  key: string;
  label: string;
  kind: SettingKind;
  /** The `mq queue update` flag without dashes; absent when the setting is not changed through update flags. */
  flag?: string;
  help?: string;
  /** Help of `--no-<flag>` (booleans). */
  off?: string;
  /** Value placeholder in help (`<minutes>`). */
  unit?: string;
  values?: readonly [string, ...string[]];
  /** Values a request may send, when fewer than the service reports (state). */
  requestValues?: readonly [string, ...string[]];
  /** Also settable by `mq queue create`. */
  create?: { help: string };
  /** Older names of the field in a queue record, read as this one (the current name wins). */
  legacy?: readonly string[];
}

export const QUEUE_SETTINGS = [
  {
    field: 'state',
    key: 'state',
    label: 'State',
    kind: 'enum',
    values: QUEUE_STATES,
    requestValues: REQUESTABLE_QUEUE_STATES,
  },
  {
    field: 'mode',
    key: 'mode',
    label: 'Mode',
    kind: 'enum',
    values: QUEUE_MODES,
    flag: 'mode',
    help: 'queue mode',
    create: { help: 'queue mode (service default: single)' },
  },
  {
    field: 'concurrency',
    key: 'concurrency',
    label: 'Concurrency',
    kind: 'int',
    flag: 'concurrency',
    help: 'PRs or batches tested at once',
    create: { help: `PRs or batches tested at once, 1-${MAX_U32} (service default: 1)` },
  },
  {
    field: 'bisectionConcurrency',
    key: 'bisection-concurrency',
    label: 'Bisection concurrency',
    kind: 'int',
    flag: 'bisection-concurrency',
    help: 'tests run at once while bisecting a failed batch',
  },
  {
    field: 'testingTimeoutMinutes',
    legacy: ['testingTimeoutMins'],
    key: 'testing-timeout',
    label: 'Testing timeout (minutes)',
    kind: 'minutes',
    flag: 'testing-timeout',
    unit: 'minutes',
    help: 'minutes to wait for tests before timing out',
  },
  {
    field: 'pendingFailureDepth',
    key: 'pending-failure-depth',
    label: 'Pending failure depth',
    kind: 'int',
    flag: 'pending-failure-depth',
    help: 'PRs below a failing PR that must finish testing before it is removed',
  },
  {
    field: 'canOptimisticallyMerge',
    key: 'optimistic-merge',
    label: 'Optimistic merge',
    kind: 'bool',
    flag: 'optimistic-merge',
    help: 'optimistic merging: a passing PR also passes every PR ahead of it',
    off: 'no optimistic merging',
  },
  {
    field: 'batch',
    legacy: ['isBatching'],
    key: 'batch',
    label: 'Batching',
    kind: 'bool',
    flag: 'batch',
    help: 'test PRs in batches',
    off: 'test PRs one by one, never in batches',
  },
  {
    field: 'batchingMaxWaitTimeMinutes',
    legacy: ['batchingMaxWaitTimeMins'],
    key: 'batching-max-wait',
    label: 'Batching max wait (minutes)',
    kind: 'minutes',
    flag: 'batching-max-wait',
    unit: 'minutes',
    help: 'minutes to wait while collecting a batch',
  },
  {
    field: 'batchingMinSize',
    key: 'batching-min-size',
    label: 'Batching min size',
    kind: 'int',
    flag: 'batching-min-size',
    help: 'PRs needed to form a batch',
  },
  {
    field: 'directMergeMode',
    key: 'direct-merge',
    label: 'Direct merge',
    kind: 'enum',
    values: DIRECT_MERGE_MODES,
    flag: 'direct-merge',
    help: 'let an up-to-date PR merge on submission without queue testing',
  },
  {
    field: 'optimizationMode',
    key: 'optimization',
    label: 'Optimization',
    kind: 'enum',
    values: OPTIMIZATION_MODES,
    flag: 'optimization',
    help: 'optimization strategy',
  },
  {
    field: 'mergeMethod',
    key: 'merge-method',
    label: 'Merge method',
    kind: 'enum',
    values: MERGE_METHODS,
    flag: 'merge-method',
    help: 'how PRs are merged into the branch',
  },
  {
    field: 'commentsEnabled',
    key: 'comments',
    label: 'Comments on PRs',
    kind: 'bool',
    flag: 'comments',
    help: 'post comments on PRs',
    off: 'post no comments on PRs',
  },
  {
    field: 'commandsEnabled',
    key: 'commands',
    label: 'Merge commands in comments',
    kind: 'bool',
    flag: 'commands',
    help: 'allow submitting a PR with a merge command comment',
    off: 'ignore merge command comments',
  },
  {
    field: 'createPrsForTestingBranches',
    key: 'testing-branch-prs',
    label: 'PRs for testing branches',
    kind: 'bool',
    flag: 'testing-branch-prs',
    help: 'create PRs for testing branches so CI runs on them',
    off: 'create no PRs for testing branches',
  },
  {
    field: 'statusCheckEnabled',
    key: 'status-check',
    label: 'Status check on PRs',
    kind: 'bool',
    flag: 'status-check',
    help: 'post a status check with the queue status on PRs',
    off: 'post no status check on PRs',
  },
  // Set by --required-status (repeatable) and --clear-required-statuses, written by hand in `queue update`.
  { field: 'requiredStatuses', key: 'required-statuses', label: 'Required statuses', kind: 'list' },
] as const satisfies readonly SettingBase[];

export type QueueSetting = (typeof QUEUE_SETTINGS)[number];
export type QueueSettingInfo = SettingBase;

/** Bounds of every numeric setting. */
export const SETTING_MIN = 1;
export const SETTING_MAX = MAX_U32;

/** The commander attribute of a flag: `batching-min-size` -> `batchingMinSize`. */
export function flagAttr(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Settings `mq queue update` sets through a flag of their own, in the order their flags are listed. */
export function updateFlagSettings(): SettingBase[] {
  const withFlag = (QUEUE_SETTINGS as readonly SettingBase[]).filter((s) => s.flag !== undefined);
  const rank = (s: SettingBase) => (s.kind === 'int' || s.kind === 'minutes' ? 0 : s.kind === 'enum' ? 1 : 2);
  return [...withFlag].sort((a, b) => rank(a) - rank(b));
}
