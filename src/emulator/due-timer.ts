// The emulator's background work: with a real clock, a timer that runs the engine's due events
// while nobody asks, and retention, which drops concluded PRs and runs past their window.
import type { Clock } from './clock.js';
import type { QueueEngine } from './engine/index.js';
import { DEFAULT_RETENTION_MS, pruneConcluded } from './engine/retention.js';
import type { ReadCache } from './http/read-cache.js';
import type { StateStore } from './store.js';

/** How often (engine time) retention looks for concluded PRs to drop. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface DueTimerOptions {
  engine: QueueEngine;
  clock: Clock;
  readCache: ReadCache;
  log: (line: string) => void;
  store?: StateStore | undefined;
  retentionMs?: number | undefined;
}

export interface DueTimer {
  schedule(): void;
  maybePrune(): number | undefined;
  stop(): void;
}

export function dueTimer(opts: DueTimerOptions): DueTimer {
  const { engine, clock, readCache, log, store } = opts;
  const retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  let lastPruneAt = -Infinity;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  /** Drops concluded PRs and runs past the retention window, at most once per engine hour. */
  function maybePrune(): number | undefined {
    const now = engine.now;
    if (now - lastPruneAt < PRUNE_EVERY_MS) return undefined;
    lastPruneAt = now;
    const cutoff = now - retentionMs;
    const pruned = pruneConcluded(engine.state, cutoff);
    if (pruned.prs + pruned.runs === 0) return undefined;
    readCache.invalidate();
    log(
      `mq emulator: retention dropped ${pruned.prs} concluded pull requests and ${pruned.runs} test runs ` +
        `older than ${new Date(cutoff).toISOString()}`,
    );
    return store?.recordPrune(now, cutoff);
  }

  /** The engine time the armed timer fires for (a request that leaves it unchanged re-arms nothing). */
  let armedFor: number | null = null;
  function schedule(): void {
    if (clock.kind !== 'real' || stopped) return;
    const due = engine.nextDueAt();
    if (timer && due === armedFor) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    armedFor = due;
    if (due === null) return;
    // setTimeout caps at ~24.8 days; a longer wait simply re-arms on firing.
    const delay = Math.min(clock.wallDelayUntil(due), 2_147_483_647);
    timer = setTimeout(() => {
      timer = undefined;
      let recorded = false;
      store?.beginOp();
      readCache.invalidate();
      try {
        const at = Math.max(clock.now(), engine.now);
        engine.advance(at);
        if (store) {
          store.recordTick(at);
          recorded = true;
        }
        maybePrune();
      } catch (err) {
        log(`mq emulator: processing due events failed: ${(err as Error).stack ?? String(err)}`);
      } finally {
        store?.endOp(recorded);
      }
      schedule();
    }, delay);
  }

  return {
    schedule,
    maybePrune,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
