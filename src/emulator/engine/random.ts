// Seeded randomness (never Math.random): same seed and calls give the same ids, so scenarios replay;
// the uint32 state lives in the engine state.
import type { EngineState } from './types.js';

/** mulberry32: tiny, fast, and good enough for identifiers (not for cryptography). */
export function nextUint32(state: EngineState): number {
  state.rng = (state.rng + 0x6d2b79f5) >>> 0;
  let t = state.rng;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

// Flat strings via join, not `+` ropes: ids and SHAs are kept for tens of thousands of records.
function hexBytes(state: EngineState, words: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const n = nextUint32(state);
    out.push(
      BYTE_HEX[n >>> 24] as string,
      BYTE_HEX[(n >>> 16) & 255] as string,
      BYTE_HEX[(n >>> 8) & 255] as string,
      BYTE_HEX[n & 255] as string,
    );
  }
  return out;
}

/** A version-4-shaped UUID (variant and version bits set as RFC 4122 requires). */
export function uuid(state: EngineState): string {
  const b = hexBytes(state, 4);
  // Version nibble 4 in byte 6; variant bits 10 in byte 8 (the high nibble mapped onto 8, 9, a, b).
  b[6] = `4${(b[6] as string)[1]}`;
  const hi = parseInt((b[8] as string)[0] ?? '0', 16) & 3;
  b[8] = `${'89ab'[hi]}${(b[8] as string)[1]}`;
  b.splice(10, 0, '-');
  b.splice(8, 0, '-');
  b.splice(6, 0, '-');
  b.splice(4, 0, '-');
  return b.join('');
}

export function sha(state: EngineState): string {
  return hexBytes(state, 5).join('');
}
