// Time as a dependency, so tests run behaviours in virtual time; the real clock's sleep ends at once
// (interrupted) when the signal aborts.
import { ExitCode, MqError } from '../errors.js';

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the interrupted error when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function interrupted(): MqError {
  return new MqError(ExitCode.interrupted, 'interrupted', 'stopped by Ctrl-C');
}

/** The one sleep-and-abort implementation. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw interrupted();
  try {
    // Loaded on the first wait: a one-request command line never sleeps.
    const { setTimeout: delay } = await import('node:timers/promises');
    await delay(Math.max(0, ms), undefined, { signal });
  } catch (err) {
    if ((err as { name?: string })?.name === 'AbortError') throw interrupted();
    throw err;
  }
}

export const systemClock: Clock = { now: () => Date.now(), sleep };
