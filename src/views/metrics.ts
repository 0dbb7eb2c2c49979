/** How the per-queue merge queue metrics read: one block per queue, or long-format rows for scripts. */
import type { HistogramKey, HistogramSummary, QueueMetrics } from '../api/merge-queue-metrics.js';
import { plainColumns } from '../output/plain.js';
import type { Field, Row } from '../output/render.js';
import { formatDuration } from '../util/duration.js';

const HISTOGRAMS: ReadonlyArray<{ key: HistogramKey; label: string }> = [
  { key: 'wait', label: 'Wait before testing' },
  { key: 'test', label: 'Time testing' },
  { key: 'timeInQueue', label: 'Time in queue' },
];

const CONCLUSION_ORDER = ['merged', 'failed', 'cancelled'];

const num = (v: number | undefined): string => (v === undefined ? '—' : String(v));
const seconds = (v: number): string => (v < 1 ? `${Math.round(v * 1000)}ms` : formatDuration(v * 1000));

export function queueTitle(q: QueueMetrics): string {
  return `${q.repo} · ${q.branch}${q.queueType === 'main' ? '' : ` (${q.queueType} queue)`}`;
}

function conclusionKeys(q: QueueMetrics): string[] {
  const known = CONCLUSION_ORDER.filter((c) => c in q.conclusions);
  const others = Object.keys(q.conclusions)
    .filter((c) => !CONCLUSION_ORDER.includes(c))
    .sort();
  return [...known, ...others];
}

export function histogramText(h: HistogramSummary | undefined): string {
  if (!h) return '—';
  if (h.count === 0) return 'no PRs';
  const parts = [`${h.count} PR${h.count === 1 ? '' : 's'}`];
  if (h.p50 !== undefined) parts.push(`p50 ${seconds(h.p50)}`);
  if (h.p90 !== undefined) parts.push(`p90 ${seconds(h.p90)}`);
  return parts.join(' · ');
}

/** One block per queue; the hour-long windows are the service's (rolling gauges, not counters). */
export function metricsFields(q: QueueMetrics): Field[] {
  const conclusions = conclusionKeys(q)
    .map((c) => `${c} ${q.conclusions[c]}`)
    .join(' · ');
  const failed = (q.conclusions.failed ?? 0) > 0;
  const fields: Field[] = [
    { key: 'depth', label: 'In the queue', value: num(q.depth) },
    { key: 'testing_slots_active', label: 'Testing now', value: num(q.testingSlotsActive) },
    { key: 'awaiting_mergeability', label: 'Awaiting mergeability', value: num(q.awaitingMergeability) },
    {
      key: 'conclusions_1h',
      label: 'Left, last hour',
      value: conclusions || '—',
      paint: failed ? (style, text) => text.replace(/failed \d+/, (m) => style.red(m)) : undefined,
    },
    { key: 'restarts_1h', label: 'Restarts, last hour', value: num(q.restarts) },
  ];
  for (const h of HISTOGRAMS)
    fields.push({ key: h.key, label: `${h.label}, last hour`, value: histogramText(q.histograms[h.key]) });
  return fields;
}

/** A figure without float noise: ≤ 3 decimals (0.1 + 0.2 reads 0.3); NaN/±Inf kept (JSON null). */
export function tidy(n: number): number {
  if (!Number.isFinite(n)) return n;
  const r = Math.round(n * 1000) / 1000;
  return Object.is(r, -0) ? 0 : r;
}

function tidyHistogram(h: HistogramSummary): HistogramSummary {
  return {
    count: tidy(h.count),
    sum: tidy(h.sum),
    ...(h.p50 !== undefined ? { p50: tidy(h.p50) } : {}),
    ...(h.p90 !== undefined ? { p90: tidy(h.p90) } : {}),
  };
}

/** The queue's figures rounded as `tidy` does, for the JSON document. */
export function tidyQueue(q: QueueMetrics): QueueMetrics {
  const opt = (n: number | undefined) => (n === undefined ? undefined : tidy(n));
  const histograms: QueueMetrics['histograms'] = {};
  for (const [k, h] of Object.entries(q.histograms) as Array<[HistogramKey, HistogramSummary]>)
    histograms[k] = tidyHistogram(h);
  const out: QueueMetrics = {
    ...q,
    conclusions: Object.fromEntries(Object.entries(q.conclusions).map(([k, n]) => [k, tidy(n)])),
    histograms,
  };
  for (const k of ['depth', 'awaitingMergeability', 'testingSlotsActive', 'restarts'] as const)
    if (q[k] !== undefined) out[k] = opt(q[k]);
  return out;
}

/** `mq metrics -o plain`: one line per metric; repo_host is empty when every repository was asked for. */
export const METRICS_PLAIN = plainColumns('one line per metric', [
  'repo_host',
  'repo',
  'branch',
  'queue_type',
  'metric',
  'value',
]);

/** One metric a line, durations in seconds, values as `tidy` rounds them. */
export function metricsRows(q: QueueMetrics, repoHost: string | null = null): Row[] {
  const rows: Row[] = [];
  const add = (metric: string, v: number | undefined) => {
    if (v !== undefined && !Number.isNaN(v)) {
      rows.push(
        METRICS_PLAIN.row({
          repo_host: repoHost ?? '',
          repo: q.repo,
          branch: q.branch,
          queue_type: q.queueType,
          metric,
          value: String(tidy(v)),
        }),
      );
    }
  };
  add('depth', q.depth);
  add('testing_slots_active', q.testingSlotsActive);
  add('awaiting_mergeability', q.awaitingMergeability);
  for (const c of conclusionKeys(q)) add(`conclusions_1h.${c}`, q.conclusions[c]);
  add('restarts_1h', q.restarts);
  for (const h of HISTOGRAMS) {
    const s = q.histograms[h.key];
    if (!s) continue;
    add(`${h.key}.count`, s.count);
    add(`${h.key}.sum_seconds`, s.sum);
    add(`${h.key}.p50_seconds`, s.p50);
    add(`${h.key}.p90_seconds`, s.p90);
  }
  return rows;
}
