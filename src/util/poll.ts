// The polling loop of `wait`, `queue drain --wait` and `queue watch`. A transient failure (exit 6) is a
// blip (`onBlip`, interval doubles up to 8x). With a deadline, reads get it, none starts with less than
// MIN_POLL_MS left, and the end is 'timeout', unless no read ever reached the service (then exit 6).
import type { CallOptions } from '../api/http.js';
import { ExitCode, MqError } from '../errors.js';
import type { Clock } from './clock.js';

/** A poll sent with less time than this left could not be answered in time; the wait ends instead. */
export const MIN_POLL_MS = 100;

export interface PollOptions<T> {
  intervalMs: number;
  /** Epoch ms after which the loop stops with 'timeout'. */
  deadline?: number;
  /** ±10% on each sleep, so many pollers do not fall into step. */
  jitter?: boolean;
  random?: () => number;
  read: (call: CallOptions) => Promise<T>;
  /** Named in the blip message: `${what} failed (why); retrying`. */
  what: string;
  /** Called with each successful read; returning true ends the loop with 'done'. */
  onValue: (value: T) => unknown;
  /** A transient failure that will be retried. */
  onBlip?: (message: string) => void;
}

export interface PollDeps {
  clock: Clock;
  signal: AbortSignal;
}

export async function poll<T>(deps: PollDeps, opts: PollOptions<T>): Promise<'done' | 'timeout'> {
  let interval = opts.intervalMs;
  let reached = false;
  let lastFailure: MqError | undefined;
  const random = opts.random ?? Math.random;
  const call: CallOptions = { deadline: opts.deadline, signal: deps.signal };
  for (;;) {
    let value: T | undefined;
    let ok = false;
    let failure: MqError | undefined;
    try {
      value = await opts.read(call);
      ok = true;
      reached = true;
      interval = opts.intervalMs;
    } catch (err) {
      if (!(err instanceof MqError) || err.exitCode !== ExitCode.unavailable) throw err;
      failure = lastFailure = err;
      interval = Math.min(interval * 2, opts.intervalMs * 8);
    }
    if (ok && (await opts.onValue(value as T)) === true) return 'done';
    const remaining = opts.deadline === undefined ? Infinity : opts.deadline - deps.clock.now();
    const pause = opts.jitter ? interval * (0.9 + random() * 0.2) : interval;
    // The next poll must start with at least MIN_POLL_MS left, or it could not be answered in time.
    const another = pause <= remaining - MIN_POLL_MS;
    // "retrying" only when there will be another try.
    if (failure && another) opts.onBlip?.(`${opts.what} failed (${failure.why}); retrying`);
    if (!another) {
      // Wait out the deadline, then stop.
      if (remaining > 0) await deps.clock.sleep(remaining, deps.signal);
      return ended(reached, lastFailure);
    }
    await deps.clock.sleep(pause, deps.signal);
  }
}

function ended(reached: boolean, lastFailure: MqError | undefined): 'timeout' {
  if (!reached && lastFailure) {
    throw new MqError(lastFailure.exitCode, lastFailure.what, lastFailure.why, {
      hints: [
        'no poll reached the service before --timeout ran out; check the API URL and the network, or raise --timeout',
      ],
      cause: lastFailure,
    });
  }
  return 'timeout';
}
