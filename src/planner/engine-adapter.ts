// Every use the planner makes of the engine goes through here, so an engine change touches one place.
import type { QueueInfo } from '../domain/types.js';
import { createState, QueueEngine, type Effect, type QueueUpdate, type RepoRef } from '../emulator/engine/index.js';
import type { SimSettings } from './model.js';

export type { Effect };

export const SIM_REPO: RepoRef = { host: 'planner.invalid', owner: 'planner', name: 'simulated' };
export const SIM_BRANCH = 'main';
const Q = { repo: SIM_REPO, targetBranch: SIM_BRANCH };

export interface RunInfo {
  inProgress: boolean;
  group: number[];
  base: number[];
}

export class SimEngine {
  private readonly engine: QueueEngine;
  constructor(seed: number, t0: number, onEffect: (e: Effect) => void) {
    this.engine = new QueueEngine(createState(seed, t0), { onEffect });
  }

  configure(s: SimSettings, now: number): void {
    this.engine.createQueue({ ...Q, mode: s.mode, concurrency: s.concurrency }, now);
    const update: QueueUpdate = {
      concurrency: s.concurrency,
      testingTimeoutMinutes: s.testingTimeoutMinutes,
      pendingFailureDepth: s.pendingFailureDepth,
      canOptimisticallyMerge: s.canOptimisticallyMerge,
      batch: s.batch,
      batchingMinSize: s.batchingMinSize,
      batchingMaxWaitTimeMinutes: s.batchingMaxWaitTimeMinutes,
      optimizationMode: s.optimizationMode,
      directMergeMode: 'off',
    };
    if (s.bisectionConcurrency !== null) update.bisectionConcurrency = s.bisectionConcurrency;
    this.engine.updateQueue({ ...Q, ...update }, now);
  }

  /** Declares PR `n` (its run results are decided by the planner) and submits it. */
  submit(n: number, breaksBuild: boolean, lane: string | null, now: number): void {
    // The planner completes runs itself, so the engine's own completion must never come first.
    const pr = this.engine.upsertFakePr({ repo: SIM_REPO, number: n, breaksBuild, testMinutes: 1e8 }, now);
    if (lane !== null)
      this.engine.setImpactedTargets({ ...Q, pr: { number: n, sha: pr.sha }, impactedTargets: [lane] }, now);
    this.engine.submit({ ...Q, pr: { number: n } }, now);
  }

  run(id: string): RunInfo | undefined {
    const r = this.engine.state.runs[id];
    return r ? { inProgress: r.status === 'in_progress', group: r.group, base: r.base } : undefined;
  }

  /** Ends a run in flight; false when the engine had already ended it (e.g. a timeout at that instant). */
  complete(id: string, passed: boolean, now: number): boolean {
    this.engine.advance(now);
    if (!this.run(id)?.inProgress) return false;
    this.engine.completeRun(id, passed ? 'passed' : 'failed', now);
    return true;
  }

  advance(now: number): void {
    this.engine.advance(now);
  }

  nextDueAt(): number | null {
    return this.engine.nextDueAt();
  }
}

/** The service's default settings, as the engine's createQueue applies them. */
export function engineDefaults(): QueueInfo {
  const engine = new QueueEngine(createState(1, 0));
  engine.createQueue(Q, 0);
  const q = engine.getQueue(Q, 0);
  return { ...q.config, branch: q.branch, state: q.state };
}
