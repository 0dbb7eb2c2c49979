// Retry timing: Retry-After (seconds or date, ≤ 60 s), jittered backoff, and a wait signals end at once.

export const MAX_RETRY_AFTER_MS = 60_000;
/** A retry is only worth starting with at least this long left before the deadline. */
export const MIN_RETRY_WINDOW_MS = 250;

/** Retry-After as seconds or an HTTP date, in ms, capped. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/** The wait before retry `attempt + 1`: Retry-After when given, else half the exponential step plus jitter. */
export function backoffDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  baseMs: number,
  random: () => number,
): number {
  const exp = Math.min(baseMs * 2 ** attempt, MAX_RETRY_AFTER_MS);
  return retryAfterMs ?? Math.round(exp / 2 + (random() * exp) / 2);
}

/** Waits `ms` unless a signal aborts first (then rejects with what `check` throws); `check` runs first too. */
export async function abortableWait(
  ms: number,
  signals: AbortSignal[],
  check: () => void,
  sleep: ((ms: number) => Promise<void>) | undefined,
): Promise<void> {
  check();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => {
      try {
        check();
      } catch (err) {
        reject(err);
      }
    };
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  });
  const wait = sleep ? sleep(ms) : new Promise<void>((r) => (timer = setTimeout(r, ms)));
  try {
    await Promise.race([wait, stopped]);
  } finally {
    clearTimeout(timer);
    for (const s of signals) s.removeEventListener('abort', onAbort as () => void);
  }
}
