import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { computeStats, percentile } from '../../src/stats/compute.js';
import { evaluateThresholds, parseThreshold } from '../../src/stats/fail-if.js';
import type { ConcludedPr, TestAttempt } from '../../src/stats/model.js';
import { escapeHtml, fitToWidth, histogram, terminalCharts } from '../../src/views/charts.js';
import { htmlReport } from '../../src/views/stats-html.js';
import { crossedLines, statsFields } from '../../src/views/stats.js';
import { thrown } from '../helpers/thrown.js';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const MIN = 60_000;
const H = 3_600_000;

/** 24 h window; PRs 1..4 merge, 5 fails, 6 is cancelled; PR 5 failed alone, PR 4 failed alone then passed (flaky). */
function workload() {
  const window = { since: T0, until: T0 + 24 * H };
  const prs: ConcludedPr[] = [
    { number: 1, state: 'merged', submittedAt: T0 + 1 * H, concludedAt: T0 + 1 * H + 20 * MIN },
    { number: 2, state: 'merged', submittedAt: T0 + 2 * H, concludedAt: T0 + 2 * H + 30 * MIN },
    { number: 3, state: 'merged', submittedAt: T0 + 3 * H, concludedAt: T0 + 3 * H + 40 * MIN },
    { number: 4, state: 'merged', submittedAt: T0 + 5 * H, concludedAt: T0 + 5 * H + 60 * MIN },
    { number: 5, state: 'failed', submittedAt: T0 + 6 * H, concludedAt: T0 + 6 * H + 15 * MIN },
    { number: 6, state: 'cancelled', submittedAt: T0 + 7 * H, concludedAt: T0 + 7 * H + 5 * MIN },
    { number: 7, state: 'merged', submittedAt: T0 - 2 * H, concludedAt: T0 - 1 * H }, // before the window
  ];
  const a = (
    runId: string,
    prNumber: number,
    start: number,
    minutes: number,
    result: TestAttempt['result'],
    bisection = false,
  ): TestAttempt => ({
    runId,
    prNumber,
    startedAt: start,
    finishedAt: start + minutes * MIN,
    result,
    bisection,
  });
  const attempts: TestAttempt[] = [
    a('r1', 1, T0 + 1 * H + 10 * MIN, 10, 'passed'),
    a('r2', 2, T0 + 2 * H + 10 * MIN, 10, 'passed'),
    a('r2', 3, T0 + 2 * H + 10 * MIN, 10, 'passed'), // batched with 2 (same run)
    a('r3', 3, T0 + 3 * H + 30 * MIN, 10, 'passed'),
    a('r4', 4, T0 + 5 * H + 10 * MIN, 10, 'failed'),
    a('r5', 4, T0 + 5 * H + 40 * MIN, 10, 'passed', true),
    a('r6', 5, T0 + 6 * H + 5 * MIN, 10, 'failed'),
  ];
  return { window, prs, attempts, settings: { concurrency: 2, batch: true, batchingMinSize: 2 } };
}

describe('queue statistics', () => {
  it('nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([5], 90)).toBe(5);
  });

  it('computes every figure of a known workload', () => {
    const { stats, series } = computeStats(workload());
    expect(stats).toEqual({
      window: { since: '2026-11-20T00:00:00.000Z', until: '2026-11-21T00:00:00.000Z' },
      prs: { merged: 4, failed: 1, cancelled: 1 },
      mergedPerHour: 0.17,
      timeToMerge: { p50: 30 * 60, p90: 60 * 60, p95: 60 * 60 },
      waiting: { p50: 10 * 60, p95: 30 * 60 }, // PR 3 waited 30 min (its batch run with PR 2 began before it was submitted)
      testing: { p50: 10 * 60, p95: 50 * 60 },
      runs: { total: 6, failed: 2, bisection: 1, perMergedPr: 1.5 },
      testMinutesPerMergedPr: 15,
      flakyShare: 0.5,
      ceilingPerHour: 24,
    });
    expect(series.mergesPerHour).toHaveLength(24);
    expect(series.mergesPerHour.map((b) => b.count).reduce((x, y) => x + y)).toBe(4);
    expect(series.mergesPerHour[6]!.count).toBe(1); // PR 4 merged at 06:00
    expect(series.timeToMergeSeconds).toEqual([1200, 1800, 2400, 3600]);
  });

  it('does not call a batch failure flaky, nor a failure fixed by a new commit', () => {
    const w = workload();
    for (const prNumber of [1, 2]) {
      w.attempts.push({
        runId: 'rb',
        prNumber,
        startedAt: T0 + 30 * MIN,
        finishedAt: T0 + 40 * MIN,
        result: 'failed',
        bisection: false,
      });
    }
    expect(computeStats(w).stats.flakyShare).toBe(0.5);
    for (const x of w.attempts) if (x.prNumber === 4) x.sha = x.runId === 'r4' ? 'aaa' : 'bbb';
    expect(computeStats(w).stats.flakyShare).toBe(0);
  });

  it('gives nulls, not errors, for an empty window', () => {
    const { stats } = computeStats({ window: { since: T0, until: T0 + H }, prs: [], attempts: [], settings: null });
    expect(stats.timeToMerge).toEqual({ p50: null, p90: null, p95: null });
    expect(stats.runs.perMergedPr).toBeNull();
    expect(stats.flakyShare).toBeNull();
    expect(stats.ceilingPerHour).toBeNull();
  });

  it('plain fields carry seconds and fractions, human ones durations and percentages', () => {
    const { stats } = computeStats(workload());
    const plain = Object.fromEntries(statsFields(stats, false).map((f) => [f.key, f.value]));
    const human = Object.fromEntries(statsFields(stats, true).map((f) => [f.key, f.value]));
    expect(plain['timeToMerge.p95']).toBe('3600');
    expect(human['timeToMerge.p95']).toBe('1h');
    expect(plain.flakyShare).toBe('0.5');
    expect(human.flakyShare).toBe('50%');
    expect(Object.keys(plain)).toEqual(Object.keys(human));
  });
});

describe('--fail-if', () => {
  const { stats } = computeStats(workload());
  it('parses durations, shares and counts', () => {
    expect(parseThreshold('p95>2h')).toEqual({
      text: 'p95>2h',
      figure: 'timeToMerge.p95',
      op: '>',
      value: 7200,
      name: 'p95',
      limitText: '2h',
      unit: 'duration',
    });
    expect(parseThreshold('flakyShare>10%')).toMatchObject({ figure: 'flakyShare', value: 0.1 });
    expect(parseThreshold(' runs.perMergedPr >= 1.5 ')).toMatchObject({
      figure: 'runs.perMergedPr',
      op: '>=',
      value: 1.5,
    });
    expect(parseThreshold('waiting.p50<90s')).toMatchObject({ figure: 'waiting.p50', op: '<', value: 90 });
  });
  it('refuses bad expressions with one line naming the flag', () => {
    for (const bad of ['p95', 'p99>2h', 'p95>2 hours', 'flakyShare>150%', 'mergedPerHour<lots', '>3']) {
      const err = thrown(() => parseThreshold(bad));
      expect(err, bad).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/^usage: --fail-if: /);
      expect((err as Error).message).not.toContain('\n');
    }
  });
  it('lists the figures that crossed', () => {
    const ts = ['p95>30m', 'p50>2h', 'flakyShare>=50%', 'mergedPerHour<1', 'ceilingPerHour<10'].map(parseThreshold);
    expect(evaluateThresholds(stats, ts)).toMatchObject([
      { threshold: 'p95>30m', figure: 'timeToMerge.p95', actual: 3600, limit: 1800 },
      { threshold: 'flakyShare>=50%', figure: 'flakyShare', actual: 0.5, limit: 0.5 },
      { threshold: 'mergedPerHour<1', figure: 'mergedPerHour', actual: 0.17, limit: 1 },
    ]);
  });
  it('tells a crossed figure in the unit its limit was written in', () => {
    const custom = {
      ...stats,
      timeToMerge: { p50: 600, p90: 6000, p95: 6480 },
      flakyShare: 0.3611,
      runs: { ...stats.runs, perMergedPr: 2.5 },
    };
    const ts = [
      'p95>1h',
      'timeToMerge.p90>3600',
      'FLAKYSHARE>10%',
      'flakyShare>0.1',
      'runs.perMergedPr>2',
      'prs.merged<100',
      'runs.total>1',
    ].map(parseThreshold);
    expect(crossedLines(evaluateThresholds(custom, ts))).toEqual([
      'threshold crossed: p95 1h 48m > 1h',
      'threshold crossed: time to merge p90 6000 > 3600',
      'threshold crossed: flaky share 36.1% > 10%',
      'threshold crossed: flaky share 0.3611 > 0.1',
      'threshold crossed: runs per merged PR 2.5 > 2',
      `threshold crossed: PRs merged ${stats.prs.merged} < 100`,
      `threshold crossed: test runs ${stats.runs.total} > 1`,
    ]);
  });
});

describe('charts', () => {
  it('fits any number of values to the width', () => {
    expect(fitToWidth([1, 2, 3, 4, 5], 10)).toEqual({ values: [1, 2, 3, 4, 5], per: 1 });
    expect(fitToWidth([1, 2, 3, 4, 5], 2)).toEqual({ values: [6, 9], per: 3 });
  });
  it('bins durations', () => {
    expect(histogram([10, 20, 30, 40], 2)).toEqual([
      { from: 0, to: 30, count: 2 },
      { from: 30, to: 60, count: 2 },
    ]);
    // Round boundaries: 10 to 120 minutes in 8 bins of 15 minutes.
    const b = histogram([600, 1200, 3600, 7200], 8);
    expect(b.map((x) => x.from / 60)).toEqual([0, 15, 30, 45, 60, 75, 90, 105]);
    expect(b.map((x) => x.count)).toEqual([1, 1, 0, 0, 1, 0, 0, 1]); // 10m, 20m, 60m, and 120m in the last bin (its end included)
    expect(b.reduce((n, x) => n + x.count, 0)).toBe(4);
    expect(histogram([5, 5, 5])).toEqual([{ from: 5, to: 6, count: 3 }]);
  });
  it('keeps every terminal line within the width', () => {
    const hours = Array.from({ length: 1080 }, (_, i) => ({ start: T0 + i * H, count: i % 7 }));
    const ttm = Array.from({ length: 500 }, (_, i) => 60 + i * 37);
    for (const width of [20, 40, 80, 200]) {
      const { stats } = computeStats(workload());
      const window = { since: stats.window.since, until: new Date(T0 + 1080 * H).toISOString() };
      const lines = terminalCharts(
        { ...stats, window, ceilingPerHour: 3.5 },
        { mergesPerHour: hours, timeToMergeSeconds: ttm, firstAt: T0 },
        width,
      );
      expect(lines.length).toBeGreaterThan(3);
      for (const l of lines) expect([...l].length, `${width}: ${l}`).toBeLessThanOrEqual(width);
    }
  });
  it('writes a self-contained HTML page with one bar per hour and escaped service text', () => {
    const { stats, series } = computeStats(workload());
    const groups = [{ title: 'Time <to> merge', figures: [['p50', '"x"&<y>']] as Array<[string, string]> }];
    const html = htmlReport(
      stats,
      series,
      { queue: 'main of <script>alert(1)</script>', generatedAt: '2026-11-21T00:00:00Z' },
      groups,
    );
    expect(html.match(/<rect class="bar"/g)).toHaveLength(24);
    expect(html.match(/<rect class="bin"/g)!.length).toBeGreaterThan(0);
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('&quot;x&quot;&amp;&lt;y&gt;');
    expect(html).toContain('<th colspan="2" class="group">Time &lt;to&gt; merge</th>');
    expect(html).not.toMatch(/(src|href)=|@import|url\(/);
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});
