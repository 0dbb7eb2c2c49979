// Per-queue records from the service's merge-queue metric families, and histogram quantiles
// (PromQL's histogram_quantile, or nearest rank under 20 observations).
import { parseFloatToken, type Family } from './prometheus.js';

// ---- Quantiles ----

/**
 * The q-quantile of cumulative buckets, as PromQL's histogram_quantile (undefined where it gives NaN,
 * or without a +Inf bucket, a finite one, or any observation). q = 0 gives the first non-empty bucket's
 * lower bound. NaN `le`/`count` buckets are ignored; the input is not modified.
 */
export function histogramQuantile(buckets: ReadonlyArray<Bucket>, q: number): number | undefined {
  if (Number.isNaN(q)) return undefined;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const merged = cumulative(buckets);
  return merged && valueAtRank(merged, q * (merged[merged.length - 1] as Bucket).count);
}

/** Below this many observations a quantile is taken by nearest rank (quantileOfFew). */
export const FEW_OBSERVATIONS = 20;

/**
 * The q-quantile of fewer than FEW_OBSERVATIONS observations by nearest rank (ceil(q × n)), bounded by
 * what the buckets and sum allow: one observation is its sum. Otherwise histogramQuantile.
 */
export function quantileOfFew(buckets: ReadonlyArray<Bucket>, q: number, sum: number): number | undefined {
  const merged = cumulative(buckets);
  const n = merged ? (merged[merged.length - 1] as Bucket).count : 0;
  if (!merged || n >= FEW_OBSERVATIONS || !(q >= 0 && q <= 1)) return histogramQuantile(buckets, q);
  // The small epsilon keeps q × n = 9.000000000000002 at rank 9.
  const rank = Math.max(1, Math.ceil(q * n - 1e-9));
  return Math.max(leastAtRank(merged, rank, sum), Math.min(valueAtRank(merged, rank), leastAtRank(merged, n, sum)));
}

/** The least the observation at a rank can be: its bucket's lower bound, or the sum less the others' maxima. */
function leastAtRank(merged: readonly Bucket[], rank: number, sum: number): number {
  const b = bucketOfRank(merged, rank);
  let above = 0; // the observations ranked above, at most
  let below = 0; // those ranked below, at most
  for (let i = 0; i < merged.length; i++) {
    const { le, count } = merged[i] as Bucket;
    const before = i === 0 ? 0 : (merged[i - 1] as Bucket).count;
    const under = Math.min(count, rank - 1) - before;
    const over = count - Math.max(before, rank);
    if (under > 0) below += under * le;
    if (over > 0) above += over * le;
  }
  // Ranks 1..rank are at most this one, so it is at least their mean; and at least the sum less all the others.
  const bySum = Number.isFinite(sum) ? Math.max((sum - above) / rank, sum - above - below) : -Infinity;
  return Math.min((merged[b] as Bucket).le, Math.max(lowerBound(merged, b), bySum));
}

interface Bucket {
  le: number;
  count: number;
}

/** Merged, sorted, monotonic buckets; undefined without a +Inf bucket, a finite one, or any observation. */
function cumulative(buckets: ReadonlyArray<Bucket>): Bucket[] | undefined {
  const sorted = buckets
    .filter((b) => !Number.isNaN(b.le) && !Number.isNaN(b.count))
    .map((b) => ({ le: b.le, count: b.count }))
    .sort((a, b) => a.le - b.le || 0);
  const merged: Bucket[] = [];
  for (const b of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.le === b.le) last.count += b.count;
    else merged.push(b);
  }
  let max = -Infinity;
  for (const b of merged) {
    if (b.count < max) b.count = max;
    else max = b.count;
  }
  const last = merged[merged.length - 1];
  if (!last || last.le !== Infinity || merged.length < 2 || !(last.count > 0)) return undefined;
  return merged;
}

/** The first bucket whose cumulative count reaches the rank (for rank 0, the first holding any). */
function bucketOfRank(merged: readonly Bucket[], rank: number): number {
  let b = 0;
  while (b < merged.length - 1 && !((merged[b] as Bucket).count >= rank && (merged[b] as Bucket).count > 0)) b++;
  return b;
}

/** Where a bucket starts: the previous upper bound; the first starts at 0 (at its bound if that is not positive). */
function lowerBound(merged: readonly Bucket[], b: number): number {
  const le = (merged[b] as Bucket).le;
  return b > 0 ? (merged[b - 1] as Bucket).le : Math.min(0, le);
}

/** The value at a rank, interpolated linearly inside its bucket; in +Inf, the highest finite bound. */
function valueAtRank(merged: readonly Bucket[], rank: number): number {
  const b = bucketOfRank(merged, rank);
  if (b === merged.length - 1) return (merged[b - 1] as Bucket).le;
  const bucket = merged[b] as Bucket;
  if (b === 0 && bucket.le <= 0) return bucket.le;
  const previous = merged[b - 1];
  const start = previous ? previous.le : 0;
  const below = previous ? previous.count : 0;
  return start + (bucket.le - start) * ((rank - below) / (bucket.count - below));
}

// ---- The merge-queue view ----

export type HistogramKey = 'wait' | 'test' | 'timeInQueue';

export interface HistogramSummary {
  /** Observations in the window (from `_count`, else the +Inf bucket). */
  count: number;
  /** Sum of the observations, in seconds (NaN when the service sent no `_sum`). */
  sum: number;
  /** Estimated median in seconds (quantileOfFew); absent when there were no observations. */
  p50?: number;
  /** Estimated 90th percentile in seconds (quantileOfFew); absent when there were no observations. */
  p90?: number;
}

export interface QueueMetrics {
  repo: string;
  branch: string;
  /** "main" or "bisection" (other values are passed through). */
  queueType: string;
  depth?: number;
  awaitingMergeability?: number;
  testingSlotsActive?: number;
  /** PRs that left the queue in the last hour, by conclusion (merged, failed, cancelled, ...). */
  conclusions: Record<string, number>;
  restarts?: number;
  /** Only the histograms the service has series for, for this queue. */
  histograms: Partial<Record<HistogramKey, HistogramSummary>>;
}

type ScalarField = 'depth' | 'awaitingMergeability' | 'testingSlotsActive' | 'restarts';

/** The families the summary reads; anything else is ignored. */
export const MERGE_QUEUE_FAMILIES = {
  scalars: {
    mq_depth_current: 'depth',
    mq_awaiting_mergeability: 'awaitingMergeability',
    mq_testing_slots_active: 'testingSlotsActive',
    mq_pr_restarts_1h_total: 'restarts',
  },
  conclusions: 'mq_pr_conclusions_1h_total',
  histograms: {
    mq_pr_wait_duration_1h_seconds: 'wait',
    mq_pr_test_duration_1h_seconds: 'test',
    mq_pr_time_in_queue_1h_seconds: 'timeInQueue',
  },
} as const satisfies {
  scalars: Record<string, ScalarField>;
  conclusions: string;
  histograms: Record<string, HistogramKey>;
};

const SCALAR_FAMILIES: ReadonlyMap<string, ScalarField> = new Map(Object.entries(MERGE_QUEUE_FAMILIES.scalars));
const HISTOGRAM_FAMILIES: ReadonlyMap<string, HistogramKey> = new Map(Object.entries(MERGE_QUEUE_FAMILIES.histograms));

interface HistogramAcc {
  buckets: Map<number, number>;
  sum?: number;
  count?: number;
}

interface QueueAcc {
  repo: string;
  branch: string;
  queueType: string;
  scalars: Map<ScalarField, number>;
  conclusions: Map<string, number>;
  histograms: Map<HistogramKey, HistogramAcc>;
}

function queueTypeRank(queueType: string): number {
  return queueType === 'main' ? 0 : queueType === 'bisection' ? 1 : 2;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function add<K>(map: Map<K, number>, key: K, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

/**
 * One record per (repo, branch, queue_type), sorted (main, bisection, then others); series missing a
 * label are skipped, others summed as `sum by (repo, branch, queue_type)`.
 */
export function summarizeMergeQueueMetrics(families: readonly Family[]): QueueMetrics[] {
  const queues = new Map<string, QueueAcc>();
  const queueFor = (labels: Record<string, string>): QueueAcc | undefined => {
    const { repo, branch, queue_type: queueType } = labels;
    if (repo === undefined || branch === undefined || queueType === undefined) return undefined;
    const key = JSON.stringify([repo, branch, queueType]);
    let acc = queues.get(key);
    if (!acc) {
      acc = { repo, branch, queueType, scalars: new Map(), conclusions: new Map(), histograms: new Map() };
      queues.set(key, acc);
    }
    return acc;
  };

  for (const family of families) {
    const scalar = SCALAR_FAMILIES.get(family.name);
    const isConclusions = family.name === MERGE_QUEUE_FAMILIES.conclusions;
    if (scalar !== undefined || isConclusions) {
      if (family.type === 'histogram' || family.type === 'summary') continue;
      for (const sample of family.samples) {
        if (sample.name !== family.name) continue;
        const acc = queueFor(sample.labels);
        if (!acc) continue;
        if (scalar !== undefined) {
          add(acc.scalars, scalar, sample.value);
        } else {
          const conclusion = sample.labels.conclusion;
          if (conclusion !== undefined) {
            add(acc.conclusions, conclusion, sample.value);
          }
        }
      }
      continue;
    }

    const histogram = HISTOGRAM_FAMILIES.get(family.name);
    if (histogram === undefined || family.type !== 'histogram') continue;
    for (const sample of family.samples) {
      const suffix = sample.name.startsWith(family.name) ? sample.name.slice(family.name.length) : undefined;
      if (suffix !== '_bucket' && suffix !== '_sum' && suffix !== '_count') continue;
      let le: number | undefined;
      if (suffix === '_bucket') {
        const raw = sample.labels.le;
        le = raw === undefined ? undefined : parseFloatToken(raw);
        if (le === undefined || Number.isNaN(le)) continue;
      }
      const acc = queueFor(sample.labels);
      if (!acc) continue;
      let h = acc.histograms.get(histogram);
      if (!h) {
        h = { buckets: new Map() };
        acc.histograms.set(histogram, h);
      }
      if (le !== undefined) add(h.buckets, le, sample.value);
      else if (suffix === '_sum') h.sum = (h.sum ?? 0) + sample.value;
      else h.count = (h.count ?? 0) + sample.value;
    }
  }

  const result: QueueMetrics[] = [];
  for (const acc of queues.values()) {
    const record: QueueMetrics = {
      repo: acc.repo,
      branch: acc.branch,
      queueType: acc.queueType,
      conclusions: Object.fromEntries(acc.conclusions),
      histograms: {},
    };
    for (const [field, value] of acc.scalars) record[field] = value;
    for (const [key, h] of acc.histograms) {
      const buckets = [...h.buckets].map(([le, count]) => ({ le, count }));
      const summary: HistogramSummary = {
        count: h.count ?? h.buckets.get(Infinity) ?? 0,
        sum: h.sum ?? NaN,
      };
      const p50 = quantileOfFew(buckets, 0.5, summary.sum);
      const p90 = quantileOfFew(buckets, 0.9, summary.sum);
      if (p50 !== undefined) summary.p50 = p50;
      if (p90 !== undefined) summary.p90 = p90;
      record.histograms[key] = summary;
    }
    result.push(record);
  }
  return result.sort(
    (a, b) =>
      compareStrings(a.repo, b.repo) ||
      compareStrings(a.branch, b.branch) ||
      queueTypeRank(a.queueType) - queueTypeRank(b.queueType) ||
      compareStrings(a.queueType, b.queueType),
  );
}
