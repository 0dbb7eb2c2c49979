/**
 * A targets file read in one pass, chunk by chunk, into the setImpactedTargets request body: the
 * file is never one string, its lines are never one array, and the body is kept encoded, as it is
 * then sent (at most 20 MiB, so a retry can send it again). Everything that is wrong with the file
 * is still found before a byte is sent.
 *
 * One pass with the body in memory rather than two passes over the file (check, then read again
 * while sending): standard input cannot be read twice, a file could change between the passes, and
 * the encoded body is no larger than the file.
 *
 * The formats are those of `parseTargetsText`: a JSON array of non-empty strings when the first
 * character that is not white space is `[`, else one target per line (trimmed; blank lines and
 * `#` comments skipped).
 */
import { StringDecoder } from 'node:string_decoder';
import type { StreamBody } from '../api/transport.js';
import { UsageError } from '../errors.js';
import { stringEnd } from './targets-json.js';
import { COMMA, LF, QUOTE, quotePlain } from './targets-plain.js';

export interface TargetsBody extends StreamBody {
  /** How many targets the file lists. */
  readonly count: number;
  readonly length: number;
}

/** The most bytes of lines encoded at once. */
const PIECE = 1 << 20;

type Failure = { kind: 'json'; prefix: string; rest: string[] } | { kind: 'invalid' };

const JSON_WS = /[ \t\n\r]*/y;
/**
 * Turns the file's text, given in pieces, into the body `{...head, impactedTargets: [...]}`.
 */
export class TargetsBodyWriter {
  private readonly decoder = new StringDecoder('utf8');
  /**
   * The encoded targets, one region of the body's limit (bench/payload.mjs: no buffer and no
   * garbage collection per chunk); pages are taken from the system only as they are written.
   */
  private region: Buffer | null = null;
  /** Encoded bytes so far, counted on past the limit (the region then holds only the first ones). */
  private bytes = 0;
  private count = 0;
  private mode: 'start' | 'lines' | 'json' = 'start';
  /** Text not yet consumed: a line or a JSON element cut by the end of a chunk. */
  private carry = '';
  private json: 'first' | 'next' | 'done' = 'first';
  private failure: Failure | undefined;
  /** Bytes seen before the format is known (white space only). */
  private startBytes: Buffer[] = [];
  /** The bytes of a line cut by the end of a chunk. */
  private lineCarry: Buffer | null = null;

  /** How the file is named in messages about its contents and about it being empty. */
  private readonly source: string;
  private readonly label: string;

  constructor(
    file: string,
    private readonly maxBodyBytes: number,
  ) {
    this.source = file === '-' ? 'stdin' : file;
    this.label = file === '-' ? 'standard input' : file;
  }

  /** The next bytes of the file (the writer keeps no reference to `chunk`: it may be reused). */
  write(chunk: Buffer | string): void {
    if (this.mode === 'json') {
      const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
      if (text !== '') this.take(text, false);
      return;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.mode === 'lines') {
      this.lineBytes(bytes);
      return;
    }
    // The format is that of the first character that is not white space (Unicode white space
    // included, so it is decoded): `[` is JSON, anything else lines.
    const text = this.decoder.write(bytes);
    const first = text.search(/\S/);
    if (first < 0) {
      this.startBytes.push(Buffer.from(bytes));
      return;
    }
    if (text[first] === '[') {
      this.startBytes = [];
      this.take(text, false);
      return;
    }
    // Lines: leading white space is blank lines and trimmed line starts, so every byte so far is
    // read as lines, from the start.
    this.mode = 'lines';
    const all = this.startBytes.length > 0 ? Buffer.concat([...this.startBytes, bytes]) : bytes;
    this.startBytes = [];
    this.lineBytes(all);
  }

  /** The end of the file: raises the UsageError reading the whole file at once would have raised. */
  end(): void {
    // Lines are read as bytes once the format is known (a file found to be lines at its end is text).
    if (this.mode === 'lines') {
      if (this.lineCarry !== null) this.segment(this.lineCarry);
      this.lineCarry = null;
    } else this.take(this.decoder.end(), true);
    const failure = this.failure;
    if (failure?.kind === 'invalid')
      throw new UsageError(`--file: ${this.source} starts with [ but is not a valid JSON array`);
    if (failure?.kind === 'json') {
      try {
        JSON.parse(failure.prefix + failure.rest.join(''));
      } catch {
        throw new UsageError(`--file: ${this.source} starts with [ but is not a valid JSON array`);
      }
      throw new UsageError(`--file: ${this.source} must be a JSON array of non-empty strings`);
    }
    if (this.count === 0) {
      throw new UsageError(`--file: ${this.label} lists no targets; nothing was sent`, {
        hints: ['if the PR really impacts nothing, say so with --none'],
      });
    }
  }

  /** After end(): the body for `headJson` (the request without its targets: its properties come first). */
  body(headJson: string): TargetsBody {
    const head = Buffer.from(`${headJson.slice(0, -1)},"impactedTargets":[`);
    const tail = Buffer.from(']}');
    const length = head.length + this.bytes + tail.length;
    if (length > this.maxBodyBytes) {
      throw new UsageError(
        `the target list makes a ${(length / 1048576).toFixed(1)} MiB request; the service accepts at most 20 MiB`,
        {
          hints: ['send --all instead: the PR is then taken to impact every target'],
        },
      );
    }
    const all = [head, this.out().subarray(0, this.bytes), tail];
    return {
      count: this.count,
      length,
      replayable: true,
      async *open() {
        yield* all;
      },
      text: () => Buffer.concat(all).toString('utf8'),
    };
  }

  private take(more: string, final: boolean): void {
    if (this.failure) {
      if (this.failure.kind === 'json') this.failure.rest.push(more);
      return;
    }
    let text = this.carry + more;
    this.carry = '';
    if (this.mode === 'start') {
      // Leading white space means nothing in either format.
      const first = text.search(/\S/);
      if (first < 0) return;
      text = text.slice(first);
      if (text.startsWith('[')) {
        this.mode = 'json';
        text = text.slice(1);
      } else this.mode = 'lines';
    }
    if (this.mode === 'lines') this.linesText(text);
    else this.jsonElements(text, final);
  }

  /**
   * Complete lines in bytes; what follows the last line break waits for the next chunk. A line cut
   * by the previous chunk is joined alone, not the whole chunk to it (bench/payload.mjs).
   */
  private lineBytes(chunk: Buffer): void {
    let from = 0;
    if (this.lineCarry) {
      const nl = chunk.indexOf(LF);
      if (nl < 0) {
        this.lineCarry = Buffer.concat([this.lineCarry, chunk]);
        return;
      }
      this.segment(Buffer.concat([this.lineCarry, chunk.subarray(0, nl)]));
      this.lineCarry = null;
      from = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= from) {
      this.segment(chunk.subarray(from, last));
      from = last + 1;
    }
    // A copy: the caller may reuse its chunk.
    if (from < chunk.length) this.lineCarry = Buffer.from(chunk.subarray(from));
  }

  /**
   * Whole lines joined by line breaks. When every line is a target as it stands, its bytes are
   * copied between quotes with each line break made `","` (bench/payload.mjs misses its target
   * without this); else the per-line rules, on the decoded text.
   */
  private segment(whole: Buffer): void {
    // 1 MiB at most at a time (standard input comes as one chunk), so that the worst case fits.
    let seg = whole;
    while (seg.length > PIECE) {
      const cut = seg.lastIndexOf(LF, PIECE);
      if (cut <= 0) break;
      this.segment(seg.subarray(0, cut));
      seg = seg.subarray(cut + 1);
    }
    if (seg.length === 0) return;
    // Written in place when the worst case fits (a line break becomes three bytes and follows at
    // least one other byte); near the limit, into a buffer of its own.
    const worst = 3 + 2 * seg.length;
    const inPlace = this.bytes + worst <= this.maxBodyBytes;
    const out = inPlace ? this.out() : Buffer.allocUnsafe(worst);
    let o = inPlace ? this.bytes : 0;
    if (this.count > 0) out[o++] = COMMA;
    out[o++] = QUOTE;
    const from = o;
    o = quotePlain(new Uint8Array(seg.buffer, seg.byteOffset, seg.length), out, o);
    if (o < 0) {
      this.linesText(seg.toString('utf8'));
      return;
    }
    // Each line break added two bytes.
    const n = 1 + (o - from - seg.length) / 2;
    out[o++] = QUOTE;
    if (!inPlace) this.keep(out.subarray(0, o), n);
    else {
      this.count += n;
      this.bytes = o;
    }
  }

  private linesText(lines: string): void {
    const out: string[] = [];
    for (const line of lines.split('\n')) {
      const t = line.trim();
      if (t !== '' && !t.startsWith('#')) out.push(JSON.stringify(t));
    }
    this.emit(out.join(','), out.length);
  }

  /** Consumes `"target"` elements after the `[`; keeps what a chunk cut short for the next one. */
  private jsonElements(text: string, final: boolean): void {
    const out: string[] = [];
    let pos = 0;
    const more = (from: number) => {
      if (final) this.fail(text.slice(from));
      else this.carry = text.slice(from);
    };
    for (;;) {
      const start = pos;
      if (this.json === 'done') {
        JSON_WS.lastIndex = pos;
        JSON_WS.exec(text);
        // Anything but white space after the closing bracket.
        if (JSON_WS.lastIndex < text.length) this.failure = { kind: 'invalid' };
        break;
      }
      JSON_WS.lastIndex = pos;
      JSON_WS.exec(text);
      pos = JSON_WS.lastIndex;
      if (pos >= text.length) {
        more(start);
        break;
      }
      if (text[pos] === ']') {
        this.json = 'done';
        pos++;
        continue;
      }
      if (this.json === 'next') {
        if (text[pos] !== ',') {
          this.fail(text.slice(start));
          break;
        }
        JSON_WS.lastIndex = pos + 1;
        JSON_WS.exec(text);
        pos = JSON_WS.lastIndex;
      }
      const end = pos >= text.length ? 'cut' : text[pos] === '"' ? stringEnd(text, pos) : 'bad';
      if (end === 'cut') {
        more(start);
        break;
      }
      // Not a string, or an empty one.
      if (end === 'bad' || end === pos + 2) {
        this.fail(text.slice(start));
        break;
      }
      const token = text.slice(pos, end);
      // Escapes written as reading the whole file wrote them (`\/` as `/`, `\u00e9` as `é`).
      out.push(token.includes('\\') ? JSON.stringify(JSON.parse(token)) : token);
      pos = end;
      this.json = 'next';
    }
    this.emit(out.join(','), out.length);
  }

  /**
   * Something other than a non-empty string, or not JSON at all, from `rest` on. Which of today's
   * two messages applies depends on whether the whole file is JSON, so the rest is kept (only on
   * this path) and parsed at the end behind a stand-in for the elements already read.
   */
  private fail(rest: string): void {
    this.failure = { kind: 'json', prefix: this.json === 'first' ? '[' : '[""', rest: [rest] };
  }

  /** `n` JSON strings joined by commas. */
  private emit(joined: string, n: number): void {
    if (n === 0) return;
    this.keep(this.count === 0 ? joined : `,${joined}`, n);
  }

  /** A piece of the body holding `n` more targets (with its leading comma after the first). */
  private keep(piece: Buffer | string, n: number): void {
    const size = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
    // Past the limit only the size is counted, for the message.
    if (this.bytes + size <= this.maxBodyBytes) {
      if (typeof piece === 'string') this.out().write(piece, this.bytes);
      else this.out().set(piece, this.bytes);
    }
    this.count += n;
    this.bytes += size;
  }

  private out(): Buffer {
    this.region ??= Buffer.allocUnsafe(this.maxBodyBytes);
    return this.region;
  }
}
