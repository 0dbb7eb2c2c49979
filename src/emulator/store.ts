// Durable state for `--data-dir`: a snapshot (`state.json`) plus a write-ahead journal of requests
// (the engine is deterministic, so replay is exact; no database, no native module). Answers wait for
// fdatasync (group commit); a failed write rolls back to disk (client gets 503) and its effects drop.
// A snapshot is written atomically once the journal outgrows the last one; replay: recovery.ts.
import { fsyncSync, openSync, closeSync, readFileSync, unlinkSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { openNewFileHandle } from './data-dir.js';
import type { Effect, QueueEngine } from './engine/index.js';
import type { Route } from './http/route.js';
import { Journal, journalFiles } from './journal.js';
import { loadDataDir, routeKey, STATE_FILE } from './recovery.js';
import type { WebhookDispatcher } from './webhooks.js';

export { loadDataDir, loadState, replay, routeKey, STATE_FILE, StateLoadError, type LoadedData } from './recovery.js';

const SNAPSHOT_FORMAT = 'mq-emulator-data';
/** A snapshot is written once the journal holds this much, or more if the last snapshot was larger. */
const MIN_COMPACT_BYTES = 4 * 1024 * 1024;

export interface StateStoreOptions {
  dir: string;
  engine: QueueEngine;
  /** Last sequence number already used (from loadDataDir). */
  seq: number;
  webhooks?: WebhookDispatcher;
  /** Effects released once their change is durable. */
  release: (effect: Effect) => void;
  log?: (line: string) => void;
  /** Called after the state was rebuilt from disk because a write failed. */
  onRollback?: () => void;
  /** Journal bytes before a snapshot is considered (default 4 MiB; tests use less). */
  snapshotMinBytes?: number;
}

export class StateStore {
  private readonly dir: string;
  private readonly engine: QueueEngine;
  private readonly webhooks: WebhookDispatcher | undefined;
  private readonly release: (effect: Effect) => void;
  private readonly log: (line: string) => void;
  private readonly onRollback: () => void;
  private readonly minCompact: number;
  private journal!: Journal;
  private held: Array<{ tag: number; effect: Effect }> = [];
  private inOp = false;
  private compacting: Promise<void> | undefined;
  private snapshotBytes = 0;
  private tmpSeq = 0;
  private closed = false;

  private constructor(opts: StateStoreOptions) {
    this.dir = opts.dir;
    this.engine = opts.engine;
    this.webhooks = opts.webhooks;
    this.release = opts.release;
    this.log = opts.log ?? (() => {});
    this.onRollback = opts.onRollback ?? (() => {});
    this.minCompact = opts.snapshotMinBytes ?? MIN_COMPACT_BYTES;
  }

  /** Opens the journal after writing a snapshot of the loaded state (so replay starts from it). */
  static async open(opts: StateStoreOptions): Promise<StateStore> {
    const store = new StateStore(opts);
    store.journal = await Journal.open(opts.dir, opts.seq, {
      onDurable: (seq) => store.durableUpTo(seq),
      onFailure: (err) => store.rollback(err),
    });
    await store.compact();
    return store;
  }

  /** Marks the start of a change: effects emitted until `endOp` belong to its record. */
  beginOp(): void {
    this.inOp = true;
  }

  /** Ends a change; without a record (the change was refused), its effects join the last record. */
  endOp(recorded: boolean): void {
    this.inOp = false;
    if (!recorded) {
      const last = this.journal.lastSeq;
      for (const h of this.held) if (h.tag > last) h.tag = last;
      this.durableUpTo(this.journal.durableSeq);
    }
  }

  recordOp(route: Route, params: string[], input: unknown, at: number): number {
    return this.journal.append({
      k: 'op',
      t: at,
      r: routeKey(route),
      ...(params.length ? { p: params } : {}),
      ...(input !== undefined ? { b: input } : {}),
    });
  }

  recordTick(at: number): number {
    return this.journal.append({ k: 'tick', t: at });
  }

  recordPrune(at: number, cutoff: number): number {
    return this.journal.append({ k: 'prune', t: at, c: cutoff });
  }

  /** Webhook queue changes ride along with the next write; they need no answer. */
  recordWebhook(kind: 'w+' | 'w-', data: Record<string, unknown>): void {
    if (this.closed) return;
    this.journal.append({ k: kind, t: this.engine.now, ...data });
  }

  /** Resolves when the record is on disk; rejects with DurabilityError when it cannot be. */
  durable(seq: number): Promise<void> {
    return this.journal.durable(seq);
  }

  /** An engine effect: passed on now if nothing is outstanding, else once its change is durable. */
  effect(effect: Effect): void {
    const tag = this.inOp ? this.journal.lastSeq + 1 : this.journal.lastSeq;
    if (this.held.length === 0 && tag <= this.journal.durableSeq) {
      this.release(effect);
      return;
    }
    this.held.push({ tag, effect });
  }

  private durableUpTo(seq: number): void {
    let i = 0;
    while (i < this.held.length && this.held[i]!.tag <= seq) i++;
    if (i > 0) {
      const ready = this.held.splice(0, i);
      for (const h of ready) this.release(h.effect);
    }
    if (
      !this.compacting &&
      !this.closed &&
      this.journal.bytesSinceRotate > Math.max(this.minCompact, this.snapshotBytes)
    ) {
      this.compact().catch((err: unknown) =>
        this.log(`mq emulator: writing a snapshot failed: ${(err as Error).message}`),
      );
    }
  }

  /** A write failed: everything after the durable point is gone; rebuild the state from disk. */
  private rollback(err: unknown): void {
    this.log(
      `mq emulator: could not write to --data-dir ${this.dir}: ${(err as Error).message}; changes since ` +
        `the last durable one were undone`,
    );
    this.held = [];
    try {
      const loaded = loadDataDir(this.dir);
      if (loaded) this.engine.state = loaded.state;
    } catch (e) {
      this.log(`mq emulator: rebuilding the state from --data-dir failed: ${(e as Error).message}`);
    }
    this.onRollback();
  }

  /** Writes a snapshot of the state as of now and deletes the journal files it makes redundant. */
  compact(): Promise<void> {
    this.compacting ??= this.writeSnapshot().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private async writeSnapshot(): Promise<void> {
    // Serialise synchronously: exactly the state after record `seq`.
    const seq = this.journal.lastSeq;
    const text = JSON.stringify({
      format: SNAPSHOT_FORMAT,
      savedAt: new Date().toISOString(),
      seq,
      state: this.engine.state,
      webhooks: this.webhooks?.exportState() ?? { pending: [], dropped: {} },
    });
    const keepFrom = this.journal.rotate();
    // Only a state whose every change is durable may become the snapshot.
    await this.journal.durable(seq);
    const file = join(this.dir, STATE_FILE);
    const tmp = join(this.dir, `.${STATE_FILE}.${process.pid}.${++this.tmpSeq}.tmp`);
    // Never through a link planted under the temp name (it would write, then rename, the link).
    const fh = await openNewFileHandle(tmp);
    try {
      try {
        await fh.writeFile(text, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, file);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
    syncDir(this.dir);
    this.snapshotBytes = Buffer.byteLength(text);
    for (const f of journalFiles(this.dir)) {
      if (f.n >= keepFrom) continue;
      try {
        unlinkSync(join(this.dir, f.name));
      } catch {
        // gone already
      }
    }
  }

  /** Waits for outstanding writes, writes a final snapshot and closes the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.journal.flush();
    if (this.compacting) await this.compacting.catch(() => {});
    try {
      await this.compact();
    } finally {
      this.closed = true;
      await this.journal.close();
      // The fresh (empty) journal file of the last rotation is not needed either.
      for (const f of journalFiles(this.dir)) {
        try {
          if (readFileSync(join(this.dir, f.name)).length === 0) unlinkSync(join(this.dir, f.name));
        } catch {
          // gone already
        }
      }
    }
  }
}

/** Makes a rename durable; some platforms cannot open a directory, which is fine. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows and some filesystems refuse fsync on directories; the rename is still atomic.
  }
}
