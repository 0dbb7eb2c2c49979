/**
 * Must-hold properties of the planner on the real engine (fixed seeds, virtual clock). Where a case
 * checks a published figure or formula, the source is named in the test.
 */
import { describe, expect, it } from 'vitest';
import { simulateRun } from '../../src/planner/driver.js';
import type { RunMetrics, SimInputs, SimSettings } from '../../src/planner/model.js';

const INPUTS: SimInputs = {
  arrivalsPerHour: 10,
  testMinutes: 30,
  testTimeSpread: 0,
  failureRate: 0,
  flakeRate: 0,
  durationHours: 48,
  runs: 1,
  seed: 7,
  ciCapacity: null,
  lanes: 1,
};
const SETTINGS: SimSettings = {
  mode: 'single',
  concurrency: 1,
  bisectionConcurrency: null,
  batch: false,
  batchingMinSize: 4,
  batchingMaxWaitTimeMinutes: 5,
  pendingFailureDepth: 0,
  canOptimisticallyMerge: false,
  optimizationMode: 'off',
  testingTimeoutMinutes: 300,
};

function sim(inputs: Partial<SimInputs>, settings: Partial<SimSettings>, run = 0): RunMetrics {
  return simulateRun({ ...INPUTS, ...inputs }, { ...SETTINGS, ...settings }, run);
}
const perHour = (m: RunMetrics, hours = INPUTS.durationHours) => m.merged / hours;
const near = (actual: number, expected: number, relative: number) => {
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(relative);
};

describe('planner on the engine: saturated throughput', () => {
  it('one PR at a time with 30-minute tests and no failures merges 2 PRs per hour when saturated', () => {
    const m = sim({}, { concurrency: 1 });
    expect(m.backlogAtEnd).toBeGreaterThan(100); // saturated: 10/h arrive, 2/h can merge
    near(perHour(m), 2, 0.02);
    expect(m.runsStarted - m.merged).toBeLessThanOrEqual(1); // every run merges its PR (one may be in flight)
  });

  it('serial ceiling = 60 / CI minutes (Mergify Merge Queue Academy, "measuring a merge queue"): 45-minute tests merge 1.33/h', () => {
    near(perHour(sim({ testMinutes: 45 }, {})), 60 / 45, 0.03);
  });

  it('predictive testing of k at once merges k x 60 / C per hour without failures (Mergify performance calculator: throughputMax = batch x checks / CI hours)', () => {
    near(perHour(sim({ arrivalsPerHour: 20 }, { concurrency: 4 })), (4 * 60) / 30, 0.03);
  });

  it('batches of 4 with a 30-minute pipeline reach ~192 merges a day serially (Mergify Merge Queue Academy: 48/day serially, ~192/day with batches of 4)', () => {
    const m = sim({ arrivalsPerHour: 20 }, { batch: true, batchingMinSize: 4 });
    near(m.merged / 2, 192, 0.03);
  });

  it('--ci-capacity caps the runs in flight: concurrency 8 on 2 runners merges like concurrency 2', () => {
    const capped = sim({ arrivalsPerHour: 20, ciCapacity: 2 }, { concurrency: 8 });
    near(perHour(capped), (2 * 60) / 30, 0.05);
    const uncapped = sim({ arrivalsPerHour: 20 }, { concurrency: 8 });
    expect(perHour(uncapped)).toBeGreaterThan(perHour(capped) * 3);
  });
});

describe('planner on the engine: cost', () => {
  for (const b of [2, 4, 8]) {
    it(`batches of ${b} with no failures cost 1/${b} runs per merged PR (Trunk batching table: 12 PRs cost 12x/6x/3x/1.5x at batch 1/2/4/8)`, () => {
      const m = sim({ arrivalsPerHour: 30 }, { batch: true, batchingMinSize: b, concurrency: 1 });
      expect(m.backlogAtEnd).toBeGreaterThan(50); // saturated, so every batch fills
      near(m.runsStarted / m.merged, 1 / b, 0.03);
    });
  }

  it('a serial queue with flaky runs and no real failures: each flake fails a good PR, so runs per merged PR = 1 / (1 - q)', () => {
    const q = 0.2;
    const m = sim({ arrivalsPerHour: 3, flakeRate: q, durationHours: 1000 }, {});
    near(m.runsStarted / m.merged, 1 / (1 - q), 0.05);
    expect(m.failedReal).toBe(0);
    near(m.failedFlaky / (m.merged + m.failedFlaky), q, 0.15);
  });

  it('a serial queue with breaking PRs merges s x 60 / C per hour (each PR tested once; Mergify academy serial ceiling times the success ratio)', () => {
    const m = sim({ failureRate: 0.2, durationHours: 200 }, {});
    near(perHour(m, 200), 0.8 * 2, 0.05);
    expect(m.failedFlaky).toBe(0);
  });

  it('test minutes per merged PR = test time / b when batches always fill and nothing fails', () => {
    const m = sim({ arrivalsPerHour: 30 }, { batch: true, batchingMinSize: 4, concurrency: 2 });
    near(m.testMinutes / m.merged, 30 / 4, 0.03);
  });
});

describe('planner on the engine: parallel mode', () => {
  it('with independent lanes a failure restarts only its own lane (Trunk changelog 2023-11-21: "Only PRs affecting the same code areas are retested"), so fewer runs per merged PR than single mode', () => {
    const w = { arrivalsPerHour: 6, failureRate: 0.1, lanes: 4 };
    const single = sim(w, { concurrency: 4 });
    const parallel = sim(w, { concurrency: 4, mode: 'parallel' });
    expect(parallel.arrived).toBe(single.arrived);
    expect(parallel.runsStarted / parallel.merged).toBeLessThan((single.runsStarted / single.merged) * 0.9);
    // One lane is single mode again.
    const oneLane = sim({ ...w, lanes: 1 }, { concurrency: 4, mode: 'parallel' });
    expect(oneLane.runsStarted).toBe(single.runsStarted);
    expect(oneLane.merged).toBe(single.merged);
  });
});

describe('planner on the engine: an unsaturated queue', () => {
  it('merges what arrives, and its time to merge is about one test time', () => {
    const m = sim({ arrivalsPerHour: 1, durationHours: 200 }, { concurrency: 4 });
    expect(m.arrived).toBeGreaterThan(150);
    expect(m.arrived - m.merged).toBeLessThanOrEqual(4); // only the PRs still testing at the end
    const q = m.ttmQuantiles as number[];
    expect(q[10]).toBe(1800); // median: exactly one 30-minute run
    near(q[19] as number, 1800, 0.05);
  });

  it('with test-time spread the median time to merge stays near the mean test time', () => {
    const m = sim({ arrivalsPerHour: 1, durationHours: 200, testTimeSpread: 0.2 }, { concurrency: 4 });
    near((m.ttmQuantiles as number[])[10] as number, 1800, 0.05);
  });
});

describe("Little's law: mean depth = merges per hour x mean time in queue", () => {
  const cases: Array<[string, Partial<SimInputs>, Partial<SimSettings>]> = [
    ['no failures, concurrency 4', { arrivalsPerHour: 6, durationHours: 200 }, { concurrency: 4 }],
    [
      'spread, failures and flakes, batches',
      { arrivalsPerHour: 12, durationHours: 200, testTimeSpread: 0.3, failureRate: 0.05, flakeRate: 0.02 },
      { concurrency: 4, batch: true },
    ],
  ];
  for (const [name, inputs, settings] of cases) {
    it(`holds within 5% (${name})`, () => {
      const m = sim(inputs, settings);
      const hours = inputs.durationHours as number;
      const leftPerHour = (m.merged + m.failedReal + m.failedFlaky) / hours;
      const inQueueHours = (m.meanTimeInQueueSec as number) / 3600;
      expect(m.backlogAtEnd).toBeLessThan(40); // stable
      near(m.meanDepth, leftPerHour * inQueueHours, 0.05);
    });
  }
});

describe('determinism and common random numbers', () => {
  it('the same seed gives the same output', () => {
    const a = sim(
      { arrivalsPerHour: 15, failureRate: 0.05, flakeRate: 0.02, testTimeSpread: 0.2 },
      { concurrency: 3, batch: true },
    );
    const b = sim(
      { arrivalsPerHour: 15, failureRate: 0.05, flakeRate: 0.02, testTimeSpread: 0.2 },
      { concurrency: 3, batch: true },
    );
    expect(b).toEqual(a);
    const c = sim(
      { arrivalsPerHour: 15, failureRate: 0.05, flakeRate: 0.02, testTimeSpread: 0.2, seed: 8 },
      { concurrency: 3, batch: true },
    );
    expect(c).not.toEqual(a);
  });

  it('every settings row sees the same arrivals', () => {
    const w = { arrivalsPerHour: 15, failureRate: 0.05, flakeRate: 0.02, durationHours: 24 };
    const a = sim(w, { concurrency: 1 }, 3);
    const b = sim(w, { concurrency: 8, batch: true }, 3);
    expect(b.arrived).toBe(a.arrived);
    expect(sim(w, { concurrency: 1 }, 4).arrived).not.toBe(a.arrived);
  });

  it('without queueing, rows share test times: two unsaturated rows give the same time-to-merge distribution', () => {
    const w = { arrivalsPerHour: 0.5, durationHours: 100, testTimeSpread: 0.4 };
    expect(sim(w, { concurrency: 10 }).ttmQuantiles).toEqual(sim(w, { concurrency: 20 }).ttmQuantiles);
  });
});
