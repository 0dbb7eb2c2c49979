// Counter-based random numbers: each draw is a pure function of (seed, stream, index, attempt), so
// every settings row sees the same workload in any order (common random numbers).

/** A 32-bit integer hash (the finaliser of MurmurHash3, lowbias variant constants). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

function hash(seed: number, stream: number, index: number, attempt: number, salt: number): number {
  let h = mix32(seed ^ 0x9e3779b9);
  h = mix32(h ^ Math.imul(stream + 1, 0x85ebca6b));
  h = mix32(h ^ Math.imul(index + 1, 0xc2b2ae35));
  h = mix32(h ^ Math.imul(attempt + 1, 0x27d4eb2f));
  return mix32(h ^ Math.imul(salt + 1, 0x165667b1));
}

/** A uniform number in (0, 1) with 53 random bits, never exactly 0 or 1. */
export function uniform(seed: number, stream: number, index: number, attempt = 0): number {
  const hi = hash(seed, stream, index, attempt, 0) >>> 5; // 27 bits
  const lo = hash(seed, stream, index, attempt, 1) >>> 6; // 26 bits
  return (hi * 67108864 + lo + 0.5) / 9007199254740992;
}

/** A standard normal deviate (Box-Muller over two counter draws). */
export function normal(seed: number, stream: number, index: number, attempt = 0): number {
  const u1 = uniform(seed, stream, index, attempt * 2);
  const u2 = uniform(seed, stream, index, attempt * 2 + 1);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** The seed of run `r` of a simulation seeded with `seed` (the same for every settings row). */
export function runSeed(seed: number, r: number): number {
  return hash(seed >>> 0, 0x5eed, r, 0, 7);
}

/** Streams: which random quantity a draw is for. */
export const STREAM = { arrival: 1, breaks: 2, duration: 3, flake: 4, lane: 5 } as const;
