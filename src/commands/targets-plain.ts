/**
 * Lines that are targets as they stand (most of a generated file), turned into JSON by copying
 * their bytes between quotes: the common case of `mq targets --file`, kept for bench/payload.mjs.
 */

export const LF = 0x0a;
export const QUOTE = 0x22;
export const COMMA = 0x2c;

/**
 * Copies the lines `seg` into `out` from `o` on, each line break made `","`, when every line is a
 * target as it stands: ASCII, nothing to escape or trim, no `#` (a comment), no blank line. Returns
 * the end, or -1 when a line is not (what was written then means nothing). One pass, four bytes at
 * a time: a byte loop, a view per line for `set`, or a scan of the chunk per byte value to check
 * it first, misses bench/payload.mjs's target.
 */
export function quotePlain(seg: Uint8Array, out: Uint8Array, o: number): number {
  if (seg[seg.length - 1] === LF) return -1;
  const words = seg.length >> 2;
  const at = quoteWords(seg, words, out, o);
  return at < 0 ? -1 : quoteBytes(seg, 4 * words, seg.length, out, at);
}

/**
 * The first `count` words of `seg`: a word with no byte to look at (tested with the usual bit
 * tricks: a byte below `!`, line breaks included, or past ASCII; a `"` or `#`; a `\`) is stored
 * whole. Alone in its function: V8 compiles the loop while it runs, and code after it that had not
 * run yet made that code go at the end of each call; the constants are literals, which V8 folds.
 */
function quoteWords(seg: Uint8Array, count: number, out: Uint8Array, o: number): number {
  const from = new DataView(seg.buffer, seg.byteOffset, seg.length);
  const to = new DataView(out.buffer, out.byteOffset, out.length);
  let at = o;
  for (let i = 0; i < 4 * count; i += 4) {
    const w = from.getInt32(i, true);
    const x = (w | 0x01010101) ^ 0x23232323;
    const y = w ^ 0x5c5c5c5c;
    const low = (w - 0x21212121) | 0 | w;
    if ((low | (((x - 0x01010101) | 0) & ~x) | (((y - 0x01010101) | 0) & ~y)) & 0x80808080) {
      at = quoteBytes(seg, i, i + 4, out, at);
      if (at < 0) return -1;
    } else {
      to.setInt32(at, w, true);
      at += 4;
    }
  }
  return at;
}

function quoteBytes(seg: Uint8Array, from: number, end: number, out: Uint8Array, o: number): number {
  let at = o;
  for (let i = from; i < end; i++) {
    const c = seg[i] as number;
    if (c === 0x21 || (c > 0x23 && c < 0x80 && c !== 0x5c)) out[at++] = c;
    else if (c === LF && i > 0 && seg[i - 1] !== LF) {
      out[at] = QUOTE;
      out[at + 1] = COMMA;
      out[at + 2] = QUOTE;
      at += 3;
    } else return -1;
  }
  return at;
}
