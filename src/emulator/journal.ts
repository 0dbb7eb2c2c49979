// The write-ahead journal of `--data-dir`: one JSON line per change, fdatasync'ed before the change is
// acknowledged (group commit). A line holds the request, not the state: the engine is deterministic,
// so replay over the snapshot is exact. Files `journal.<n>.log`; each line has sequence number `s`;
// a torn last line was never acknowledged and is ignored.
import { closeSync, constants, fdatasyncSync, ftruncateSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

import { NEW_FILE } from './data-dir.js';

export interface JournalRecord {
  s: number;
  /** Engine time the change ran at. */
  t: number;
  /** Kind: `op` a mutating request, `tick` the clock advanced, `prune` retention, `w+`/`w-` webhook queue. */
  k: 'op' | 'tick' | 'prune' | 'w+' | 'w-';
  [field: string]: unknown;
}

export type NewRecord = Omit<JournalRecord, 's'>;

const FILE_RE = /^journal\.(\d+)\.log$/;

export function journalFiles(dir: string): Array<{ n: number; name: string }> {
  return readdirSync(dir)
    .map((name) => ({ name, m: FILE_RE.exec(name) }))
    .filter((f): f is { name: string; m: RegExpExecArray } => f.m !== null)
    .map((f) => ({ n: Number(f.m[1]), name: f.name }))
    .sort((a, b) => a.n - b.n);
}

export class JournalCorruptError extends Error {}

/** Reads every record after `afterSeq`, in order; a torn last line (of any file) is dropped. */
export function readJournal(dir: string, afterSeq: number): JournalRecord[] {
  const files = journalFiles(dir);
  const out: JournalRecord[] = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f.name), 'utf8');
    const lines = text.split('\n');
    for (let j = 0; j < lines.length; j++) {
      const line = lines[j]!;
      const complete = j < lines.length - 1; // followed by a newline
      if (line === '') continue;
      let rec: JournalRecord;
      try {
        rec = JSON.parse(line) as JournalRecord;
        if (typeof rec.s !== 'number' || typeof rec.t !== 'number' || typeof rec.k !== 'string')
          throw new Error('not a record');
      } catch {
        // Torn by a crash mid-append (may be in an older file: a restart opens a new one before its snapshot).
        if (!complete) break;
        throw new JournalCorruptError(`journal file ${join(dir, f.name)} is corrupt at line ${j + 1}`);
      }
      if (!complete) break; // a whole record without its newline was not acknowledged either
      if (rec.s > afterSeq) out.push(rec);
    }
  }
  out.sort((a, b) => a.s - b.s);
  return out;
}

export class DurabilityError extends Error {
  readonly code: string | undefined;
  constructor(cause: unknown) {
    const e = cause as NodeJS.ErrnoException;
    super(`the change could not be made durable in --data-dir (${e.code ?? e.message}); it was not applied`);
    this.name = 'DurabilityError';
    this.code = e.code;
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface JournalOptions {
  /** Called once the records up to `seq` are on disk. */
  onDurable?: (seq: number) => void;
  /** Called synchronously when a write failed: records after `durableSeq` are lost (waiters rejected). */
  onFailure?: (err: unknown, durableSeq: number) => void;
}

export class Journal {
  lastSeq: number;
  durableSeq: number;
  /** Bytes appended since the journal was opened or last rotated (compaction trigger). */
  bytesSinceRotate = 0;
  private fd = -1;
  private fh: FileHandle | undefined;
  private size = 0;
  private n: number;
  private buf: string[] = [];
  private bufBytes = 0;
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private rotateTo: number | undefined;
  private closed = false;

  private constructor(
    private readonly dir: string,
    n: number,
    seq: number,
    private readonly opts: JournalOptions,
  ) {
    this.n = n;
    this.lastSeq = seq;
    this.durableSeq = seq;
  }

  /** Opens a new journal file numbered after every existing one; `seq` is the last sequence number used. */
  static async open(dir: string, seq: number, opts: JournalOptions = {}): Promise<Journal> {
    const files = journalFiles(dir);
    const j = new Journal(dir, (files.at(-1)?.n ?? 0) + 1, seq, opts);
    await j.openFile(j.n);
    return j;
  }

  get fileNumber(): number {
    return this.n;
  }

  private async openFile(n: number): Promise<void> {
    // A new file each time: created here, never opened through a link (O_EXCL, O_NOFOLLOW).
    const fh = await open(join(this.dir, `journal.${n}.log`), NEW_FILE | constants.O_APPEND, 0o600);
    await this.fh?.close().catch(() => {});
    this.fh = fh;
    this.fd = fh.fd;
    this.size = 0;
    this.n = n;
    // Make the new file's directory entry durable before anything in it is acknowledged.
    try {
      const d = openSync(this.dir, 'r');
      try {
        fdatasyncSync(d);
      } finally {
        closeSync(d);
      }
    } catch {
      // some filesystems cannot fsync a directory
    }
  }

  /** Appends a record (synchronously ordered); returns its sequence number. */
  append(rec: NewRecord): number {
    if (this.closed) throw new Error('journal closed');
    const seq = ++this.lastSeq;
    const line = `${JSON.stringify({ s: seq, ...rec })}\n`;
    this.buf.push(line);
    this.bufBytes += line.length;
    this.kick();
    return seq;
  }

  /** Resolves once every record up to `seq` is on disk; rejects with DurabilityError if it never will be. */
  durable(seq: number): Promise<void> {
    if (seq <= this.durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Later writes go to a new file; returns the number of the first file that is not older. */
  rotate(): number {
    this.rotateTo = this.n + 1;
    this.bytesSinceRotate = 0;
    return this.rotateTo;
  }

  /** Waits for what is buffered, then closes the file. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.fh?.close().catch(() => {});
    this.fh = undefined;
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private kick(): void {
    if (this.writing) return;
    this.writing = this.pump().finally(() => {
      this.writing = undefined;
      if (this.buf.length > 0) this.kick();
    });
  }

  private async pump(): Promise<void> {
    while (this.buf.length > 0) {
      if (this.rotateTo !== undefined) {
        const to = this.rotateTo;
        this.rotateTo = undefined;
        try {
          await this.openFile(to);
        } catch (err) {
          this.fail(err);
          continue;
        }
      }
      const data = Buffer.from(this.buf.join(''), 'utf8');
      const upTo = this.lastSeq;
      this.buf = [];
      this.bufBytes = 0;
      try {
        // A full disk can show as a short write first; keep writing until all is in or it fails.
        for (let off = 0; off < data.length; ) {
          const { bytesWritten } = await this.fh!.write(data, off, data.length - off);
          if (bytesWritten <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
          off += bytesWritten;
        }
        await this.fh!.datasync();
      } catch (err) {
        this.fail(err);
        continue;
      }
      this.size += data.length;
      this.bytesSinceRotate += data.length;
      this.durableSeq = upTo;
      const ready = this.waiters.filter((w) => w.seq <= upTo);
      this.waiters = this.waiters.filter((w) => w.seq > upTo);
      for (const w of ready) w.resolve();
      this.opts.onDurable?.(upTo);
    }
  }

  /** A write failed: cut the file back to what was durable and drop everything after it. */
  private fail(err: unknown): void {
    try {
      if (this.fd >= 0) ftruncateSync(this.fd, this.size);
    } catch {
      // the next write's failure will report it again
    }
    const lost = new DurabilityError(err);
    const waiters = this.waiters;
    this.waiters = [];
    this.buf = [];
    this.bufBytes = 0;
    this.lastSeq = this.durableSeq;
    for (const w of waiters) w.reject(lost);
    this.opts.onFailure?.(err, this.durableSeq);
  }
}
