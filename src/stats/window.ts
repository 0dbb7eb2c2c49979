/** `--since` / `--until`: a duration back from now (`24h`, `7d`, `1h30m`) or an ISO 8601 time. */
import { UsageError } from '../errors.js';
import { formatDuration, parseDuration } from '../util/duration.js';

export type When = { kind: 'ago'; ms: number } | { kind: 'at'; ms: number };

export const MAX_WINDOW_DAYS = 45;
const DAY = 86_400_000;

export function parseWhen(text: string, flag: string): When {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const ms = Date.parse(t);
    if (Number.isNaN(ms))
      throw new UsageError(
        `${flag}: ${JSON.stringify(text)} is not a valid time; use ISO 8601 (2026-05-01T09:00:00Z) or a ` +
          `duration like 24h or 7d`,
      );
    return { kind: 'at', ms };
  }
  let ms: number;
  try {
    ms = parseDuration(t, flag);
  } catch {
    throw new UsageError(`${flag}: ${JSON.stringify(text)} is neither an ISO 8601 time nor a duration like 24h or 7d`);
  }
  if (ms <= 0 && flag === '--since') throw new UsageError(`${flag}: the duration must be greater than zero`);
  checkReach(ms, text, flag);
  return { kind: 'ago', ms };
}

/** How far back a duration may reach (far past any history, short of what a Date can hold). */
const MAX_AGO_DAYS = 36_500;

/** Refuses a duration back from now that reaches past MAX_AGO_DAYS (or is not a number at all). */
export function checkReach(ms: number, text: string, flag: string): void {
  if (!(ms <= MAX_AGO_DAYS * DAY)) {
    throw new UsageError(`${flag}: ${JSON.stringify(text)} reaches back more than ${MAX_AGO_DAYS} days`, {
      hints: [`the service keeps ${MAX_WINDOW_DAYS} days of history`],
    });
  }
}

/** `since` and `until` as epoch ms, or as negative durations back from now (`ago`). */
function check(since: number, until: number, ago = false): void {
  const show = (ms: number) => (ago ? `${formatDuration(-ms)} ago` : new Date(ms).toISOString());
  if (since >= until)
    throw new UsageError(`--since: the window is empty: ${show(since)} is not before --until ${show(until)}`);
  if (until - since > MAX_WINDOW_DAYS * DAY) {
    throw new UsageError(
      `--since: the window may span at most ${MAX_WINDOW_DAYS} days (the service keeps ${MAX_WINDOW_DAYS} ` +
        `days of history)`,
      {
        hints: ['use --since 45d or less, or narrow it with --until'],
      },
    );
  }
}

/** --since and --until read, and checked as far as they can be without a clock (both durations, or both times). */
export function windowFlags(sinceText: string, untilText: string | undefined): { since: When; until?: When } {
  const since = parseWhen(sinceText, '--since');
  const until = untilText === undefined ? undefined : parseWhen(untilText, '--until');
  const u = until ?? { kind: 'ago', ms: 0 };
  if (since.kind === u.kind)
    check(since.kind === 'ago' ? -since.ms : since.ms, u.kind === 'ago' ? -u.ms : u.ms, u.kind === 'ago');
  return { since, until };
}

/** The window in epoch ms, durations counted back from `now` (the service's clock). */
export function resolveWindow(since: When, until: When | undefined, now: number): { since: number; until: number } {
  const at = (w: When) => (w.kind === 'ago' ? now - w.ms : w.ms);
  const window = { since: at(since), until: until === undefined ? now : at(until) };
  check(window.since, window.until);
  return window;
}
