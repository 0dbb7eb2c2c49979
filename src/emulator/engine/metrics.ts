// The numbers behind getMergeQueueMetrics: rolling one-hour windows, kept as timestamped samples in
// deques (head index, compacted now and then) so pruning is amortised O(1).
import type { MetricSeries, QueueRecord, QueueSamples } from './types.js';

export const WINDOW_MS = 60 * 60 * 1000;

export function emptySamples(): QueueSamples {
  const s = <T>(): MetricSeries<T> => ({ head: 0, items: [] });
  return { conclusions: s(), restarts: s(), wait: s(), test: s(), inQueue: s() };
}

function timeOf(item: number | [number, unknown]): number {
  return typeof item === 'number' ? item : item[0];
}

function prune<T extends number | [number, unknown]>(series: MetricSeries<T>, cutoff: number): void {
  while (series.head < series.items.length && timeOf(series.items[series.head] as T) < cutoff) series.head++;
  if (series.head > 1024 && series.head * 2 > series.items.length) {
    series.items = series.items.slice(series.head);
    series.head = 0;
  }
}

export function record<T extends number | [number, unknown]>(series: MetricSeries<T>, item: T, now: number): void {
  series.items.push(item);
  prune(series, now - WINDOW_MS);
}

function live<T extends number | [number, unknown]>(series: MetricSeries<T>, now: number): T[] {
  prune(series, now - WINDOW_MS);
  return series.items.slice(series.head).filter((i) => timeOf(i) <= now);
}

export interface QueueMetricsSnapshot {
  repo: { host: string; owner: string; name: string };
  branch: string;
  /** Admitted live PRs (pending, testing, tests_passed, pending_failure); NOT_READY excluded. */
  depth: number;
  awaitingMergeability: number;
  testingSlots: number;
  conclusions: { merged: number; failed: number; cancelled: number };
  restarts: number;
  waitSeconds: number[];
  testSeconds: number[];
  timeInQueueSeconds: number[];
  /** queue_type="bisection": depth, testing, culprits and restarts in the last hour, once it batches or bisected. */
  bisection?: { depth: number; testingSlots: number; failed: number; restarts: number };
}

export function snapshotQueue(q: QueueRecord, now: number): QueueMetricsSnapshot {
  const conclusions = { merged: 0, failed: 0, cancelled: 0 };
  for (const [, c] of live(q.samples.conclusions, now)) conclusions[c]++;
  const secs = (series: MetricSeries<[number, number]>) => live(series, now).map(([, s]) => s);
  let bisecting = 0;
  let bisectingTests = 0;
  for (const bis of Object.values(q.bisections)) {
    for (const nd of bis.nodes) {
      bisecting += nd.prs.length;
      if (nd.state === 'testing') bisectingTests += nd.prs.length;
    }
  }
  const bisection =
    q.everBisected || q.config.batch
      ? {
          depth: bisecting,
          testingSlots: bisectingTests,
          failed: live(q.bisectionSamples.conclusions, now).length,
          restarts: live(q.bisectionSamples.restarts, now).length,
        }
      : undefined;
  return {
    repo: { ...q.repo },
    branch: q.branch,
    depth: q.counts.admitted - bisecting,
    awaitingMergeability: q.counts.notReady,
    testingSlots: q.counts.testing - bisectingTests,
    conclusions,
    restarts: live(q.samples.restarts, now).length,
    waitSeconds: secs(q.samples.wait),
    testSeconds: secs(q.samples.test),
    timeInQueueSeconds: secs(q.samples.inQueue),
    ...(bisection ? { bisection } : {}),
  };
}
