/**
 * Creating, checking and looking things up in the engine state. `validateState` is deliberately a
 * structural check, not a full schema: it exists so a truncated or foreign file is refused at start
 * with a clear message instead of crashing the first request that touches it.
 */
import { defaultConfig } from './config.js';
import { notFound } from './errors.js';
import { queueKey } from './lifecycle.js';
import { emptySamples } from './metrics.js';
import { emptyList } from './queue-order.js';
import type { EngineState, QueueMode, QueueRecord, RepoRef } from './types.js';

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

export function newQueue(repo: RepoRef, branch: string, now: number, mode?: QueueMode, concurrency?: number): QueueRecord {
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
    runIds: [],
    impactedTargets: {},
    samples: emptySamples(),
  };
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
  return value as unknown as EngineState;
}
