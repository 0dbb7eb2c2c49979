import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv } from '../../helpers/run-cli.js';
import { runMq } from '../../helpers/in-process.js';

const L = 'repo="acme/widgets",branch="main",queue_type="main"';
const bucket = (name: string, counts: number[]) =>
  ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf']
    .map((le, i) => `${name}_bucket{${L},le="${le}"} ${counts[i]}`)
    .join('\n');

// Written for these tests in the service's format: gauges, a conclusion label, and histograms.
const EXPOSITION = `# HELP mq_depth_current Queue depth
# TYPE mq_depth_current gauge
mq_depth_current{${L}} 6
mq_depth_current{repo="acme/widgets",branch="release",queue_type="main"} 1
# TYPE mq_awaiting_mergeability gauge
mq_awaiting_mergeability{${L}} 2
# TYPE mq_testing_slots_active gauge
mq_testing_slots_active{${L}} 3
# TYPE mq_pr_conclusions_1h_total gauge
mq_pr_conclusions_1h_total{${L},conclusion="merged"} 14
mq_pr_conclusions_1h_total{${L},conclusion="failed"} 2
mq_pr_conclusions_1h_total{${L},conclusion="cancelled"} 1
# TYPE mq_pr_restarts_1h_total gauge
mq_pr_restarts_1h_total{${L}} 4
# TYPE mq_pr_wait_duration_1h_seconds histogram
${bucket('mq_pr_wait_duration_1h_seconds', [2, 10, 10, 10, 10, 10, 10, 10, 10])}
mq_pr_wait_duration_1h_seconds_sum{${L}} 1500
mq_pr_wait_duration_1h_seconds_count{${L}} 10
# TYPE mq_pr_test_duration_1h_seconds histogram
${bucket('mq_pr_test_duration_1h_seconds', [0, 0, 4, 8, 10, 10, 10, 10, 10])}
mq_pr_test_duration_1h_seconds_sum{${L}} 7000
mq_pr_test_duration_1h_seconds_count{${L}} 10
`;

const fake = useFakeServer();
beforeEach(() => {
  fake.on('GET /getMergeQueueMetrics', {
    status: 200,
    body: EXPOSITION,
    headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
  });
});
const env = (extra: Record<string, string | undefined> = {}) => ({ ...baseEnv(fake.url), ...extra });

describe('mq metrics: the query', () => {
  const cases: Array<{
    name: string;
    args: string[];
    env?: Record<string, string | undefined>;
    query: Record<string, string>;
  }> = [
    { name: 'MQ_REPO with a host', args: ['metrics'], query: { repo: 'acme/widgets', repoHost: 'github.com' } },
    {
      name: '--repo with a host',
      args: ['metrics', '--repo', 'ghe.example.com/Org/Repo'],
      query: { repo: 'Org/Repo', repoHost: 'ghe.example.com' },
    },
    { name: 'no repo: every repository', args: ['metrics'], env: { MQ_REPO: undefined }, query: {} },
    { name: '--all-repos overrides MQ_REPO', args: ['metrics', '--all-repos'], query: {} },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await runMq(c.args, { env: env(c.env) });
      expect(r.exitCode).toBe(0);
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]?.method).toBe('GET');
      expect(fake.requests[0]?.path).toBe('/getMergeQueueMetrics');
      expect(fake.requests[0]?.query).toEqual(c.query);
    });
  }

  it('--repo without a host is on github.com, as for every other command (the profile repo does not change it)', async () => {
    const e = env({ MQ_REPO: undefined });
    const set = await runMq(['profile', 'set', 'repo', 'ghe.example.com/acme/widgets'], { env: e });
    expect(set.exitCode).toBe(0);
    const r = await runMq(['metrics', '--repo', 'acme/tools'], { env: e });
    expect(r.exitCode).toBe(0);
    expect(fake.requests[0]?.query).toEqual({ repo: 'acme/tools', repoHost: 'github.com' });
  });

  it('MQ_REPO without a host is on github.com too', async () => {
    const r = await runMq(['metrics', '--json'], { env: env({ MQ_REPO: 'acme/widgets' }) });
    expect(r.exitCode).toBe(0);
    expect(fake.requests[0]?.query).toEqual({ repo: 'acme/widgets', repoHost: 'github.com' });
    expect(JSON.parse(r.stdout).repoHost).toBe('github.com');
  });

  it('a malformed --repo: exit 2 naming the flag, nothing sent', async () => {
    const r = await runMq(['metrics', '--repo', 'widgets'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('mq: usage: --repo: "widgets" is not a repository');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('mq metrics: output', () => {
  it('piped: the exposition passes through unchanged', async () => {
    const r = await runMq(['metrics'], { env: env() });
    expect(r.stdout).toBe(EXPOSITION);
    const raw = await runMq(['metrics', '-o', 'raw'], { env: env() });
    expect(raw.stdout).toBe(EXPOSITION);
  });

  it('-o table: per queue, gauges, conclusions, and p50/p90 from the buckets', async () => {
    const r = await runMq(['metrics', '-o', 'table'], { env: env() });
    expect(r.exitCode).toBe(0);
    const main = r.stdout.split('acme/widgets · release')[0] ?? '';
    expect(main).toContain('acme/widgets · main');
    expect(main).toMatch(/In the queue\s+6/);
    expect(main).toMatch(/Testing now\s+3/);
    expect(main).toMatch(/Awaiting mergeability\s+2/);
    expect(main).toMatch(/Left, last hour\s+merged 14 · failed 2 · cancelled 1/);
    expect(main).toMatch(/Restarts, last hour\s+4/);
    // Under 20 PRs, by nearest rank, never past the least the largest can be (its bucket's start, the mean).
    // wait: 2 of 10 under 60s, 8 more by 300s: p50 = 60 + 240 * 3/8 = 150s, p90 = the mean, 150s (not 270s)
    expect(main).toMatch(/Wait before testing, last hour\s+10 PRs · p50 2m 30s · p90 2m 30s/);
    // test: p50 = 600 + 300 * 1/4 = 675s, p90 = 900s, where the largest's bucket starts (not 1350s)
    expect(main).toMatch(/Time testing, last hour\s+10 PRs · p50 11m 15s · p90 15m/);
    expect(main).toMatch(/Time in queue, last hour\s+—/);
    expect(r.stdout).toMatch(/acme\/widgets · release\n[^\n]*In the queue\s+1/);
  });

  it('--json: the parsed queues', async () => {
    const r = await runMq(['metrics', '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc.repo).toBe('acme/widgets');
    expect(doc.repoHost).toBe('github.com');
    expect(doc.queues).toHaveLength(2);
    expect(doc.queues[0]).toMatchObject({
      repoHost: 'github.com',
      repo: 'acme/widgets',
      branch: 'main',
      queueType: 'main',
      depth: 6,
      testingSlotsActive: 3,
      conclusions: { merged: 14, failed: 2, cancelled: 1 },
      restarts: 4,
      histograms: { wait: { count: 10, sum: 1500, p50: 150, p90: 150 } },
    });
  });

  it('-o plain: one metric per line for awk', async () => {
    const r = await runMq(['metrics', '-o', 'plain'], { env: env() });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('github.com\tacme/widgets\tmain\tmain\tdepth\t6');
    expect(lines).toContain('github.com\tacme/widgets\tmain\tmain\tconclusions_1h.failed\t2');
    expect(lines).toContain('github.com\tacme/widgets\tmain\tmain\twait.p90_seconds\t150');
    expect(lines).toContain('github.com\tacme/widgets\trelease\tmain\tdepth\t1');
  });

  it('--json has no float noise: interpolated quantiles and sums are rounded (0.1 + 0.2 reads 0.3)', async () => {
    const Q = 'repo="acme/widgets",branch="main",queue_type="main"';
    const noisy = [
      '# TYPE mq_depth_current gauge',
      `mq_depth_current{${Q}} 0.30000000000000004`,
      '# TYPE mq_pr_wait_duration_1h_seconds histogram',
      `mq_pr_wait_duration_1h_seconds_bucket{${Q},le="0.2"} 0`,
      `mq_pr_wait_duration_1h_seconds_bucket{${Q},le="0.7"} 10`,
      `mq_pr_wait_duration_1h_seconds_bucket{${Q},le="+Inf"} 10`,
      `mq_pr_wait_duration_1h_seconds_sum{${Q}} 5.000000000000001`,
      `mq_pr_wait_duration_1h_seconds_count{${Q}} 10`,
      '',
    ].join('\n');
    fake.on('GET /getMergeQueueMetrics', { status: 200, body: noisy });
    const r = await runMq(['metrics', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    // Unrounded, p50 = 0.2 + (0.7 - 0.2) * 0.5 = 0.44999999999999996; p90 is the mean, 0.5000000000000001.
    expect(0.2 + (0.7 - 0.2) * 0.5).toBe(0.44999999999999996);
    expect(r.stdout).not.toMatch(/\d\.\d{5,}/);
    const q = JSON.parse(r.stdout).queues[0];
    expect(q).toMatchObject({
      repoHost: 'github.com',
      depth: 0.3,
      histograms: { wait: { count: 10, sum: 5, p50: 0.45, p90: 0.5 } },
    });
    const plain = await runMq(['metrics', '-o', 'plain'], { env: env() });
    expect(plain.stdout).toContain('github.com\tacme/widgets\tmain\tmain\twait.p50_seconds\t0.45\n');
  });

  it('every repository: the series name no host, so repoHost is null and the plain column empty', async () => {
    const r = await runMq(['metrics', '--all-repos', '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc.repoHost).toBeNull();
    expect(doc.queues[0].repoHost).toBeNull();
    const plain = await runMq(['metrics', '--all-repos', '-o', 'plain'], { env: env() });
    expect(plain.stdout.split('\n')[0]).toBe('\tacme/widgets\tmain\tmain\tdepth\t6');
  });

  it('an exposition that does not parse is shown raw with a warning, never dropped', async () => {
    const broken = 'mq_depth_current{repo="acme/widgets" 6\n';
    fake.on('GET /getMergeQueueMetrics', { status: 200, body: broken });
    const r = await runMq(['metrics', '-o', 'table'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(broken);
    expect(r.stderr).toMatch(
      /mq: warning: the metrics could not be parsed \(line 1, column \d+: .+\); showing them as the service sent them/,
    );
    const asJson = await runMq(['metrics', '--json'], { env: env() });
    const doc = JSON.parse(asJson.stdout);
    expect(doc.parsed).toBe(false);
    expect(doc.raw).toBe(broken);
  });

  it('HTTP errors keep their exit codes', async () => {
    fake.on('GET /getMergeQueueMetrics', { status: 401, body: 'invalid token' });
    const r = await runMq(['metrics'], { env: env() });
    expect(r.exitCode).toBe(4);
  });
});
