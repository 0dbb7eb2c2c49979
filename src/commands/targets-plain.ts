/**
 * The fast path of `mq targets --file` for the usual file: lines that are targets as they stand
 * (ASCII, nothing to trim, escape or skip; Unix or Windows line ends). A WebAssembly SIMD kernel
 * (targets-plain.wat) checks and copies 16 bytes at a time into one output region, turning each
 * line break into `","`; the body then holds that region as a few views, not a piece per chunk. A segment the kernel refuses
 * (any line that is not plain) leaves nothing behind and goes through the per-line rules in
 * targets-file.ts, as does everything when WebAssembly is not available.
 *
 * Memory: one WebAssembly memory of fixed size (it never grows, so views of it stay valid): the
 * input window, then the output region, large enough for a body at the limit plus one window's
 * worst case. Its pages are taken from the system only as they are written.
 */
import { TARGETS_PLAIN_WASM } from './targets-plain-wasm.js';

const PAGE = 65536;
/** The input window: a longer segment is given to the kernel in parts cut at line feeds. */
const WINDOW = 1 << 20;
/** Room the kernel may write or read past the bytes that count (whole 16-byte vectors). */
const SLACK = 64;
const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

type Expand = (input: number, length: number, output: number) => number;
interface Memory {
  readonly buffer: ArrayBuffer;
}
/** The part of the WebAssembly API used here (TypeScript declares it only with the DOM's lib). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (size: { initial: number; maximum: number }) => Memory;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

let compiled: object | null | undefined;

/** The kernel, compiled once a process; null where WebAssembly (or its SIMD) is not available. */
function kernel(): object | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(TARGETS_PLAIN_WASM, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

export class PlainLines {
  private readonly bytes: Uint8Array;
  /** Where the output written since the last take() starts, and where the next byte goes. */
  private from: number;
  private at: number;
  private readonly end: number;

  private constructor(
    memory: Memory,
    private readonly expand: Expand,
    /** How many lines the last expand() call turned into targets. */
    private readonly lines: { readonly value: number },
  ) {
    this.bytes = new Uint8Array(memory.buffer);
    this.from = this.at = WINDOW + SLACK;
    this.end = this.bytes.length - SLACK;
  }

  /** A writer for a body of at most `maxBytes`, or undefined where the kernel cannot run. */
  static open(maxBytes: number): PlainLines | undefined {
    const module = kernel();
    if (!module) return undefined;
    try {
      const pages = Math.ceil((WINDOW + SLACK + maxBytes + 2 * WINDOW + 2 * SLACK) / PAGE);
      const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
      const instance = new WebAssembly.Instance(module, { mq: { memory } });
      return new PlainLines(memory, instance.exports.expand as Expand, instance.exports.lines as { value: number });
    } catch {
      return undefined;
    }
  }

  /**
   * Writes the lines of `segment` (joined by line feeds) as JSON strings separated by commas, with
   * a comma first when `after` (targets came before). Returns how many targets and bytes it wrote,
   * or undefined, having written nothing, when a line is not plain (or there is no room left).
   */
  add(segment: Uint8Array, after: boolean): { targets: number; bytes: number } | undefined {
    const out = this.bytes;
    const start = this.at;
    let at = start;
    let targets = 0;
    for (let pos = 0; ; ) {
      let cut = segment.length;
      if (cut - pos > WINDOW) {
        cut = segment.lastIndexOf(LF, pos + WINDOW - 1);
        // One line longer than the window: the per-line rules take the segment.
        if (cut <= pos) return undefined;
      }
      const length = cut - pos;
      if (at + 2 * length + SLACK > this.end) return undefined;
      out.set(segment.subarray(pos, cut), 0);
      if (after || targets > 0) out[at++] = COMMA;
      out[at++] = QUOTE;
      const next = this.expand(0, length, at);
      if (next === 0) return undefined;
      targets += this.lines.value;
      at = next;
      out[at++] = QUOTE;
      if (cut === segment.length) break;
      pos = cut + 1;
      // The segment ends with the line feed it was cut at: an empty last line.
      if (pos === segment.length) return undefined;
    }
    this.at = at;
    return { targets, bytes: at - start };
  }

  /** The output written since the last call, as a view (the memory never moves), or undefined. */
  take(): Buffer | undefined {
    if (this.at === this.from) return undefined;
    const view = Buffer.from(this.bytes.buffer, this.from, this.at - this.from);
    this.from = this.at;
    return view;
  }
}
