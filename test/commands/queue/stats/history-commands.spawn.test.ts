/** `mq queue stats` against the recording fake scripted with the v1 history shapes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv, runCli, tempDir } from '../../../helpers/run-cli.js';

const fake = useFakeServer();
const env = () => baseEnv(fake.url);
const sent = (path: string) => fake.requests.filter((r) => r.path === path);

/** A window of 4 hours: 3 merged, 1 failed; 150 testing results in two pages. */
describe('mq queue stats', () => {
  const since = '2026-11-20T08:00:00.000Z';
  const until = '2026-11-20T12:00:00.000Z';
  const at = (min: number) => new Date(Date.parse(since) + min * 60_000).toISOString();
  const prs = [
    { prNumber: 1, state: 'merged', submittedAt: at(0), stateChangedAt: at(30) },
    { prNumber: 2, state: 'merged', submittedAt: at(60), stateChangedAt: at(80) },
    { prNumber: 3, state: 'merged', submittedAt: at(100), stateChangedAt: at(200) },
    { prNumber: 4, state: 'failed', submittedAt: at(100), stateChangedAt: at(120) },
    { prNumber: 9, state: 'merged', submittedAt: at(-100), stateChangedAt: at(-50) }, // outside the window
  ];
  const result = (i: number) => ({
    prNumber: 100 + i,
    testRunId: `bulk-${i}`,
    createdAt: at(i),
    completedAt: at(i + 10),
    testRunStatus: 'succeeded',
    cycleConclusion: 'merged',
  });
  const page1 = {
    testingResults: [
      {
        prNumber: 1,
        testRunId: 'r1',
        createdAt: at(10),
        completedAt: at(20),
        testRunStatus: 'succeeded',
        cycleConclusion: 'merged',
      },
      {
        prNumber: 4,
        testRunId: 'r4',
        createdAt: at(101),
        completedAt: at(111),
        testRunStatus: 'failed',
        cycleConclusion: 'failed',
      },
      ...Array.from({ length: 98 }, (_, i) => result(i)),
    ],
    totalItems: 150,
  };
  const page2 = { testingResults: Array.from({ length: 50 }, (_, i) => result(98 + i)), totalItems: 150 };

  beforeEach(() => {
    fake.on('POST /getQueue', {
      status: 200,
      body: { state: 'running', branch: 'main', concurrency: 3, batch: false },
    });
    fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: prs } });
    fake.on('POST /listMergeQueueTestingResults', { status: 200, body: page1 }, { status: 200, body: page2 });
  });

  it('pages through the testing results and reports the window as JSON', async () => {
    const r = await runCli(['queue', 'stats', '--since', since, '--until', until, '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const pages = sent('/listMergeQueueTestingResults').map(
      (q) => q.body as { offset: number; take: number; since: string; until: string },
    );
    expect(pages.map((p) => [p.offset, p.take])).toEqual([
      [0, 100],
      [100, 100],
    ]);
    expect(pages[0]).toMatchObject({ since, until });
    expect(
      sent('/listPullRequests')
        .map((q) => (q.body as { state: string }).state)
        .sort(),
    ).toEqual(['cancelled', 'failed', 'merged']);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(
      [
        'window',
        'prs',
        'mergedPerHour',
        'timeToMerge',
        'waiting',
        'testing',
        'runs',
        'testMinutesPerMergedPr',
        'flakyShare',
        'ceilingPerHour',
      ].sort(),
    );
    expect(doc.window).toEqual({ since, until });
    expect(doc.prs).toEqual({ merged: 3, failed: 1, cancelled: 0 });
    expect(doc.mergedPerHour).toBe(0.75);
    expect(doc.timeToMerge).toEqual({ p50: 30 * 60, p90: 100 * 60, p95: 100 * 60 });
    expect(doc.runs).toMatchObject({ total: 150, failed: 1 });
    expect(doc.flakyShare).toBe(0);
    expect(doc.ceilingPerHour).toBe(18); // 3 runs at a time x 60 / 10 minutes
  });

  it('plain and markdown carry the same figures; the terminal draws the charts', async () => {
    const plain = await runCli(['queue', 'stats', '--since', since, '--until', until], { env: env() });
    const lines = plain.stdout.trim().split('\n');
    expect(lines).toContain('timeToMerge.p50\t1800');
    expect(lines).toContain('prs.merged\t3');
    const md = await runCli(['queue', 'stats', '--since', since, '--until', until, '-o', 'markdown'], { env: env() });
    expect(md.stdout).toContain('| time to merge p50 | 30m |');
    expect(md.stdout).toContain('| PRs merged | 3 |');
    const table = await runCli(['queue', 'stats', '--since', since, '--until', until, '-o', 'table'], {
      env: { ...env(), COLUMNS: '60' },
    });
    expect(table.stdout).toContain('merges per hour (UTC): peak 1/h\n┄ ceiling of the settings: 18/h\n');
    expect(table.stdout).toMatch(/^20\/h ┤┄+\n/m);
    expect(table.stdout).toMatch(/^ {3}0 └┬[─┬]+\n {6}08:00 +09:00 +10:00 +11:00\n/m);
    expect(table.stdout).toMatch(/^Throughput\n {2}PRs merged {6,}3\n/m);
    expect(table.stdout).toContain('time to merge');
  });

  it('--fail-if exits 11 and names the figures that crossed', async () => {
    const r = await runCli(
      [
        'queue',
        'stats',
        '--since',
        since,
        '--until',
        until,
        '--fail-if',
        'p95>1h',
        '--fail-if',
        'flakyShare>10%',
        '--fail-if',
        'mergedPerHour<1',
      ],
      { env: env() },
    );
    expect(r.exitCode).toBe(11);
    expect(r.stderr).toBe('mq: threshold crossed: p95 1h 40m > 1h\nmq: threshold crossed: merged per hour 0.75 < 1\n');
    const ok = await runCli(['queue', 'stats', '--since', since, '--until', until, '--fail-if', 'p95>2h'], {
      env: env(),
    });
    expect(ok.exitCode).toBe(0);
  });

  it('refuses a bad --fail-if, a window over 45 days, and a bad --since before sending anything', async () => {
    for (const [args, message] of [
      [['--fail-if', 'p95 > soon'], /^mq: usage: --fail-if: "p95 > soon": "soon" is not a duration/],
      [['--fail-if', 'nope>1'], /^mq: usage: --fail-if: "nope>1": unknown figure "nope"/],
      [['--since', '46d'], /^mq: usage: --since: the window may span at most 45 days/],
      [['--since', 'yesterday'], /^mq: usage: --since: "yesterday" is neither an ISO 8601 time nor a duration/],
    ] as const) {
      fake.requests.length = 0;
      const r = await runCli(['queue', 'stats', ...args], { env: env() });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(fake.requests.filter((q) => q.path !== '/getQueue')).toHaveLength(0);
    }
  });

  it('--html writes a self-contained page with one bar per hour', async () => {
    const file = join(tempDir(), 'report.html');
    const r = await runCli(['queue', 'stats', '--since', since, '--until', until, '--html', file, '--json'], {
      env: env(),
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`wrote ${file}\n`);
    const html = readFileSync(file, 'utf8');
    expect(html.match(/<rect class="bar"/g)).toHaveLength(4);
    expect(html).not.toMatch(/<script|(src|href)=/);
  });
});
