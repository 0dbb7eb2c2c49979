/**
 * Durable state for `--data-dir`. Each save writes the whole state to a temporary file, fsyncs it,
 * renames it over `state.json` and fsyncs the directory: a crash at any moment leaves either the
 * previous or the new file, never a torn one. Saves are coalesced: while one write is in flight,
 * every later request joins the next write, so a burst of mutations costs two writes, not one each,
 * and a request is still only answered once a write that includes its change has completed.
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { validateState, type EngineState } from './engine/index.js';

export const STATE_FILE = 'state.json';

export class StateLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateLoadError';
  }
}

/** Reads `state.json` from a data dir: undefined when absent, StateLoadError when unreadable. */
export async function loadState(dir: string): Promise<EngineState | undefined> {
  const file = join(dir, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateLoadError(`cannot read emulator state file ${file}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as { state?: unknown };
    return validateState(parsed?.state);
  } catch (err) {
    throw new StateLoadError(
      `emulator state file ${file} is corrupt (${(err as Error).message}); move it away or choose another --data-dir`,
    );
  }
}

export class StateStore {
  private writing: Promise<void> | null = null;
  private next: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  private tmpSeq = 0;

  constructor(
    private readonly dir: string,
    private readonly snapshot: () => EngineState,
  ) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  /** Resolves once a write that started after this call has reached the disk. */
  save(): Promise<void> {
    if (!this.writing) {
      this.writing = this.write().finally(() => this.afterWrite());
      return this.writing;
    }
    if (!this.next) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject };
    }
    return this.next.promise;
  }

  private afterWrite(): void {
    this.writing = null;
    const waiting = this.next;
    this.next = null;
    if (waiting) this.save().then(waiting.resolve, waiting.reject);
  }

  private async write(): Promise<void> {
    // Serialise synchronously, so the file holds exactly the state at the moment of the call.
    const text = JSON.stringify({ savedAt: new Date().toISOString(), state: this.snapshot() });
    const file = join(this.dir, STATE_FILE);
    const tmp = join(this.dir, `.${STATE_FILE}.${process.pid}.${++this.tmpSeq}.tmp`);
    try {
      const fh = await open(tmp, 'w', 0o600);
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
    await syncDir(this.dir);
  }
}

/** Makes the rename itself durable; some platforms cannot open a directory, which is fine. */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Windows and some filesystems refuse fsync on directories; the rename is still atomic.
  }
}
