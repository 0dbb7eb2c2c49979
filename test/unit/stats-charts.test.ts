import { describe, expect, it } from 'vitest';
import { computeStats } from '../../src/stats/compute.js';
import type { ConcludedPr } from '../../src/stats/model.js';
import { terminalCharts } from '../../src/views/charts.js';
import { htmlReport } from '../../src/views/stats-html.js';
import { groupedStatsFields } from '../../src/views/stats.js';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const H = 3_600_000;
const MIN = 60_000;

/** `n` merges at `at`, each 30 minutes after its submission. */
const merges = (at: number, n: number, from = 1, minutes = (_i: number) => 30): ConcludedPr[] =>
  Array.from({ length: n }, (_, i) => ({
    number: from + i,
    state: 'merged',
    submittedAt: at - minutes(i) * MIN,
    concludedAt: at,
  }));

function report(window: { since: number; until: number }, prs: ConcludedPr[], ceiling: number | null) {
  const { stats, series } = computeStats({ window, prs, attempts: [], settings: null });
  const s = { ...stats, ceilingPerHour: ceiling };
  const groups = groupedStatsFields(s).map((g) => ({
    title: g.title,
    figures: g.fields.map((f): [string, string] => [f.label, f.value]),
  }));
  return {
    stats: s,
    series,
    html: htmlReport(s, series, { queue: 'main', generatedAt: '2026-11-22T00:00:00Z' }, groups),
  };
}

describe('the terminal merges-per-hour chart', () => {
  // Two days; 12 merges in hour 10 and 11 in hour 11: at 40 columns two hours share a column.
  const prs = [
    ...merges(T0 + 10 * H + 5 * MIN, 12),
    ...merges(T0 + 11 * H + 5 * MIN, 11, 100),
    ...merges(T0 + 30 * H, 2, 200),
  ];
  const { stats, series } = report({ since: T0, until: T0 + 48 * H }, prs, 9.5);

  it('says its unit: a column of 2 h holding 23 merges peaks at 11.5 per hour', () => {
    const lines = terminalCharts(stats, series, 40);
    expect(lines[0]).toBe('merges per hour (UTC, a column per 2 h):');
    expect(lines[1]).toBe('peak 11.5/h');
    expect(lines.join('\n')).not.toMatch(/max 23/);
  });

  it('has a scale, the ceiling as a dashed line, and a UTC time axis with dates and hours', () => {
    const lines = terminalCharts(stats, series, 80);
    expect(lines[0]).toBe('merges per hour (UTC): peak 12/h');
    expect(lines[1]).toBe('┄ ceiling of the settings: 9.5/h');
    expect(lines[2]).toMatch(/^15\/h ┤/);
    // 9.5 of 15 is in the second row from the top: its empty cells are dashes.
    expect(lines[3]).toMatch(/^ {5}│┄+/);
    expect(lines[6]).toMatch(/^ {3}0 └[─┬]+$/);
    const ticks = lines[7] as string;
    expect(ticks).toMatch(/^ {6}Nov 20 +\d\d:00 +.*Nov 21/);
    // Each label starts under a tick mark.
    for (const m of ticks.matchAll(/\S+( \d+)?/g)) expect((lines[6] as string)[m.index], m[0]).toBe('┬');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
  });

  it('an empty window says so instead of drawing nothing', () => {
    const empty = report({ since: T0, until: T0 + 24 * H }, [], null);
    const lines = terminalCharts(empty.stats, empty.series, 80);
    expect(lines).toEqual(['merges per hour: no PRs in this window: none left the queue and no test run', 'ended']);
  });

  it('a window longer than the history says where the data starts', () => {
    const late = report({ since: T0, until: T0 + 7 * 24 * H }, merges(T0 + 4 * 24 * H + 6 * H, 3), null);
    const lines = terminalCharts(late.stats, late.series, 60);
    expect(lines.join(' ')).toContain('no data before Nov 24 06:00 UTC');
  });
});

describe('the HTML report', () => {
  // Times to merge of 10 to 75 minutes: seven bins of 10 minutes.
  const prs = [...merges(T0 + 2 * H + 5 * MIN, 14, 1, (i) => 10 + 5 * i), ...merges(T0 + 20 * H, 3, 100)];
  const { html } = report({ since: T0, until: T0 + 24 * H }, prs, 11.25);

  it('groups the figures: throughput, time to merge, CI cost, reliability', () => {
    const titles = [...html.matchAll(/<th colspan="2" class="group">([^<]+)<\/th>/g)].map((m) => m[1]);
    expect(titles).toEqual(['Throughput', 'Time to merge', 'CI cost', 'Reliability']);
    expect(html).toMatch(/class="group">Throughput<\/th><\/tr><tr><th>PRs merged<\/th><td>17<\/td>/);
  });

  it('draws a scale, a UTC time axis and the ceiling line; no bare "max N"', () => {
    const merges = html.slice(html.indexOf('id="merges-per-hour"'), html.indexOf('id="time-to-merge"'));
    expect([...merges.matchAll(/class="y-label"[^>]*>([^<]+)</g)].map((m) => m[1])).toEqual(['0/h', '7.5/h', '15/h']);
    const ticks = [...merges.matchAll(/class="tick-label"[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    for (const t of ticks) expect(t).toMatch(/^\d\d:00$|^Nov \d+$/);
    expect(merges).toContain('from 2026-11-20 00:00');
    expect(merges).toContain('to 2026-11-21 00:00 UTC');
    expect(merges).toMatch(/<line class="ceiling" [^>]*y1="([\d.]+)" [^>]*y2="\1"\/>/);
    expect(merges).toContain('>ceiling 11.25/h (settings)</text>');
    expect(html).not.toMatch(/max \d/);
  });

  it('labels the time-to-merge bins on their edges', () => {
    const ttm = html.slice(html.indexOf('id="time-to-merge"'));
    const edges = [...ttm.matchAll(/class="bin-label"[^>]*>([^<]+)</g)].map((m) => m[1]);
    expect(edges).toEqual(['10m', '20m', '30m', '40m', '50m', '1h', '1h 10m', '1h 20m']);
    expect(ttm.match(/<rect class="bin"/g)).toHaveLength(7);
  });

  it('says so when the window is empty or starts before the data', () => {
    const empty = report({ since: T0, until: T0 + 24 * H }, [], 3).html;
    expect(empty).toContain('<p class="note">no PRs in this window: none left the queue and no test run ended</p>');
    expect(empty).not.toContain('<rect class="bar"');
    const late = report({ since: T0, until: T0 + 7 * 24 * H }, merges(T0 + 4 * 24 * H + 6 * H, 3), null).html;
    expect(late).toContain(
      '<p class="note">no data before Nov 24 06:00 UTC: nothing left the queue earlier in the window</p>',
    );
    expect(late).toMatch(/<rect class="nodata" x="56" y="24" width="[\d.]+" height="\d+"\/>/);
  });
});

describe('test runs: stats and simulate --from-history each say what they count', async () => {
  const { fitHistory, backtestOf } = await import('../../src/planner/history.js');
  const { historyLines } = await import('../../src/views/simulate.js');
  const { statsFields } = await import('../../src/views/stats.js');
  const window = { since: T0, until: T0 + 24 * H };
  const prs = merges(T0 + 5 * H, 12);
  // 12 runs that passed, 4 cancelled (a PR ahead failed): stats counts 16, simulate fits on 12.
  const attempts = Array.from({ length: 16 }, (_, i) => ({
    runId: `r${i}`,
    prNumber: 1 + (i % 12),
    startedAt: T0 + 4 * H + i * MIN,
    finishedAt: T0 + 4 * H + (i + 20) * MIN,
    result: i < 12 ? ('passed' as const) : ('cancelled' as const),
    bisection: false,
  }));

  it('stats: every run that ended, cancelled ones too; simulate: the finished ones', () => {
    const { stats } = computeStats({ window, prs, attempts, settings: null });
    const fitted = fitHistory(window, prs, attempts);
    expect(stats.runs.total).toBe(16);
    expect(fitted.samples.runs).toBe(12);
    expect(statsFields(stats, true).find((f) => f.key === 'runs.total')?.label).toBe('test runs (cancelled ones too)');
    const figures = { mergedPerHour: 0.5, timeToMergeP50: 1800 };
    const lines = historyLines({ inputs: { fitted }, backtest: backtestOf(figures, figures) } as unknown as Parameters<
      typeof historyLines
    >[0]);
    expect(lines[0]).toContain('12 merged or failed PRs, 12 finished test runs (cancelled ones left out);');
  });
});
