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

/** Whether this machine stores the low byte of a word first (how an Int32Array reads the file). */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const LF4 = 0x0a0a0a0a;
const ONES = 0x01010101;
const HIGHS = 0x80808080 | 0;

/**
 * Plain lines copied into `out` from `o` on, each line break made `","`; returns the end. Four
 * bytes at a time where a word holds no line break (a zero byte of `word ^ LF4`, found by the usual
 * bit trick): a loop over bytes, or a view per line for `set`, misses bench/payload.mjs's target.
 */
export function quoteLines(seg: Uint8Array, out: Uint8Array, o: number): number {
  // Bytes up to a 4-byte boundary, then words, then what is left.
  let i = -seg.byteOffset & 3;
  if (seg.length < i + 4) return quoteBytes(seg, 0, seg.length, out, o);
  let at = quoteBytes(seg, 0, i, out, o);
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  const words = new Int32Array(seg.buffer, seg.byteOffset + i, (seg.length - i) >> 2);
  for (let k = 0; k < words.length; k++, i += 4) {
    const word = words[k] as number;
    const x = word ^ LF4;
    if ((((x - ONES) | 0) & ~x & HIGHS) === 0) {
      view.setInt32(at, word, LITTLE_ENDIAN);
      at += 4;
    } else at = quoteBytes(seg, i, i + 4, out, at);
  }
  return quoteBytes(seg, i, seg.length, out, at);
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
