/**
 * A queue's settings and mode over v2: PATCH `/config` (JSON Merge Patch: a field left out stays,
 * `null` clears what can be cleared, `requiredStatuses: []` clears the list) and `/switch-modes`.
 * Both refuse with 409 MODE_CHANGE_IN_PROGRESS while a mode switch is under way.
 */
import { z } from 'zod';

import type { QueueUpdate } from '../../engine/index.js';
import { requirePermission } from './auth.js';
import { at, parse, queueOf, ref, type V2Context, type V2Route } from './context.js';
import { fromEngine, V2Error } from './errors.js';
import { v1Mode, v2Queue, v2StateChange } from './wire.js';
import { EngineError, type QueueRecord } from '../../engine/index.js';

const int = (min: number, max: number) => z.optional(z.int().gte(min).lte(max));
const bool = () => z.optional(z.boolean());

const patchBody = z.strictObject({
  concurrency: int(1, 1000),
  bisectionConcurrency: int(0, 1000),
  pendingFailureDepth: int(0, 1000),
  canOptimisticallyMerge: bool(),
  allowBatching: bool(),
  batchingMaxWaitTimeMinutes: int(0, 10080),
  batchingMinSize: int(1, 1000),
  testingTimeoutMinutes: int(0, 10080),
  notReadyTimeoutMinutes: z.optional(z.int().gte(0).lte(43200).multipleOf(60)),
  createsPrsForTestingBranches: bool(),
  areCommentsEnabled: bool(),
  areCommandsEnabled: bool(),
  isStatusCheckEnabled: bool(),
  isExtensionEnabled: bool(),
  areLabelCommandsEnabled: bool(),
  areStateLabelsEnabled: bool(),
  requiredStatuses: z.optional(z.nullable(z.array(z.string().min(1).max(255)).max(100))),
  allowedBotSubmitters: z.optional(z.array(z.string().min(1)).max(100)),
  batchingRules: z.optional(
    z.array(z.strictObject({ targetPattern: z.string(), policy: z.enum(['isolate']) })).max(100),
  ),
  directMergeMode: z.optional(z.enum(['off', 'always'])),
  optimizationMode: z.optional(z.enum(['off', 'bisectionSkipRedundantTests'])),
  mergeMethod: z.optional(z.enum(['mergeCommit', 'squash', 'rebase'])),
  testBranchConstructionMode: z.optional(z.enum(['renameTempBranch', 'pushNewBranchFromTemp'])),
  enqueueingLabel: z.optional(z.nullable(z.string().min(1).max(255))),
});

/** v2 setting -> v1 setting (the same value). */
const SAME: Record<string, keyof QueueUpdate> = {
  concurrency: 'concurrency',
  pendingFailureDepth: 'pendingFailureDepth',
  canOptimisticallyMerge: 'canOptimisticallyMerge',
  allowBatching: 'batch',
  batchingMaxWaitTimeMinutes: 'batchingMaxWaitTimeMinutes',
  batchingMinSize: 'batchingMinSize',
  testingTimeoutMinutes: 'testingTimeoutMinutes',
  createsPrsForTestingBranches: 'createPrsForTestingBranches',
  areCommentsEnabled: 'commentsEnabled',
  areCommandsEnabled: 'commandsEnabled',
  isStatusCheckEnabled: 'statusCheckEnabled',
  isExtensionEnabled: 'extensionEnabled',
  areLabelCommandsEnabled: 'labelCommandsEnabled',
  areStateLabelsEnabled: 'stateLabelsEnabled',
  directMergeMode: 'directMergeMode',
};

/** Settings the emulator does not model: only their one value is accepted. */
const FIXED: Record<string, unknown> = {
  notReadyTimeoutMinutes: 0,
  allowedBotSubmitters: [],
  batchingRules: [],
  testBranchConstructionMode: 'renameTempBranch',
};

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The v1 update a patch makes on queue `q`. */
function toUpdate(patch: z.output<typeof patchBody>, q: QueueRecord): QueueUpdate {
  const update: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const v1 = SAME[k];
    if (v1) update[v1] = v;
    else if (k in FIXED) {
      if (JSON.stringify(v) !== JSON.stringify(FIXED[k])) {
        throw new V2Error('VALIDATION_FAILED', `${k}: the emulator keeps ${JSON.stringify(FIXED[k])} only`);
      }
    }
  }
  if (patch.bisectionConcurrency !== undefined) {
    if (patch.bisectionConcurrency > 0) update.bisectionConcurrency = patch.bisectionConcurrency;
    else if (q.config.bisectionConcurrency !== null) {
      throw new V2Error(
        'VALIDATION_FAILED',
        'bisectionConcurrency: the emulator cannot set 0 back once a value is set',
      );
    }
  }
  if (patch.optimizationMode !== undefined) update.optimizationMode = snake(patch.optimizationMode);
  if (patch.mergeMethod !== undefined) update.mergeMethod = snake(patch.mergeMethod);
  if (patch.requiredStatuses === null || patch.requiredStatuses?.length === 0) update.deleteRequiredStatuses = true;
  else if (patch.requiredStatuses !== undefined) update.requiredStatuses = patch.requiredStatuses;
  if (patch.enqueueingLabel !== undefined) update.enqueueingLabel = patch.enqueueingLabel;
  return update as QueueUpdate;
}

function notSwitching(q: QueueRecord): void {
  if (q.switching !== null)
    throw new V2Error('MODE_CHANGE_IN_PROGRESS', 'the merge queue is switching modes; try again when it is done');
}

async function update(c: V2Context, q: QueueRecord, u: QueueUpdate): Promise<void> {
  try {
    await c.change('/v1/updateQueue', { ...ref(q), ...u });
  } catch (err) {
    throw err instanceof EngineError ? fromEngine(err) : err;
  }
}

export const configRoutes: V2Route[] = [
  {
    method: 'PATCH',
    path: at('merge-queues/{id}/config'),
    body: true,
    async handle(c) {
      requirePermission(c.key, 'settings', 'change queue settings');
      const patch = parse(patchBody, c.body);
      const q = queueOf(c);
      const u = toUpdate(patch, q);
      if (Object.keys(u).length > 0) {
        notSwitching(q);
        await update(c, q, u);
      }
      return { json: v2Queue(q) };
    },
  },
  {
    method: 'POST',
    path: at('merge-queues/{id}/switch-modes'),
    body: true,
    async handle(c) {
      requirePermission(c.key, 'settings', 'switch a queue mode');
      const { mode } = parse(z.strictObject({ mode: z.enum(['queue', 'graph']) }), c.body);
      const q = queueOf(c);
      notSwitching(q);
      await update(c, q, { mode: v1Mode(mode) });
      return { json: v2StateChange(q) };
    },
  },
];
