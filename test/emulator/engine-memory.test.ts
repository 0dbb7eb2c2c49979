/**
 * The engine's state must not keep what nothing will read: the completion and timeout events of
 * cancelled runs are swept from the event heap (lazy deletion alone never removes them on a clock
 * that does not move), without changing the order in which the live events surface.
 */
import { describe, expect, it } from 'vitest';

import { QueueEngine, createState, type ScheduledEvent } from '../../src/emulator/engine/index.js';
import { heapPop, heapPush, heapRetain } from '../../src/emulator/engine/event-heap.js';

const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);

/** A small seeded generator (the test must not depend on Math.random). */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('event heap sweep', () => {
  it('keeps the pop order of the events it keeps', () => {
    const next = random(7);
    const heap: ScheduledEvent[] = [];
    for (let seq = 1; seq <= 2_000; seq++)
      heapPush(heap, [Math.floor(next() * 50), Math.floor(next() * 3), seq, `r${seq % 97}`]);
    const dead = (e: ScheduledEvent) => e[3].endsWith('3') || e[3].endsWith('5');
    const expected = [...heap].filter((e) => !dead(e)).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    heapRetain(heap, (e) => !dead(e));
    expect(heap.length).toBe(expected.length);
    // Still a heap after more pushes.
    heapPush(heap, [-1, 0, 9_999, 'first']);
    const popped: ScheduledEvent[] = [];
    for (let e = heapPop(heap); e; e = heapPop(heap)) popped.push(e);
    expect(popped).toEqual([[-1, 0, 9_999, 'first'], ...expected]);
  });

  it('drops the events of cancelled runs while the clock stands still; live runs still complete', () => {
    const engine = new QueueEngine(createState(1, T0));
    const q = { repo, targetBranch: 'main' };
    engine.createQueue({ ...q, concurrency: 4 }, T0);
    const pairs = 3_000;
    for (let n = 1; n <= pairs + 4; n++) {
      if (n <= pairs) engine.submit({ ...q, pr: { number: n } }, T0);
      if (n > 4) engine.cancel({ ...q, pr: { number: n - 4 } }, T0);
    }
    const runs = Object.keys(engine.state.runs).length;
    expect(runs).toBeGreaterThan(3_000); // two events each were pushed
    expect(engine.state.events.length).toBeLessThanOrEqual(2_100);
    // Two PRs submitted now are tested and merge once the clock moves past their runs.
    engine.submit({ ...q, pr: { number: 90_001 } }, T0);
    engine.submit({ ...q, pr: { number: 90_002 } }, T0);
    engine.advance(T0 + 60 * 60_000);
    const states = engine.getSubmittedPullRequests(
      { ...q, prs: [{ number: 90_001 }, { number: 90_002 }] },
      T0 + 60 * 60_000,
    );
    expect(states.pullRequests.map((p) => p.state)).toEqual(['merged', 'merged']);
  });

  it("derives a run's test branch instead of keeping a copy in every run record", () => {
    const engine = new QueueEngine(createState(1, T0));
    const q = { repo, targetBranch: 'main' };
    engine.createQueue(q, T0);
    engine.submit({ ...q, pr: { number: 5 } }, T0);
    const [id] = Object.keys(engine.state.runs);
    const record = engine.state.runs[id as string] as unknown as Record<string, unknown>;
    expect(Object.keys(record)).not.toContain('testBranch');
    expect(engine.listRuns()[0]?.testBranch).toBe(`trunk-merge/pr-5/${id}`);
  });
});
