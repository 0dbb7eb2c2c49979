/**
 * Seeded randomness. The engine may not use Math.random or crypto: ids and SHAs must come out the
 * same for the same seed and the same calls, so a scenario replays exactly. The generator state is
 * one uint32 kept in the engine state, so a reloaded engine continues the same sequence.
 */
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
const word = (n: number): string =>
  (BYTE_HEX[n >>> 24] as string) +
  (BYTE_HEX[(n >>> 16) & 255] as string) +
  (BYTE_HEX[(n >>> 8) & 255] as string) +
  (BYTE_HEX[n & 255] as string);

/** A version-4-shaped UUID (variant and version bits set as RFC 4122 requires). */
export function uuid(state: EngineState): string {
  const s = word(nextUint32(state)) + word(nextUint32(state)) + word(nextUint32(state)) + word(nextUint32(state));
  const variant = '89ab'[parseInt(s[16] ?? '0', 16) & 3] ?? '8';
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-${variant}${s.slice(17, 20)}-${s.slice(20)}`;
}

export function sha(state: EngineState): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += word(nextUint32(state));
  return out;
}
