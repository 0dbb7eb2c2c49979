// The API's queue operations (create, delete, update); the caller has advanced the engine already.
import { applyConfigUpdate, validateUpdate, type QueueUpdate } from './config.js';
import { badRequest, conflict } from './errors.js';
import { queueKey, type Core } from './lifecycle.js';
import { admitAll } from './membership.js';
import { reconcile } from './scheduler.js';
import { describeQueue, mustQueue, newQueue } from './state.js';
import type { QueueMode, RequestableQueueState } from '../../domain/vocabulary.js';
import type { QueueRecord, RepoRef } from './types.js';
import { queueView, type QueueView } from './views.js';

export interface QueueRef {
  repo: RepoRef;
  targetBranch: string;
}

export function createQueue(core: Core, req: QueueRef & { mode?: QueueMode; concurrency?: number }): void {
  validateUpdate({ concurrency: req.concurrency });
  const key = queueKey(req.repo, req.targetBranch);
  if (core.state.queues[key]) {
    throw conflict(`A merge queue already exists for branch "${req.targetBranch}" in this repository`);
  }
  core.state.queues[key] = newQueue(req.repo, req.targetBranch, core.state.now, req.mode, req.concurrency);
}

/** Deleting a missing queue is a no-op; a queue with live PRs (NOT_READY included) is refused. */
export function deleteQueue(core: Core, req: QueueRef): void {
  const key = queueKey(req.repo, req.targetBranch);
  const q = core.state.queues[key];
  if (!q) return;
  const live = q.counts.admitted + q.counts.notReady;
  if (live > 0) {
    throw badRequest(
      `the merge queue for ${describeQueue(q.repo, q.branch)} is not empty: ${live} pull ` +
        `request${live === 1 ? '' : 's'} still in it; cancel or merge them first`,
    );
  }
  for (const id of q.runIds) delete core.state.runs[id];
  delete core.state.queues[key];
}

/**
 * Stores settings for the next scheduling decision (runs in flight keep theirs); `running` resumes and
 * admits; draining stays draining when empty (D10). A mode change with admitted PRs starts a switch
 * (D11) during which only `state` may change (else 400 MODE_CHANGE_IN_PROGRESS; same values are fine).
 */
export function updateQueue(core: Core, req: QueueRef & QueueUpdate): QueueView {
  const q = mustQueue(core.state, req.repo, req.targetBranch);
  validateUpdate(req);
  const state: RequestableQueueState | undefined = req.state;
  if (state !== undefined && !['running', 'paused', 'draining'].includes(state)) {
    throw badRequest('state: expected one of running, paused, draining');
  }
  if (q.switching) {
    const changes = changedSettings(q, req);
    if (changes.length > 0) {
      throw badRequest(
        `the merge queue for ${describeQueue(q.repo, q.branch)} is switching modes (to ${q.switching.to}); ` +
          `only its state can be changed until the pull requests in it have merged or left ` +
          `(refused: ${changes.join(', ')})`,
      );
    }
    if (state !== undefined) q.switching.resume = state;
    reconcile(core, q);
    return queueView(q);
  }
  const switchTo = req.mode !== undefined && req.mode !== q.config.mode && q.counts.admitted > 0 ? req.mode : null;
  const modeBefore = q.config.mode;
  applyConfigUpdate(q.config, switchTo === null ? req : { ...req, mode: undefined });
  if (switchTo !== null) {
    q.switching = { to: switchTo, resume: state ?? (q.state as RequestableQueueState) };
    q.state = 'switching_modes';
  } else if (state !== undefined) {
    q.state = state;
  }
  if (q.state === 'running' || q.config.mode !== modeBefore) admitAll(core, q);
  reconcile(core, q);
  return queueView(q);
}

/** The settings an update would change (everything but `state`). */
function changedSettings(q: QueueRecord, u: QueueUpdate): string[] {
  const c = q.config as unknown as Record<string, unknown>;
  const out: string[] = [];
  for (const [k, v] of Object.entries(u)) {
    if (v === undefined || ['repo', 'targetBranch', 'state', 'requiredStatuses', 'deleteRequiredStatuses'].includes(k))
      continue;
    if (c[k] !== v) out.push(k);
  }
  const rs = q.config.requiredStatuses;
  if (
    u.requiredStatuses &&
    u.requiredStatuses.length > 0 &&
    (rs === null || rs.join('\n') !== u.requiredStatuses.join('\n'))
  ) {
    out.push('requiredStatuses');
  }
  if (u.deleteRequiredStatuses && rs !== null) out.push('deleteRequiredStatuses');
  return out;
}
