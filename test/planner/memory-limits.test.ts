/**
 * The planner's inputs stop where the engine's memory does: concurrency and batch sizes past the
 * cap are refused (--compare) or lowered with a note (the queue's own settings), and a worker thread
 * that runs out of its heap ends the command with a usage error instead of V8 aborting the process.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../src/errors.js';
import { runSimulate } from '../../src/planner/index.js';
import { engineDefaults } from '../../src/planner/engine-adapter.js';
import type { SimInputs } from '../../src/planner/model.js';
import { memoryPlan, runAll } from '../../src/planner/pool.js';
import { parseCompare, settingsFromQueue } from '../../src/planner/settings.js';
import { thrown } from '../helpers/thrown.js';

const GiB = 2 ** 30;

describe('caps on what is simulated', () => {
  it('--compare refuses concurrency, bisection concurrency and batch sizes past 500, naming the cap, with a hint', () => {
    for (const [text, rule] of [
      ['concurrency=501', 'concurrency=501: must be an integer from 1 to 500'],
      ['bisection-concurrency=4294967295', 'bisection-concurrency=4294967295: must be an integer from 1 to 500'],
      ['batching-min-size=2000', 'batching-min-size=2000: must be an integer from 1 to 500'],
      ['batch=501', 'batch=501: the batch size must be an integer from 1 to 500'],
    ] as const) {
      const err = thrown(() => parseCompare(text));
      expect(err, text).toBeInstanceOf(UsageError);
      expect((err as UsageError).why).toBe(`--compare: ${rule}`);
      expect((err as UsageError).hints[0]).toMatch(
        /^the planner simulates at most 500 runs in flight and 500 PRs per batch/,
      );
    }
    expect(parseCompare('concurrency=500,batch=500')).toEqual({ concurrency: 500, batch: true, batchingMinSize: 500 });
  });

  it("lowers a queue's own larger settings to the cap and says so; a shared bisection concurrency stays shared", () => {
    const notes: string[] = [];
    const s = settingsFromQueue({ concurrency: 5000, bisectionConcurrency: 5000, batchingMinSize: 800 }, notes);
    expect(s).toMatchObject({ concurrency: 500, bisectionConcurrency: null, batchingMinSize: 500 });
    expect(notes).toEqual([
      "the queue's concurrency 5000 is more than the planner simulates; simulated as 500",
      "the queue's batchingMinSize 800 is more than the planner simulates; simulated as 500",
    ]);
    expect(settingsFromQueue({ concurrency: 8, bisectionConcurrency: 9000 }).bisectionConcurrency).toBe(500);
  });

  it('a plain queue simulate on a queue with concurrency 5000 simulates 500, with a note on stderr', async () => {
    const notices: string[] = [];
    const queue = { ...engineDefaults(), concurrency: 5000 };
    const flags = { arrivals: '2/h', testTime: '30m', failureRate: '5%', duration: '2h', runs: '2', jobs: '1' };
    const data = await runSimulate(flags, { loadQueue: async () => queue, notice: (l) => notices.push(l) });
    expect(data.results[0]?.settings.concurrency).toBe(500);
    expect(notices).toContain(
      "baseline: the queue's concurrency 5000 is more than the planner simulates; simulated as 500",
    );
  });
});

describe('worker memory', () => {
  it('shares half the machine between the threads, 1 to 4 GiB each, with fewer threads rather than less', () => {
    expect(memoryPlan(2, 24 * GiB)).toEqual({ threads: 2, heapMb: 4096 });
    expect(memoryPlan(8, 8 * GiB)).toEqual({ threads: 4, heapMb: 1024 });
    expect(memoryPlan(4, 1 * GiB)).toEqual({ threads: 1, heapMb: 1024 });
    expect(memoryPlan(3, 12 * GiB)).toEqual({ threads: 3, heapMb: 2048 });
  });

  it('a run past the heap of its worker ends in a usage error naming the limit, and the process lives on', async () => {
    const worker = new URL('../../dist/lazy/planner-worker.js', import.meta.url);
    expect(existsSync(fileURLToPath(worker)), 'run npm run build first').toBe(true);
    // About 130 MB of engine state per run; the worker gets 32 MB.
    const inputs: SimInputs = {
      arrivalsPerHour: 1000,
      testMinutes: 30,
      testTimeSpread: 0,
      failureRate: 0.05,
      flakeRate: 0,
      durationHours: 24,
      runs: 2,
      seed: 1,
      ciCapacity: null,
      lanes: 1,
    };
    const settings = { ...settingsFromQueue(engineDefaults()), concurrency: 500 };
    const err = await runAll(inputs, [{ label: 'big', settings }], 1, worker, 32).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).why).toBe(
      'queue simulate: a simulated run needed more than 32 MB, the memory of a worker thread on this machine',
    );
    expect((err as UsageError).hints[0]).toMatch(/lower concurrency or batch sizes in --compare, --arrivals/);
  }, 60_000);
});
