/** `--since` / `--until`: a duration back from a moment (`24h`, `7d`, `1h30m`) or an ISO 8601 time. */
import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';

export function parseWhen(text: string, flag: string, from: number): number {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const ms = Date.parse(t);
    if (Number.isNaN(ms)) throw new UsageError(`${flag}: ${JSON.stringify(text)} is not a valid time; use ISO 8601 (2026-05-01T09:00:00Z) or a duration like 24h or 7d`);
    return ms;
  }
  let ms: number;
  try {
    ms = parseDuration(t, flag);
  } catch {
    throw new UsageError(`${flag}: ${JSON.stringify(text)} is neither an ISO 8601 time nor a duration like 24h or 7d`);
  }
  if (ms <= 0 && flag === '--since') throw new UsageError(`${flag}: the duration must be greater than zero`);
  return from - ms;
}
