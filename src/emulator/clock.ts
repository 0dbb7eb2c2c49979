// Emulator time: a real clock runs at `speed` × wall time (from any later persisted time); a manual
// clock stands still until the control API advances it (deterministic scenarios).
export type ClockKind = 'real' | 'manual';

export interface Clock {
  readonly kind: ClockKind;
  readonly speed: number;
  /** Engine time now (epoch ms). */
  now(): number;
  /** Wall milliseconds until engine time reaches `at` (real clock only). */
  wallDelayUntil(at: number): number;
}

export function realClock(start: number, speed: number, wall: () => number = Date.now): Clock {
  const wallStart = wall();
  return {
    kind: 'real',
    speed,
    now: () => Math.floor(start + (wall() - wallStart) * speed),
    wallDelayUntil(at) {
      return Math.max(0, Math.ceil((at - this.now()) / speed));
    },
  };
}

/** A manual clock reads the engine's own time, which only the control API moves. */
export function manualClock(engineNow: () => number): Clock {
  return { kind: 'manual', speed: 0, now: engineNow, wallDelayUntil: () => Infinity };
}

/** The clock's limit (2200-01-01), so derived times stay valid dates; later states and advances are refused. */
export const CLOCK_HORIZON = Date.UTC(2200, 0, 1);
