/**
 * `mq queue simulate` end to end through the built binary: bad input is refused before anything is
 * read or run, the JSON document has the documented shape, the output is the same byte for byte
 * for the same seed (in one thread or across workers), and the baseline comes from the queue when
 * one is configured.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv, runCli } from '../../../helpers/run-cli.js';
import { SMALL_SIMULATION as SMALL } from '../../../helpers/simulate.js';

/** SMALL with one flag's value replaced (a one-value flag given twice is refused). */
const smallWith = (flag: string, value: string) => SMALL.map((a, i) => (SMALL[i - 1] === flag ? value : a));
const sim = (args: string[], env = baseEnv()) => runCli(['queue', 'simulate', ...args], { env, timeoutMs: 60_000 });

const fake = useFakeServer();
beforeAll(async () => {
  fake.on('POST /getQueue', {
    status: 200,
    body: {
      state: 'RUNNING',
      branch: 'main',
      concurrency: 3,
      mode: 'SINGLE',
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 0,
      pendingFailureDepth: 1,
      testingTimeoutMinutes: 120,
      canOptimisticallyMerge: false,
      bisectionConcurrency: 3,
    },
  });
});

describe('mq queue simulate: bad input', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['missing --arrivals', SMALL.filter((_, i) => i > 1), /--arrivals is required/],
    ['rate syntax', ['--arrivals', 'lots', ...SMALL.slice(2)], /--arrivals: "lots" must be a rate/],
    [
      'failure rate above 100%',
      smallWith('--failure-rate', '150%'),
      /--failure-rate: "150%" must be a percentage from 0% to 100%/,
    ],
    ['a bare number as a percentage', smallWith('--flake-rate', '2'), /--flake-rate: "2" must be a percentage/],
    ['one run', smallWith('--runs', '1'), /--runs: "1" must be an integer from 2 to 1000/],
    ['test time', smallWith('--test-time', 'soon'), /--test-time: "soon" is not a duration/],
    ['unknown setting', [...SMALL, '--compare', 'speed=11'], /--compare: unknown setting "speed"/],
    ['bad value', [...SMALL, '--compare', 'concurrency=0'], /--compare: concurrency=0: must be an integer from 1/],
    [
      'concurrency past the cap',
      [...SMALL, '--compare', 'concurrency=2000'],
      /--compare: concurrency=2000: must be an integer from 1 to 500$/,
    ],
    ['not simulated', [...SMALL, '--compare', 'merge-method=squash'], /--compare: merge-method is not simulated/],
    ['not name=value', [...SMALL, '--compare', 'batch'], /--compare: "batch" is not name=value/],
    ['baseline source', [...SMALL, '--baseline', 'yesterday'], /--baseline: "yesterday" is not one of queue, defaults/],
  ];
  for (const [name, args, message] of cases) {
    it(`${name}: exit 2, one line naming the flag, nothing sent`, async () => {
      const before = fake.requests.length;
      const r = await sim(args, baseEnv(fake.url));
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      const first = r.stderr.split('\n')[0] as string;
      expect(first).toMatch(/^mq: usage: /);
      expect(first).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(fake.requests.length).toBe(before);
    });
  }
});

describe('mq queue simulate: output', () => {
  it('JSON: inputs and one result per row with mean/lo/hi figures', async () => {
    const r = await sim([...SMALL, '--compare', 'concurrency=2', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/baseline: the service defaults/);
    const doc = JSON.parse(r.stdout);
    expect(doc.inputs).toMatchObject({
      arrivalsPerHour: 6,
      testMinutes: 30,
      failureRate: 0.05,
      flakeRate: 0.02,
      durationHours: 24,
      runs: 3,
      seed: 1,
      baseline: 'defaults',
    });
    expect(doc.results.map((x: { label: string }) => x.label)).toEqual(['baseline', 'concurrency=2']);
    expect(doc.results[0].settings.concurrency).toBe(1);
    expect(doc.results[1].settings.concurrency).toBe(2);
    for (const row of doc.results) {
      for (const e of [
        row.mergedPerHour,
        row.timeToMerge.p50,
        row.timeToMerge.p95,
        row.runsPerMergedPr,
        row.testMinutesPerMergedPr,
        row.meanDepth,
        row.failedPerDay.real,
        row.failedPerDay.flaky,
      ]) {
        expect(Object.keys(e).sort()).toEqual(['hi', 'lo', 'mean']);
        expect(e.lo).toBeLessThanOrEqual(e.mean);
        expect(e.hi).toBeGreaterThanOrEqual(e.mean);
      }
      expect(row.timeToMerge.p95.mean).toBeGreaterThanOrEqual(row.timeToMerge.p50.mean);
    }
    expect(typeof doc.recommendation.text).toBe('string');
  });

  it('the same seed gives the same output byte for byte, in one thread or across worker threads; another seed differs', async () => {
    const args = [...SMALL, '--compare', 'concurrency=2,batch=2', '--json'];
    const a = await sim([...args, '--seed', '42', '--jobs', '1']);
    const b = await sim([...args, '--seed', '42', '--jobs', '2']);
    const c = await sim([...args, '--seed', '43', '--jobs', '2']);
    expect(a.exitCode).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(c.stdout).not.toBe(a.stdout);
  });

  it('two identical settings rows give identical figures', async () => {
    const r = await sim([...SMALL, '--compare', 'concurrency=1', '--json']);
    const doc = JSON.parse(r.stdout);
    const { label: _a, ...first } = doc.results[0];
    const { label: _b, ...second } = doc.results[1];
    expect(second).toEqual(first);
  });

  it('terminal and markdown: the table marks the best value of each column and ends with the recommendation', async () => {
    const r = await sim([...SMALL, '--compare', 'concurrency=4', '-o', 'markdown']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /\| Settings \| Merged\/h \| TTM p50 \| TTM p95 \| Runs\/PR \| Test min\/PR \| Depth \| Failed\/d real \| Failed\/d flaky \|/,
    );
    expect(r.stdout).toMatch(/\| concurrency=4 \|/);
    expect(r.stdout).toContain(' *');
    expect(r.stdout).toMatch(/\*\*Recommended: .*velocity.*\*\*|\*\*Recommended: .*only row/);
  });

  it('the baseline is the configured queue (getQueue) when one is configured', async () => {
    const before = fake.requests.length;
    const r = await sim([...SMALL, '--compare', 'concurrency=6', '--json'], baseEnv(fake.url));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/baseline: the current settings of the configured queue/);
    expect(fake.requests.slice(before).map((q) => q.path)).toEqual(['/getQueue']);
    const doc = JSON.parse(r.stdout);
    expect(doc.inputs.baseline).toBe('queue');
    expect(doc.results[0].settings).toMatchObject({
      concurrency: 3,
      batch: true,
      batchingMinSize: 2,
      pendingFailureDepth: 1,
      testingTimeoutMinutes: 120,
      bisectionConcurrency: null,
    });
    expect(doc.results[1].settings).toMatchObject({ concurrency: 6, batch: true, batchingMinSize: 2 });
  });

  it('--baseline defaults does not read the queue', async () => {
    const before = fake.requests.length;
    const r = await sim([...SMALL, '--baseline', 'defaults', '--json'], baseEnv(fake.url));
    expect(r.exitCode).toBe(0);
    expect(fake.requests.length).toBe(before);
    expect(JSON.parse(r.stdout).inputs.baseline).toBe('defaults');
  });

  it('the help says what the model assumes and what it does not model', async () => {
    const r = await runCli(['queue', 'simulate', '--help']);
    expect(r.stdout).toMatch(/independently/);
    expect(r.stdout).toMatch(/no logical conflicts between PRs beyond impacted-target lanes/);
    expect(r.stdout).toMatch(/CI capacity is unlimited unless --ci-capacity N/);
    expect(r.stdout).toMatch(/Not modelled:/);
  });
});
