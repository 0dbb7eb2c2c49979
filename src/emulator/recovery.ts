// Reading a `--data-dir` back: the snapshot plus the journal after it, replayed through the same routes
// (exact, as the engine is deterministic). At start-up and after a failed write.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CLOCK_HORIZON } from './clock.js';
import { QueueEngine, validateState, type EngineState } from './engine/index.js';
import { pruneConcluded } from './engine/retention.js';
import { apiRoutes } from './http/api-routes.js';
import { controlRoutes } from './http/control-routes.js';
import type { Route } from './http/route.js';
import { readJournal, JournalCorruptError, type JournalRecord } from './journal.js';
import type { PersistedDelivery, PersistedWebhooks } from './webhooks.js';

export const STATE_FILE = 'state.json';

export class StateLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateLoadError';
  }
}

export const routeKey = (r: Route) => `${r.method} ${r.path.source}`;
const ROUTES = new Map<string, Route>([...apiRoutes, ...controlRoutes].map((r) => [routeKey(r), r]));

export interface LoadedData {
  state: EngineState;
  /** Last sequence number in the snapshot and the journal. */
  seq: number;
  webhooks: PersistedWebhooks;
  snapshotBytes: number;
}

function readSnapshot(
  dir: string,
): { state: EngineState; seq: number; webhooks: PersistedWebhooks; bytes: number } | undefined {
  const file = join(dir, STATE_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateLoadError(`cannot read emulator state file ${file}: ${(err as Error).message}`);
  }
  let parsed: { state?: unknown; seq?: unknown; webhooks?: PersistedWebhooks };
  let state: EngineState;
  try {
    parsed = JSON.parse(text) as typeof parsed;
    state = validateState(parsed?.state);
  } catch (err) {
    throw new StateLoadError(
      `emulator state file ${file} is corrupt (${(err as Error).message}); move it away or choose another --data-dir`,
    );
  }
  checkTime(state.now, file);
  const seq = typeof parsed.seq === 'number' && Number.isInteger(parsed.seq) && parsed.seq >= 0 ? parsed.seq : 0;
  const webhooks =
    parsed.webhooks && Array.isArray(parsed.webhooks.pending) ? parsed.webhooks : { pending: [], dropped: {} };
  return { state, seq, webhooks, bytes: Buffer.byteLength(text) };
}

function checkTime(now: number, file: string): void {
  if (!Number.isFinite(now) || now < 0 || now > CLOCK_HORIZON) {
    throw new StateLoadError(
      `emulator state file ${file} holds an impossible time (${now}; it must lie between 1970 ` +
        `and ${new Date(CLOCK_HORIZON).toISOString()}); move it away or choose another --data-dir`,
    );
  }
}

/** A clock for replay: the route sees a manual clock standing at the record's time. */
const replayClock = (t: number) => ({
  kind: 'manual' as const,
  speed: 0,
  now: () => t,
  wallDelayUntil: () => Infinity,
});
const REPLAY_URL = new URL('http://emulator.invalid/');

/** Applies journal records to an engine (and to the pending-webhook list) in order. */
export function replay(engine: QueueEngine, records: JournalRecord[], webhooks: PersistedWebhooks): void {
  const pending = new Map(webhooks.pending.map((d) => [d.id, d]));
  for (const rec of records) {
    switch (rec.k) {
      case 'op': {
        const route = ROUTES.get(String(rec.r));
        if (!route)
          throw new StateLoadError(`the journal holds a request this emulator does not know (${String(rec.r)})`);
        engine.advance(rec.t);
        try {
          void route.handle(
            { engine, clock: replayClock(rec.t), now: rec.t, url: REPLAY_URL, params: (rec.p as string[]) ?? [] },
            rec.b as never,
          );
        } catch {
          // It succeeded when it ran; the engine is deterministic, so this does not happen.
        }
        break;
      }
      case 'tick':
        engine.advance(rec.t);
        break;
      case 'prune':
        engine.advance(rec.t);
        pruneConcluded(engine.state, Number(rec.c));
        break;
      case 'w+': {
        const d = rec.d as PersistedDelivery;
        pending.set(d.id, d);
        break;
      }
      case 'w-': {
        const gone = pending.get(String(rec.id));
        pending.delete(String(rec.id));
        if (rec.dropped === true && gone) webhooks.dropped[gone.url] = (webhooks.dropped[gone.url] ?? 0) + 1;
        break;
      }
    }
  }
  webhooks.pending = [...pending.values()];
}

/** The state of a data dir (snapshot + journal), or undefined when it holds none. Read-only. */
export function loadDataDir(dir: string): LoadedData | undefined {
  const snap = readSnapshot(dir);
  let records: JournalRecord[];
  try {
    records = readJournal(dir, snap?.seq ?? 0);
  } catch (err) {
    if (err instanceof JournalCorruptError)
      throw new StateLoadError(`${err.message}; move it away or choose another --data-dir`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') records = [];
    else throw err;
  }
  if (!snap && records.length === 0) return undefined;
  if (!snap) {
    throw new StateLoadError(
      `--data-dir ${dir} has journal files but no ${STATE_FILE}; move them away or choose another --data-dir`,
    );
  }
  const webhooks: PersistedWebhooks = { pending: [...snap.webhooks.pending], dropped: { ...snap.webhooks.dropped } };
  const engine = new QueueEngine(snap.state);
  replay(engine, records, webhooks);
  checkTime(engine.state.now, join(dir, STATE_FILE));
  return { state: engine.state, seq: records.at(-1)?.s ?? snap.seq, webhooks, snapshotBytes: snap.bytes };
}

/** Reads the state of a data dir: undefined when absent, StateLoadError when unreadable. */
export async function loadState(dir: string): Promise<EngineState | undefined> {
  return loadDataDir(dir)?.state;
}
