/** The recommendation rule and the pure views of a simulate result (no simulation involved). */
import { describe, expect, it } from 'vitest';
import { recommend, type RowResult, type SimulateResult } from '../../src/planner/index.js';
import type { SimInputs, SimSettings } from '../../src/planner/model.js';
import type { Estimate } from '../../src/planner/stats.js';
import { simulateLegend, simulatePlainLines, simulateRows, simulateTable } from '../../src/views/simulate.js';

const est = (mean: number, half = 0): Estimate => ({ mean, lo: mean - half, hi: mean + half });
const settings = { concurrency: 1 } as SimSettings;
const inputs = { arrivalsPerHour: 20 } as SimInputs;

function row(label: string, p50min: number, half: number, testMin: number, flaky: number, keepsUp = true): RowResult {
  return {
    label,
    settings,
    keepsUp,
    mergedPerHour: est(19),
    timeToMerge: { p50: est(p50min * 60, half * 60), p95: est(p50min * 120, half * 60), points: [], distribution: [] },
    runsPerMergedPr: est(testMin / 30),
    testMinutesPerMergedPr: est(testMin),
    meanDepth: est(10),
    failedPerDay: { real: est(24), flaky: est(flaky) },
    backlogAtEnd: est(3),
  };
}

describe('recommend', () => {
  it('picks the fastest row when the others are clearly slower, and names what it costs next to the cheapest', () => {
    const r = recommend([row('a', 60, 2, 40, 2), row('b', 90, 2, 20, 0.5)], inputs);
    expect(r.label).toBe('a');
    expect(r.text).toMatch(
      /^Recommended: a — velocity: .*\(fastest\); cost: 40 test min per merged PR \(b: 20\); reliability: 2\.0 .*\(b: 0\.5\)\.$/,
    );
  });

  it('prefers the cheaper row when time to merge is tied within the 95% intervals', () => {
    const r = recommend([row('a', 60, 10, 40, 2), row('b', 65, 10, 20, 1)], inputs);
    expect(r.label).toBe('b');
    expect(r.text).toMatch(/as fast as a within the 95% intervals of p50 and p95, and cheaper/);
  });

  it('a tied p50 is not enough: a clearly worse p95 keeps the fastest row', () => {
    const a = row('a', 60, 10, 40, 2);
    const b = row('b', 65, 10, 20, 1);
    b.timeToMerge.p95 = est(400 * 60, 20 * 60);
    expect(recommend([a, b], inputs).label).toBe('a');
  });

  it('never recommends a row that falls behind while another keeps up, and says so when one is cheaper', () => {
    const r = recommend([row('slow-cheap', 30, 1, 10, 0.1, false), row('ok', 80, 2, 30, 1)], inputs);
    expect(r.label).toBe('ok');
    expect(r.text).toMatch(/the only row that keeps up with 20\.0 PRs\/h/);
    expect(r.text).toMatch(/slow-cheap: 10, but it falls behind/);
  });

  it('says when no row keeps up', () => {
    expect(recommend([row('a', 600, 2, 30, 1, false), row('b', 900, 2, 20, 1, false)], inputs).text).toMatch(
      /^No row keeps up .*least bad: a/,
    );
  });
});

describe('views', () => {
  const result: SimulateResult = {
    inputs: {
      ...inputs,
      testMinutes: 30,
      testTimeSpread: 0,
      failureRate: 0.05,
      flakeRate: 0.02,
      durationHours: 168,
      runs: 20,
      seed: 1,
      ciCapacity: null,
      lanes: 1,
      baseline: 'defaults',
    },
    results: [
      row('baseline', 60, 2, 40, 2),
      row('batch=4', 90, 2, 20, 0.5),
      row('concurrency=1', 30, 1, 5, 0.1, false),
    ],
    recommendation: { label: 'baseline', text: 'Recommended: baseline' },
  };

  it('marks the best value of each column among the rows that keep up', () => {
    const rows = simulateRows(result);
    const cell = (r: number, c: number) => {
      const x = (rows[r] as Array<string | { value: string }>)[c];
      return typeof x === 'string' ? x : (x as { value: string }).value;
    };
    expect(cell(0, 0)).toBe('baseline');
    expect(cell(0, 2)).toBe('60m ±2m *'); // TTM p50: baseline beats batch=4
    expect(cell(1, 5)).toBe('20.0 ±0.0 *'); // test minutes: batch=4 is cheaper
    expect(cell(2, 0)).toBe('concurrency=1 (falls behind)');
    expect(cell(2, 2)).toBe('30m ±1m'); // faster, but it falls behind: not marked
  });

  it('plain lines carry row, column key, mean, lo, hi, and end with the recommendation', () => {
    const lines = simulatePlainLines(result);
    expect(lines[0]).toBe('baseline\tmerged_per_hour\t19\t19\t19');
    expect(lines.at(-1)).toBe('recommendation\tbaseline\tRecommended: baseline');
  });

  const text = (c: string | { value: string } | undefined) => (typeof c === 'string' ? c : (c?.value ?? ''));

  it('marks no best when only one row keeps up, and the legend says why', () => {
    const one = { ...result, results: [row('baseline', 60, 2, 40, 2), row('batch=4', 30, 2, 20, 0.5, false)] };
    const cells = simulateRows(one).flat().map(text);
    expect(cells.filter((c) => c.endsWith('*'))).toEqual([]);
    expect(simulateLegend(one)[1]).toBe(
      'no * (best in column): only one row keeps up, and a row that falls behind is never marked',
    );
    expect(simulateLegend(result)[1]).toBe(
      '* = best in column among the 2 rows that keep up (a row that falls behind is never marked)',
    );
  });

  it('shows a duration and its interval in one unit, and rounds every figure', () => {
    const r = row('baseline', 60, 2, 40, 2);
    r.timeToMerge.p95 = { mean: 14.2 * 3600, lo: 14.2 * 3600 - 660, hi: 14.2 * 3600 + 660 };
    r.mergedPerHour = { mean: 4.929_24, lo: 4.8, hi: 5.058_48 };
    const cells = simulateRows({ ...result, results: [r] })[0]?.map(text) ?? [];
    expect(cells[3]).toBe('14.2h ±0.2h');
    expect(cells[1]).toBe('4.93 ±0.13');
  });

  it('numbers the rows and puts the settings in a legend when whole labels do not fit the width', () => {
    const long = {
      ...result,
      results: [
        row('baseline', 60, 2, 40, 2),
        row('concurrency=4,batch=4', 90, 2, 20, 0.5),
        row('concurrency=1', 30, 1, 5, 0.1, false),
      ],
    };
    const narrow = simulateTable(long, 60);
    expect(narrow.headers[0]).toBe('#');
    expect(narrow.rows.map((r) => text(r[0]))).toEqual(['1', '2', '3']);
    expect(narrow.legend).toEqual(['1  baseline', '2  concurrency=4,batch=4', '3  concurrency=1 (falls behind)']);
    // A label longer than the width wraps under itself in the legend; it is never cut.
    const wrapped = simulateTable(
      { ...long, results: [row(`concurrency=4,${'batch=4,'.repeat(10)}x=1`, 60, 2, 40, 2)] },
      40,
    ).legend;
    expect(wrapped.every((l) => l.length <= 40)).toBe(true);
    expect(wrapped.map((l) => l.slice(3)).join('')).toBe(`concurrency=4,${'batch=4,'.repeat(10)}x=1`);
    // Wide enough, or no width (a pipe, markdown): whole labels, no legend.
    for (const width of [200, undefined]) {
      const wide = simulateTable(long, width);
      expect(wide.headers[0]).toBe('Settings');
      expect(wide.rows.map((r) => text(r[0]))).toEqual([
        'baseline',
        'concurrency=4,batch=4',
        'concurrency=1 (falls behind)',
      ]);
      expect(wide.legend).toEqual([]);
    }
  });
});
