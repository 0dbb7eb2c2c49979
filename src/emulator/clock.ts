/**
 * The emulator's notion of time. A real clock runs engine time at `speed` times wall time from the
 * moment the emulator started (continuing from a persisted time if that is later); a manual clock
 * stands still until the control API advances it, which makes scripted scenarios deterministic.
 */
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

/**
 * The latest time the emulator's clock may reach (2200-01-01): far beyond any scenario, early
 * enough that every derived time stays a valid date. Advancing past it is refused, and a state
 * file holding a later (or negative) time is refused at load.
 */
export const CLOCK_HORIZON = Date.UTC(2200, 0, 1);
