/** The emulator's answers are bounded: a timeline carries its newest transitions only. */
import { describe, expect, it } from 'vitest';
import type { TimelineItemView } from '../../src/emulator/engine/views.js';
import { MAX_TIMELINE_ITEMS, wireTimeline } from '../../src/emulator/http/wire.js';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const items = (n: number): TimelineItemView[] =>
  Array.from({ length: n }, (_, i) => ({
    at: T0 + i * 1000,
    state: i % 2 ? 'pending' : 'not_ready',
    reason: 'USER_REQUESTED',
    runId: null,
    run: null,
  }));

describe('wireTimeline', () => {
  it('sends the newest transitions first, at most MAX_TIMELINE_ITEMS of them', () => {
    const long = wireTimeline(items(MAX_TIMELINE_ITEMS + 5), repo);
    expect(long).toHaveLength(MAX_TIMELINE_ITEMS);
    expect(long[0]?.timestamp).toBe(new Date(T0 + (MAX_TIMELINE_ITEMS + 4) * 1000).toISOString());
    expect(long.at(-1)?.timestamp).toBe(new Date(T0 + 5000).toISOString());
    expect(wireTimeline(items(3), repo).map((t) => t.timestamp)).toEqual(
      [2, 1, 0].map((i) => new Date(T0 + i * 1000).toISOString()),
    );
  });
});
