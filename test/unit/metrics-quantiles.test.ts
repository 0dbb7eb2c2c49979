/**
 * p50/p90 of the service's histograms with few observations (issue 25): by nearest rank, never
 * past the largest observation; from 20 on, PromQL's histogram_quantile as before.
 */
import { describe, expect, it } from 'vitest';
import { FEW_OBSERVATIONS, histogramQuantile, quantileOfFew } from '../../src/api/merge-queue-metrics.js';
import { summarizeMergeQueueMetrics } from '../../src/api/merge-queue-metrics.js';
import { parseExposition } from '../../src/api/prometheus.js';

const LES = [60, 300, 600, 900, 1800, 3600, 5400, 7200, Infinity];

/** The service's cumulative buckets and sum for these observations. */
function observe(values: number[]): { buckets: Array<{ le: number; count: number }>; sum: number } {
  const buckets = LES.map((le) => ({ le, count: values.filter((x) => x <= le).length }));
  return { buckets, sum: values.reduce((a, b) => a + b, 0) };
}

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('quantiles of fewer than 20 observations', () => {
  it('one PR that waited 0 s: p50 and p90 are 0 s (were 30 s and 54 s)', () => {
    const { buckets, sum } = observe([0]);
    expect([quantileOfFew(buckets, 0.5, sum), quantileOfFew(buckets, 0.9, sum)]).toEqual([0, 0]);
    const name = 'mq_pr_wait_duration_1h_seconds';
    const labels = 'repo="a/b",branch="main",queue_type="main"';
    const text = [
      `# TYPE ${name} histogram`,
      ...LES.map((le) => `${name}_bucket{${labels},le="${le === Infinity ? '+Inf' : le}"} 1`),
      `${name}_sum{${labels}} 0`,
      `${name}_count{${labels}} 1`,
    ].join('\n');
    const [queue] = summarizeMergeQueueMetrics(parseExposition(text));
    expect(queue?.histograms.wait).toStrictEqual({ count: 1, sum: 0, p50: 0, p90: 0 });
  });

  it('one observation is its sum, in any bucket', () => {
    for (const x of [0, 45, 61, 1000, 9000]) {
      const { buckets, sum } = observe([x]);
      expect([quantileOfFew(buckets, 0.5, sum), quantileOfFew(buckets, 0.9, sum)]).toEqual([x, x]);
    }
  });

  it('never past the largest observation, nor below the start of the bucket its rank is in (random samples)', () => {
    const next = random(25);
    for (let run = 0; run < 2000; run++) {
      const n = 1 + Math.floor(next() * (FEW_OBSERVATIONS - 1));
      const spread = [60, 900, 8000][run % 3] as number;
      const values = Array.from({ length: n }, () => Math.round(next() * spread));
      const { buckets, sum } = observe(values);
      const sorted = [...values].sort((a, b) => a - b);
      for (const q of [0, 0.5, 0.9, 1]) {
        const got = quantileOfFew(buckets, q, sum) as number;
        expect(got, JSON.stringify({ values, q })).toBeLessThanOrEqual(sorted[n - 1] as number);
        // The nearest-rank observation is in the bucket the estimate is in, or a later one.
        const x = sorted[Math.max(1, Math.ceil(q * n)) - 1] as number;
        const start = [0, ...LES].filter((le) => le < x).pop() ?? 0;
        expect(got, JSON.stringify({ values, q })).toBeGreaterThanOrEqual(Math.min(start, x));
      }
    }
  });

  it('all equal observations: the largest at least their mean', () => {
    const { buckets, sum } = observe([100, 100, 100, 100]);
    // Interpolated, p90 would be 60 + 240 × 3.6/4 = 276; the largest is 100.
    expect(histogramQuantile(buckets, 0.9)).toBe(276);
    expect(quantileOfFew(buckets, 0.9, sum)).toBe(100);
  });

  it('20 observations or more: as histogram_quantile', () => {
    const values = Array.from({ length: FEW_OBSERVATIONS }, (_, i) => i * 30);
    const { buckets, sum } = observe(values);
    for (const q of [0.5, 0.9]) expect(quantileOfFew(buckets, q, sum)).toBe(histogramQuantile(buckets, q));
  });

  it('q outside 0..1, or no observation: as histogram_quantile', () => {
    const { buckets, sum } = observe([10, 20]);
    const got = [-1, 2, Number.NaN].map((q) => quantileOfFew(buckets, q, sum));
    expect(got).toEqual([-Infinity, Infinity, undefined]);
    expect(quantileOfFew(observe([]).buckets, 0.5, 0)).toBeUndefined();
  });
});
