/**
 * The polling loop shared by `wait`, `queue drain --wait` and `queue watch`: read, hand the value
 * over, sleep, repeat. A read that fails for a transient reason (exit 6: 429, 5xx, network) is a
 * blip, not an outcome: it is reported on stderr and the interval doubles (up to 8x) until a read
 * succeeds again. Sleeps end at once on Ctrl-C; the loop stops at `deadline` if one is given.
 */
import type { Context } from '../context.js';
import { ExitCode, MqError } from '../errors.js';

export function interrupted(): MqError {
  return new MqError(ExitCode.interrupted, 'interrupted', 'stopped by Ctrl-C');
}

export async function interruptibleSleep(ctx: Context, ms: number): Promise<void> {
  if (ctx.signal.aborted) throw interrupted();
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupted());
    };
    const timer = setTimeout(() => {
      ctx.signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface PollOptions<T> {
  intervalMs: number;
  /** Epoch ms after which the loop stops with 'timeout'. */
  deadline?: number;
  /** ±10% on each sleep, so many pollers do not fall into step. */
  jitter?: boolean;
  read: () => Promise<T>;
  /** Named in the blip message: `${what} failed (why); retrying`. */
  what: string;
  /** Called with each successful read; returning true ends the loop with 'done'. */
  onValue: (value: T) => boolean | void | Promise<boolean | void>;
}

export async function poll<T>(ctx: Context, opts: PollOptions<T>): Promise<'done' | 'timeout'> {
  let interval = opts.intervalMs;
  for (;;) {
    let value: T | undefined;
    let ok = false;
    try {
      value = await opts.read();
      ok = true;
      interval = opts.intervalMs;
    } catch (err) {
      if (!(err instanceof MqError) || err.exitCode !== ExitCode.unavailable) throw err;
      ctx.io.err(`${ctx.styleErr.yellow('!')} ${opts.what} failed (${err.why}); retrying\n`);
      interval = Math.min(interval * 2, opts.intervalMs * 8);
    }
    if (ok && (await opts.onValue(value as T)) === true) return 'done';
    const remaining = opts.deadline === undefined ? Infinity : opts.deadline - ctx.now();
    if (remaining <= 0) return 'timeout';
    const sleep = opts.jitter ? interval * (0.9 + Math.random() * 0.2) : interval;
    await interruptibleSleep(ctx, Math.min(sleep, remaining));
  }
}
