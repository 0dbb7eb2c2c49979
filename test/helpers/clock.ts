/**
 * Clocks for behaviour tests. `fixedClock` never moves and refuses to sleep (a behaviour that sleeps
 * was not expected to); `virtualClock` moves only when slept on, so a two-hour wait runs at once.
 */
import type { Clock } from '../../src/util/clock.js';
import { interrupted } from '../../src/util/clock.js';

export const FIXED_NOW = Date.parse('2026-11-22T12:00:00.000Z');

export function fixedClock(now = FIXED_NOW): Clock {
  return {
    now: () => now,
    sleep: async (ms) => {
      throw new Error(`unexpected sleep of ${ms} ms on a fixed clock`);
    },
  };
}

export interface VirtualClock extends Clock {
  /** Every sleep asked for, in ms. */
  sleeps: number[];
  advance(ms: number): void;
}

export function virtualClock(start = FIXED_NOW): VirtualClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw interrupted();
      sleeps.push(ms);
      now += ms;
      // Let other promise chains run, as a real timer would.
      await Promise.resolve();
      if (signal?.aborted) throw interrupted();
    },
  };
}
