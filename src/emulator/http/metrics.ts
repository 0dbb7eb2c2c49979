/**
 * getMergeQueueMetrics: the engine's per-queue snapshot rendered as Prometheus text exposition by
 * prom-client (trunk-wire §2 names, labels and buckets). A fresh Registry per scrape keeps the
 * output a pure function of the snapshot; prom-client is imported only when a scrape happens so
 * the emulator (and the CLI bundle) does not pay for it at start-up.
 */
import type { QueueMetricsSnapshot } from '../engine/index.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const DURATION_BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200];

export async function renderMetrics(snapshots: QueueMetricsSnapshot[]): Promise<string> {
  // prom-client is CommonJS; through the bundle its exports sit on `default`.
  const promClient = (await import('prom-client')) as typeof import('prom-client') & {
    default?: typeof import('prom-client');
  };
  const { Registry, Gauge, Histogram } = promClient.default ?? promClient;
  const registers = [new Registry()];
  // Trunk labels a series by owner/name only; when a scrape holds queues of more than one host,
  // every series also carries `repo_host`, so github.com/a/b and ghe.example/a/b do not collide.
  const multiHost = new Set(snapshots.map((s) => s.repo.host)).size > 1;
  const labelNames = ['repo', 'branch', 'queue_type', 'repo_host'] as const;
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers });
  const depth = gauge('mq_depth_current', 'PRs currently in the queue');
  const awaiting = gauge('mq_awaiting_mergeability', 'Number of PRs currently awaiting mergeability');
  const slots = gauge('mq_testing_slots_active', 'PRs currently in TESTING state');
  const conclusions = new Gauge({
    name: 'mq_pr_conclusions_1h_total',
    help: 'PRs exiting the queue in last hour',
    labelNames: [...labelNames, 'conclusion'],
    registers,
  });
  const restarts = gauge('mq_pr_restarts_1h_total', 'PR restarts in last hour');
  const histogram = (name: string, help: string) =>
    new Histogram({ name, help, labelNames, buckets: DURATION_BUCKETS, registers });
  const wait = histogram(
    'mq_pr_wait_duration_1h_seconds',
    'Time PRs waited in the queue before testing started, last hour',
  );
  const test = histogram('mq_pr_test_duration_1h_seconds', 'Time PRs spent testing, last hour');
  const inQueue = histogram('mq_pr_time_in_queue_1h_seconds', 'Time from entering to leaving the queue, last hour');

  for (const s of snapshots) {
    const labels = {
      repo: `${s.repo.owner}/${s.repo.name}`,
      branch: s.branch,
      queue_type: 'main',
      ...(multiHost ? { repo_host: s.repo.host } : {}),
    };
    depth.set(labels, s.depth);
    awaiting.set(labels, s.awaitingMergeability);
    slots.set(labels, s.testingSlots);
    for (const c of ['merged', 'failed', 'cancelled'] as const)
      conclusions.set({ ...labels, conclusion: c }, s.conclusions[c]);
    restarts.set(labels, s.restarts);
    for (const [h, values] of [
      [wait, s.waitSeconds],
      [test, s.testSeconds],
      [inQueue, s.timeInQueueSeconds],
    ] as const) {
      h.zero(labels);
      for (const v of values) h.observe(labels, v);
    }
    if (s.bisection) {
      // Bisection runs report under their own queue type; PR durations stay on the main series.
      const b = { ...labels, queue_type: 'bisection' };
      depth.set(b, s.bisection.depth);
      awaiting.set(b, 0);
      slots.set(b, s.bisection.testingSlots);
      for (const c of ['merged', 'failed', 'cancelled'] as const)
        conclusions.set({ ...b, conclusion: c }, c === 'failed' ? s.bisection.failed : 0);
      restarts.set(b, s.bisection.restarts);
    }
  }
  return registers[0]!.metrics();
}
