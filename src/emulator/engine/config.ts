// Queue settings: defaults (the service's where a source gives one; direct merge off, D13), updates, priorities.
import { badRequest } from './errors.js';
import {
  type DirectMergeMode,
  MAX_U32,
  type MergeMethod,
  type OptimizationMode,
  PRIORITY_NAMES,
  PRIORITY_VALUES,
  type PriorityName,
  type QueueMode,
  type RequestableQueueState,
} from '../../domain/vocabulary.js';
import type { QueueConfig } from './types.js';

export function defaultConfig(mode: QueueMode = 'single', concurrency = 1): QueueConfig {
  return {
    mode,
    concurrency,
    testingTimeoutMinutes: 300,
    canOptimisticallyMerge: false,
    pendingFailureDepth: 0,
    batch: false,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 4,
    createPrsForTestingBranches: true,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: null,
    requiredStatuses: null,
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
    extensionEnabled: false,
    enqueueingLabel: null,
    labelCommandsEnabled: false,
    stateLabelsEnabled: false,
  };
}

/** Every field updateQueue accepts; all optional. */
export interface QueueUpdate {
  state?: RequestableQueueState;
  mode?: QueueMode;
  concurrency?: number;
  bisectionConcurrency?: number;
  testingTimeoutMinutes?: number;
  pendingFailureDepth?: number;
  canOptimisticallyMerge?: boolean;
  batch?: boolean;
  batchingMaxWaitTimeMinutes?: number;
  batchingMinSize?: number;
  createPrsForTestingBranches?: boolean;
  commentsEnabled?: boolean;
  commandsEnabled?: boolean;
  statusCheckEnabled?: boolean;
  directMergeMode?: DirectMergeMode;
  optimizationMode?: OptimizationMode;
  mergeMethod?: MergeMethod;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
  extensionEnabled?: boolean;
  enqueueingLabel?: string | null;
  labelCommandsEnabled?: boolean;
  stateLabelsEnabled?: boolean;
}

function checkInt(field: string, value: number | undefined, min: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > MAX_U32) {
    throw badRequest(`${field}: expected integer ${min}..${MAX_U32}`);
  }
}

/** Validates a whole update before applying any; 0 is accepted for pendingFailureDepth and batch wait (as live). */
export function validateUpdate(u: QueueUpdate): void {
  checkInt('concurrency', u.concurrency, 1);
  checkInt('bisectionConcurrency', u.bisectionConcurrency, 1);
  checkInt('testingTimeoutMinutes', u.testingTimeoutMinutes, 1);
  checkInt('pendingFailureDepth', u.pendingFailureDepth, 0);
  checkInt('batchingMaxWaitTimeMinutes', u.batchingMaxWaitTimeMinutes, 0);
  checkInt('batchingMinSize', u.batchingMinSize, 1);
}

/** Applies the settings part of an update (the state change is the engine's business). */
export function applyConfigUpdate(c: QueueConfig, u: QueueUpdate): void {
  const keys = [
    'mode',
    'concurrency',
    'bisectionConcurrency',
    'testingTimeoutMinutes',
    'pendingFailureDepth',
    'canOptimisticallyMerge',
    'batch',
    'batchingMaxWaitTimeMinutes',
    'batchingMinSize',
    'createPrsForTestingBranches',
    'commentsEnabled',
    'commandsEnabled',
    'statusCheckEnabled',
    'directMergeMode',
    'optimizationMode',
    'mergeMethod',
    'extensionEnabled',
    'enqueueingLabel',
    'labelCommandsEnabled',
    'stateLabelsEnabled',
  ] as const;
  const target = c as unknown as Record<string, unknown>;
  for (const k of keys) if (u[k] !== undefined) target[k] = u[k];
  // v1 semantics: an empty list is ignored; only deleteRequiredStatuses clears the override.
  if (u.deleteRequiredStatuses) c.requiredStatuses = null;
  if (u.requiredStatuses && u.requiredStatuses.length > 0) c.requiredStatuses = [...u.requiredStatuses];
}

// ---- priority -----------------------------------------------------------------------------------

/** A submitted priority: 0..255 keep their value, named by band (0 urgent, 1–10 high, 11–100 medium, else low). */
export function resolvePriority(p: string | number | null | undefined): { value: number; name: PriorityName } {
  if (p === null || p === undefined) return { value: PRIORITY_VALUES.medium, name: 'medium' };
  if (typeof p === 'string') {
    const name = p.toLowerCase();
    // Own names only (`in` would also accept "constructor" and the like).
    const known = PRIORITY_NAMES.find((x) => x === name);
    if (known !== undefined) return { value: PRIORITY_VALUES[known], name: known };
    if (/^\d+$/.test(p)) return resolvePriority(Number(p));
    throw badRequest(`priority: expected one of ${PRIORITY_NAMES.join(', ')} or an integer 0..255`);
  }
  if (!Number.isInteger(p) || p < 0 || p > 255) {
    throw badRequest(`priority: expected one of ${PRIORITY_NAMES.join(', ')} or an integer 0..255`);
  }
  const name: PriorityName =
    p <= PRIORITY_VALUES.urgent
      ? 'urgent'
      : p <= PRIORITY_VALUES.high
        ? 'high'
        : p <= PRIORITY_VALUES.medium
          ? 'medium'
          : 'low';
  return { value: p, name };
}
