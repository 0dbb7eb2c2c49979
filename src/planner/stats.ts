/** Statistics over independent runs: quantiles, means and Student-t 95% intervals. */

/** Linear-interpolation quantile (type 7) of an ascending array; NaN when empty. */
export function quantileSorted(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const a = sorted[lo] as number;
  return a + (h - lo) * ((sorted[hi] as number) - a);
}

/** Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** t(0.975, df); above 30 degrees of freedom the Cornish-Fisher expansion around z = 1.96. */
export function t975(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T975[df - 1] as number;
  const z = 1.959964;
  const z3 = z ** 3;
  const z5 = z ** 5;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

/** Mean and 95% interval; null fields when fewer than two values are defined. */
export interface Estimate {
  mean: number | null;
  lo: number | null;
  hi: number | null;
}

export function estimate(values: ReadonlyArray<number | null>): Estimate {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const n = xs.length;
  if (n === 0) return { mean: null, lo: null, hi: null };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, lo: null, hi: null };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  const half = t975(n - 1) * Math.sqrt(variance / n);
  return { mean, lo: mean - half, hi: mean + half };
}
