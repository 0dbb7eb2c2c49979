import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `5m`, `2h`, `1d`, `1h30m`, or a bare number of seconds; returns ms. */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * (UNITS[m[2] as string] ?? 0);
    matched = re.lastIndex;
  }
  if (t === '' || matched !== t.length) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} is not a duration; use a number of seconds or units like 30s, 5m, 2h, 1h30m`,
    );
  }
  return Math.round(total);
}

/** Compact human form: `45s`, `12m`, `3h 5m`, `2d 4h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`.replace(/ 0s$/, '');
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`.replace(/ 0m$/, '');
  const d = Math.floor(h / 24);
  return `${d}d ${h % 24}h`.replace(/ 0h$/, '');
}

/** One unit for a set of durations (seconds) shown side by side: hours when the largest is 90 minutes or more. */
export function durationUnit(seconds: ReadonlyArray<number | null>): 'minutes' | 'hours' {
  return Math.max(0, ...seconds.map((s) => s ?? 0)) >= 90 * 60 ? 'hours' : 'minutes';
}

/** Seconds in that unit: `37m` or `14.2h`. */
export function durationIn(seconds: number, unit: 'minutes' | 'hours'): string {
  return unit === 'hours' ? `${(seconds / 3600).toFixed(1)}h` : `${Math.round(seconds / 60)}m`;
}
