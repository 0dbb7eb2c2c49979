// Creating, checking and looking up engine state; `validateState` is structural, so a truncated or
// foreign file is refused at start, not at the first request.
import { defaultConfig } from './config.js';
import { notFound } from './errors.js';
import { queueKey } from './lifecycle.js';
import { emptySamples } from './metrics.js';
import { emptyList } from './queue-order.js';
import type { QueueMode } from '../../domain/vocabulary.js';
import type { EngineState, QueueRecord, RepoRef } from './types.js';

export function createState(seed = 1, now = 0): EngineState {
  return {
    format: 'mq-emulator-engine',
    version: 1,
    now,
    rng: seed >>> 0,
    seq: 0,
    queues: {},
    fakePrs: {},
    runs: {},
    events: [],
  };
}

export function newQueue(
  repo: RepoRef,
  branch: string,
  now: number,
  mode?: QueueMode,
  concurrency?: number,
): QueueRecord {
  return {
    key: queueKey(repo, branch),
    repo: { host: repo.host, owner: repo.owner, name: repo.name },
    branch,
    state: 'running',
    config: defaultConfig(mode, concurrency),
    createdAt: now,
    entries: {},
    entryOrder: [],
    started: emptyList(),
    waiting: {},
    notReady: emptyList(),
    pinSeq: 0,
    counts: { admitted: 0, notReady: 0, testing: 0, pendingFailure: 0 },
    inFlight: { main: 0, bisection: 0 },
    runIds: [],
    impactedTargets: {},
    samples: emptySamples(),
    ...issue6Fields(),
  };
}

/** Queue fields added with batching, bisection, parallel mode and mode switches. */
function issue6Fields() {
  return {
    waitingIndex: { targets: {}, all: 0, nonEmpty: 0 },
    batchTimerAt: null,
    bisections: {},
    bisectionSamples: { conclusions: { head: 0, items: [] }, restarts: { head: 0, items: [] } },
    everBisected: false,
    switching: null,
    tipSeq: 0,
    merges: 0,
  } satisfies Partial<QueueRecord>;
}

/** Fills fields older saved states lack (unused then), so an older --data-dir keeps working. */
function upgrade(state: EngineState): void {
  for (const q of Object.values(state.queues)) {
    const rec = q as Partial<QueueRecord> & QueueRecord;
    for (const [k, v] of Object.entries(issue6Fields())) {
      if ((rec as unknown as Record<string, unknown>)[k] === undefined)
        (rec as unknown as Record<string, unknown>)[k] = v;
    }
    if (rec.inFlight === undefined) {
      rec.inFlight = { main: 0, bisection: 0 };
      for (const id of rec.runIds) if (state.runs[id]?.status === 'in_progress') rec.inFlight.main++;
    }
    for (const e of Object.values(rec.entries)) {
      if (e.targets === undefined) e.targets = null;
      if (e.bisection === undefined) e.bisection = null;
      // Older states kept no history: start it with the current state.
      if (e.history === undefined)
        e.history = [[e.stateChangedAt, e.state, e.conclusionReason ?? 'USER_REQUESTED', e.runId]];
    }
  }
  for (const r of Object.values(state.runs)) {
    if (r.bisectionId === undefined) r.bisectionId = null;
    if (r.targets === undefined) r.targets = null;
    // Scripts were spent at the start then; -1 = unknown branch state (never reused).
    if (r.scripts === undefined) r.scripts = [];
    if (r.branchAt === undefined) r.branchAt = -1;
    if (r.startedBisection === undefined) r.startedBisection = false;
  }
  for (const p of Object.values(state.fakePrs)) if (p.upToDateTip === undefined) p.upToDateTip = null;
}

export function describeQueue(repo: RepoRef, branch: string): string {
  return `branch "${branch}" of ${repo.host}/${repo.owner}/${repo.name}`;
}

export function mustQueue(state: EngineState, repo: RepoRef, branch: string): QueueRecord {
  const q = state.queues[queueKey(repo, branch)];
  if (!q) throw notFound(`no merge queue exists for ${describeQueue(repo, branch)}`);
  return q;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Throws a description of the first structural problem found, or returns the state typed. */
export function validateState(value: unknown): EngineState {
  if (!isObj(value)) throw new Error('not a JSON object');
  if (value.format !== 'mq-emulator-engine') throw new Error('not an mq emulator state (format marker missing)');
  if (value.version !== 1) throw new Error(`unsupported state version ${String(value.version)}`);
  for (const k of ['now', 'rng', 'seq'] as const) {
    if (typeof value[k] !== 'number' || !Number.isFinite(value[k])) throw new Error(`field "${k}" is not a number`);
  }
  for (const k of ['queues', 'fakePrs', 'runs'] as const) {
    if (!isObj(value[k])) throw new Error(`field "${k}" is not an object`);
  }
  if (!Array.isArray(value.events)) throw new Error('field "events" is not an array');
  for (const [key, q] of Object.entries(value.queues as Record<string, unknown>)) {
    if (!isObj(q) || !isObj(q.entries) || !isObj(q.config) || !isObj(q.started) || !isObj(q.counts)) {
      throw new Error(`queue "${key}" is malformed`);
    }
  }
  const state = value as unknown as EngineState;
  upgrade(state);
  return state;
}
