// Starting the emulator: state, clock, store, listen. prom-client loads on the first metrics scrape.
import { randomBytes } from 'node:crypto';

import { CLOCK_HORIZON, manualClock, realClock, type Clock } from './clock.js';
import { lockDataDir, prepareDataDir, removeStaleTempFiles, type DataDirLock } from './data-dir.js';
import { QueueEngine, createState, type Effect } from './engine/index.js';
import { createEmulatorServer } from './server.js';
import { defaultApiKey, type ApiKey } from './http/v2/auth.js';
import { StateStore, loadDataDir, type LoadedData } from './store.js';
import { WebhookDispatcher, type WebhookTarget } from './webhooks.js';

export interface StartEmulatorOptions {
  host?: string;
  port?: number;
  token?: string;
  /** v2 API keys (default: one named "default" with every permission; `v2Key` sets its value). */
  apiKeys?: ApiKey[];
  v2Key?: string;
  /** v2 rate limits (default on); `rateLimitClock` replaces the wall clock they count by (tests). */
  rateLimits?: boolean;
  rateLimitClock?: () => number;
  /** v2: queues serve merge estimates unless switched off one by one (default true); false: the reverse. */
  estimates?: boolean;
  clock?: 'real' | 'manual';
  /** Engine minutes per wall minute on the real clock (default 1). */
  speed?: number;
  dataDir?: string;
  /** PRNG seed for ids and SHAs of a fresh state (default: random). */
  seed?: number;
  /** Engine time a fresh state starts at (default: now). */
  startTime?: number;
  log?: (line: string) => void;
  /** Receivers of webhook events, each with its `whsec_…` signing secret. */
  webhooks?: WebhookTarget[];
  /** Delays before each retry of a failed delivery (default 5 s, 30 s, 2 min, 10 min, 30 min). */
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
  /** Pending deliveries per receiver before the oldest is dropped (default 1,000). */
  webhookQueueCap?: number;
  /** Concluded PRs and finished runs older than this much engine time are dropped (default 45 days). */
  retentionMs?: number;
  /** With --data-dir: journal bytes before a snapshot (default 4 MiB, or the last snapshot's size if larger). */
  snapshotMinBytes?: number;
  /** Called with every engine effect (PR and batch transitions), in order; used by `mq demo`. */
  onEffect?: (effect: Effect) => void;
}

export interface RunningEmulator {
  url: string;
  token: string;
  /** The v2 keys; the first is the one `mq emulator start` prints. */
  apiKeys: ApiKey[];
  host: string;
  port: number;
  engine: QueueEngine;
  webhooks?: WebhookDispatcher;
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';

export function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? DEFAULT_HOST;
  const speed = options.speed ?? 1;
  if (!(Number.isFinite(speed) && speed > 0)) throw new Error(`speed must be a number greater than 0, got ${speed}`);
  const token = options.token ?? randomBytes(24).toString('hex');
  if (token === '') throw new Error('token must not be empty');

  // One owner per data dir: take its lock first, then clean up after a crash and load.
  let lock: DataDirLock | undefined;
  let loaded: LoadedData | undefined;
  if (options.dataDir) {
    prepareDataDir(options.dataDir);
    lock = lockDataDir(options.dataDir);
    try {
      removeStaleTempFiles(options.dataDir);
      loaded = loadDataDir(options.dataDir);
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  try {
    return await startWith(options, host, speed, token, loaded, lock);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function startWith(
  options: StartEmulatorOptions,
  host: string,
  speed: number,
  token: string,
  loaded: LoadedData | undefined,
  lock: DataDirLock | undefined,
): Promise<RunningEmulator> {
  const wallNow = Date.now();
  const startTime = options.startTime ?? wallNow;
  if (!(startTime >= 0 && startTime <= CLOCK_HORIZON))
    throw new Error(`start time must lie between 1970 and ${new Date(CLOCK_HORIZON).toISOString()}`);
  const state = loaded?.state ?? createState(options.seed ?? randomBytes(4).readUInt32LE(0), startTime);
  const webhooks = options.webhooks?.length
    ? new WebhookDispatcher({
        targets: options.webhooks,
        ...(options.webhookRetryDelaysMs ? { retryDelaysMs: options.webhookRetryDelaysMs } : {}),
        ...(options.webhookTimeoutMs !== undefined ? { timeoutMs: options.webhookTimeoutMs } : {}),
        ...(options.webhookQueueCap !== undefined ? { queueCap: options.webhookQueueCap } : {}),
        ...(options.log ? { log: options.log } : {}),
        ...(loaded ? { restore: loaded.webhooks } : {}),
      })
    : undefined;
  // A webhook problem must never break the engine operation that produced the effect.
  const listener = options.onEffect;
  const passOn = (e: Effect) => {
    try {
      webhooks?.enqueue(e);
      listener?.(e);
    } catch (err) {
      options.log?.(`mq emulator: could not pass on an effect: ${(err as Error).message}`);
    }
  };
  // With --data-dir an effect waits until the change that produced it is durable.
  let store: StateStore | undefined;
  const onEffect = (e: Effect) => (store ? store.effect(e) : passOn(e));
  const engine = new QueueEngine(state, webhooks || listener ? { onEffect } : {});
  // A reloaded real clock continues from the later of the saved time and now: time never runs back.
  const clock: Clock =
    options.clock === 'manual' ? manualClock(() => engine.now) : realClock(Math.max(engine.now, wallNow), speed);
  engine.advance(clock.now());

  let emuRef: { changed(): void } | undefined;
  if (options.dataDir) {
    store = await StateStore.open({
      dir: options.dataDir,
      engine,
      seq: loaded?.seq ?? 0,
      ...(webhooks ? { webhooks } : {}),
      release: passOn,
      ...(options.log ? { log: options.log } : {}),
      onRollback: () => emuRef?.changed(),
      ...(options.snapshotMinBytes !== undefined ? { snapshotMinBytes: options.snapshotMinBytes } : {}),
    });
    const s = store;
    webhooks?.setPersistence({ record: (kind, data) => s.recordWebhook(kind, data) });
  }
  const apiKeys = options.apiKeys ?? [defaultApiKey(options.v2Key)];
  const emu = createEmulatorServer({
    engine,
    clock,
    token,
    apiKeys,
    ...(options.rateLimits === false ? { rateLimits: false } : {}),
    ...(options.rateLimitClock ? { rateLimitClock: options.rateLimitClock } : {}),
    ...(options.estimates === false ? { estimates: false } : {}),
    ...(store ? { store } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(options.retentionMs !== undefined ? { retentionMs: options.retentionMs } : {}),
  });
  emuRef = emu;
  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      emu.server.once('error', onError);
      emu.server.listen(options.port ?? 0, host, () => {
        emu.server.off('error', onError);
        resolve();
      });
    });
  } catch (err) {
    await webhooks?.close();
    await store?.close().catch(() => {});
    throw err;
  }
  emu.schedule();
  const address = emu.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  let closed: Promise<void> | undefined;
  return {
    url: `http://${formatHost(host)}:${port}/v1`,
    token,
    apiKeys,
    host,
    port,
    engine,
    ...(webhooks ? { webhooks } : {}),
    close() {
      closed ??= (async () => {
        try {
          await emu.close();
          await webhooks?.close();
          await store?.close();
        } finally {
          lock?.release();
        }
      })();
      return closed;
    },
  };
}
