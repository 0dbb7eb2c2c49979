/**
 * `queue stats --since/--until` (src/stats/window.ts): every bad window is a usage error with a
 * message that speaks of what was typed, never a crash (a duration far past what a Date can hold
 * once ended in "unexpected error: Invalid time value").
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseWhen, resolveWindow, windowFlags } from '../../src/stats/window.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).why;
  }
  throw new Error('no error');
}

describe('stats window', () => {
  it.each(['99999999999999999999', '9'.repeat(400), '36501d', '1e400'])(
    'a duration of %s is refused, not a crash',
    (text) => {
      const why = usage(() => parseWhen(text, '--until'));
      expect(why).toMatch(/^--until: /);
      expect(why).not.toMatch(/Invalid time value/);
    },
  );

  it('the longest duration still allowed resolves to a real time', () => {
    const w = parseWhen('36500d', '--since');
    expect(w).toEqual({ kind: 'ago', ms: 36_500 * 86_400_000 });
    expect(usage(() => resolveWindow(w, undefined, NOW))).toMatch(/at most 45 days/);
  });

  it('an empty window of two durations is told in durations, not as times in 1970', () => {
    const why = usage(() => windowFlags('1h', '2h'));
    expect(why).toBe('--since: the window is empty: 1h ago is not before --until 2h ago');
  });

  it('an empty window of two times is told in ISO 8601', () => {
    const why = usage(() => windowFlags('2026-11-02', '2026-11-01'));
    expect(why).toBe(
      '--since: the window is empty: 2026-11-02T00:00:00.000Z is not before --until 2026-11-01T00:00:00.000Z',
    );
  });

  it('a good window resolves against the service clock', () => {
    expect(resolveWindow(parseWhen('24h', '--since'), parseWhen('1h', '--until'), NOW)).toEqual({
      since: NOW - 86_400_000,
      until: NOW - 3_600_000,
    });
  });
});
