// Retention: concluded PRs and finished runs older than the cutoff are dropped, unless still referred
// to. Deterministic, so a journal can replay it.
import type { EngineState, QueueRecord } from './types.js';

export const DEFAULT_RETENTION_MS = 45 * 24 * 60 * 60 * 1000;

export interface PruneResult {
  prs: number;
  runs: number;
}

export function pruneConcluded(state: EngineState, cutoff: number): PruneResult {
  let prs = 0;
  let runs = 0;
  for (const q of Object.values(state.queues)) {
    const r = pruneQueue(state, q, cutoff);
    prs += r.prs;
    runs += r.runs;
  }
  return { prs, runs };
}

function pruneQueue(state: EngineState, q: QueueRecord, cutoff: number): PruneResult {
  const dropEntries = new Set<number>();
  for (const n of q.entryOrder) {
    const e = q.entries[String(n)];
    if (!e || e.live || e.list !== null || e.bisection !== null) continue;
    if (e.stateChangedAt >= cutoff) continue;
    dropEntries.add(n);
  }
  // Runs something still points at are kept.
  const referenced = new Set<string>();
  for (const e of Object.values(q.entries)) {
    if (dropEntries.has(e.prNumber)) continue;
    if (e.runId) referenced.add(e.runId);
    if (e.verifiedByTestRun) referenced.add(e.verifiedByTestRun);
  }
  for (const b of Object.values(q.bisections)) for (const node of b.nodes) if (node.runId) referenced.add(node.runId);
  let runs = 0;
  const keptRuns: string[] = [];
  for (const id of q.runIds) {
    const run = state.runs[id];
    if (!run) continue;
    const finishedAt = run.completedAt ?? run.createdAt;
    if (run.status !== 'in_progress' && finishedAt < cutoff && !referenced.has(id)) {
      delete state.runs[id];
      runs++;
    } else {
      keptRuns.push(id);
    }
  }
  if (runs > 0) q.runIds = keptRuns;
  if (dropEntries.size > 0) {
    for (const n of dropEntries) {
      delete q.entries[String(n)];
      delete q.impactedTargets[String(n)];
    }
    q.entryOrder = q.entryOrder.filter((n) => !dropEntries.has(n));
    // Ordinals are positions in entryOrder (new entries take its length): renumber, keeping order.
    q.entryOrder.forEach((n, i) => {
      const e = q.entries[String(n)];
      if (e) e.ordinal = i;
    });
  }
  return { prs: dropEntries.size, runs };
}
