/**
 * Lines that are targets as they stand (most of a generated file), turned into JSON by copying
 * their bytes between quotes: the common case of `mq targets --file`, kept for bench/payload.mjs.
 */
import { isAscii } from 'node:buffer';

export const LF = 0x0a;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
/** Bytes that make a line more than a target as it stands: to escape, to trim, `#`; each found by memchr. */
const NOT_PLAIN = [QUOTE, 0x23, 0x5c, ...Array.from({ length: 0x21 }, (_, b) => b).filter((b) => b !== LF)];
/** Every line is a target as it stands: ASCII, none of NOT_PLAIN, no blank line. */
export function plain(seg: Buffer): boolean {
  if (!isAscii(seg) || seg[0] === LF || seg[seg.length - 1] === LF || seg.includes('\n\n')) return false;
  return !NOT_PLAIN.some((b) => seg.includes(b));
}

/**
 * Plain lines copied into `out` from `o` on, each line break made `","`; returns the end. Four
 * bytes at a time where a word holds no line break: a loop over bytes, or a view per line for
 * `set`, misses bench/payload.mjs's target.
 */
export function quoteLines(seg: Uint8Array, out: Uint8Array, o: number): number {
  const words = seg.length >> 2;
  return quoteBytes(seg, 4 * words, seg.length, out, quoteWords(seg, words, out, o));
}

/**
 * The first `count` words of `seg`: one without a line break (no zero byte in `word ^ 0x0a0a0a0a`,
 * the usual bit trick) is stored whole. Alone in its function: V8 compiles the loop while it runs,
 * and code after it that had not run yet made that code go at the end of each call. The constants
 * are literals so that V8 folds them (bench/payload.mjs).
 */
function quoteWords(seg: Uint8Array, count: number, out: Uint8Array, o: number): number {
  const from = new DataView(seg.buffer, seg.byteOffset, seg.length);
  const to = new DataView(out.buffer, out.byteOffset, out.length);
  let at = o;
  for (let i = 0; i < 4 * count; i += 4) {
    const word = from.getInt32(i, true);
    const x = word ^ 0x0a0a0a0a;
    if ((((x - 0x01010101) | 0) & ~x & 0x80808080) === 0) {
      to.setInt32(at, word, true);
      at += 4;
    } else at = quoteBytes(seg, i, i + 4, out, at);
  }
  return at;
}

function quoteBytes(seg: Uint8Array, from: number, end: number, out: Uint8Array, o: number): number {
  let at = o;
  for (let i = from; i < end; i++) {
    const c = seg[i] as number;
    if (c !== LF) out[at++] = c;
    else {
      out[at] = QUOTE;
      out[at + 1] = COMMA;
      out[at + 2] = QUOTE;
      at += 3;
    }
  }
  return at;
}
