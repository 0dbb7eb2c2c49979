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

function hex(state: EngineState, digits: number): string {
  let out = '';
  while (out.length < digits) out += nextUint32(state).toString(16).padStart(8, '0');
  return out.slice(0, digits);
}

/** A version-4-shaped UUID (variant and version bits set as RFC 4122 requires). */
export function uuid(state: EngineState): string {
  const h = hex(state, 32).split('');
  h[12] = '4';
  h[16] = '89ab'[parseInt(h[16] ?? '0', 16) & 3] ?? '8';
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export function sha(state: EngineState): string {
  return hex(state, 40);
}
