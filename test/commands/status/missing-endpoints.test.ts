/**
 * Endpoints the service may not have (issue 25, point 3): getSubmittedPullRequests and
 * listMergeQueueTestingResults are not in Trunk's v1 document. A 404 or 405 for the endpoint itself
 * (its body names no PR, queue or run) is told apart from the service's not-found answer: `status N M`
 * reads one PR per request and says so once; `queue stats` shows what it can without test runs;
 * `simulate --from-history` names the endpoint. Never "does not exist" about the user's PR.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { runStatusMany } from '../../../src/commands/status.js';
import { ApiError, ExitCode, exitCodeForStatus } from '../../../src/errors.js';
import { fetchBatch } from '../../../src/stats/lookup.js';
import { fakeClient } from '../../helpers/fake-client.js';
import { useFakeServer } from '../../helpers/fake-server.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv } from '../../helpers/run-cli.js';
import { testDeps } from '../../helpers/deps.js';
import { entry, queueRecord } from '../../helpers/test-context.js';

const AT = '2026-11-22T10:00:00.000Z';
const NO_ROUTE = 'Cannot POST /v1/getSubmittedPullRequests';
const PR_UNKNOWN = 'pull request #82 has never been submitted to the merge queue for github.com/acme/widgets main';
const record = (pr: number) => ({
  ...entry(pr, 'testing', { stateChangedAt: AT }),
  timeline: [{ timestamp: AT, state: 'testing', reason: 'test_run_started', testRunId: `run-${pr}` }],
});

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getQueue', { status: 200, body: queueRecord({ concurrency: 1, batch: false }) });
});
const sent = (path: string) => fake.requests.filter((r) => r.path === path);
const mq = (args: string[]) => runMq(args, { env: baseEnv(fake.url) });

const gone = (status: number, body: string) =>
  new ApiError(exitCodeForStatus(status), 'get 3 pull requests of main', `HTTP ${status}`, status, body);

/** `mq status 80 81 82` in-process: the batch endpoint answers `batch`; PR 82 was never submitted. */
async function statusMany(batch: Error, output = 'plain') {
  const fake = fakeClient({
    getSubmittedPullRequests: [batch],
    getSubmittedPullRequestWithTimeline: [
      (req: unknown) => {
        const n = (req as { pr: { number: number } }).pr.number;
        if (n === 82) throw gone(404, PR_UNKNOWN);
        return record(n);
      },
    ],
    getQueue: [queueRecord({}, [entry(80, 'testing'), entry(81, 'testing')])],
  });
  const { deps, io } = testDeps({ fake, options: { output } });
  const exitCode = await deps.out.show(await runStatusMany({ args: ['80', '81', '82'] }, deps));
  return { exitCode, stdout: io.stdout, stderr: io.stderr, fake };
}

describe('status N M without getSubmittedPullRequests', () => {
  for (const [status, body] of [
    [404, NO_ROUTE],
    [405, 'method not allowed'],
  ] as const) {
    it(`HTTP ${status} for the endpoint: one PR per request, said once, the unknown PR not found (exit 3)`, async () => {
      const r = await statusMany(gone(status, body));
      expect(r.exitCode).toBe(ExitCode.notFound);
      expect(r.stderr).toBe(
        `mq: note: the service has no getSubmittedPullRequests (HTTP ${status}); read one PR per request\n`,
      );
      expect(r.fake.callsOf('getSubmittedPullRequests')).toHaveLength(1);
      expect(r.fake.callsOf('getSubmittedPullRequestWithTimeline').map((c) => (c.req as { pr: unknown }).pr)).toEqual([
        { number: 80 },
        { number: 81 },
        { number: 82 },
      ]);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.map((l) => l.split('\t').slice(0, 2))).toEqual([
        ['80', 'testing'],
        ['81', 'testing'],
        ['82', 'not_found'],
      ]);
      expect(lines[0]).toMatch(/\ttesting in run run-80$/);
    });
  }

  it('--json: the same document as with the batch endpoint', async () => {
    const r = await statusMany(gone(404, NO_ROUTE), 'json');
    const doc = JSON.parse(r.stdout);
    expect(doc.pullRequests.map((p: Record<string, unknown>) => [p.prNumber, p.testRunId])).toEqual([
      [80, 'run-80'],
      [81, 'run-81'],
    ]);
    expect(doc.notFound).toEqual([82]);
  });

  it("a 404 that names the queue is the service's not-found answer, not a missing endpoint: no fallback", async () => {
    await expect(statusMany(gone(404, 'no merge queue exists for github.com/acme/widgets main'))).rejects.toMatchObject(
      { exitCode: ExitCode.notFound },
    );
  });
});

describe('the fallback is remembered for the rest of the command', () => {
  it('a second lookup, and every chunk of 50 after the first, go one PR per call', async () => {
    const missing = new ApiError(
      ExitCode.notFound,
      'get 50 pull requests of main',
      'the service answered HTTP 404',
      404,
      'Not Found',
    );
    const fake = fakeClient({
      getSubmittedPullRequests: [missing],
      getSubmittedPullRequest: [
        (req: unknown) => ({ ...entry((req as { pr: { number: number } }).pr.number, 'pending') }),
      ],
    });
    const target = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
    const many = Array.from({ length: 120 }, (_, i) => i + 1);
    const first = await fetchBatch(fake.client, target, many);
    expect(first).toMatchObject({ notFound: [], oneByOne: 404 });
    expect(first.pullRequests).toHaveLength(120);
    const again = await fetchBatch(fake.client, target, [7, 8]);
    expect(again.oneByOne).toBe(404);
    expect(fake.callsOf('getSubmittedPullRequests')).toHaveLength(1);
    expect(fake.callsOf('getSubmittedPullRequest')).toHaveLength(122);
  });
});

describe('queue stats and simulate --from-history without listMergeQueueTestingResults', () => {
  const since = '2026-11-22T08:00:00.000Z';
  const until = '2026-11-22T12:00:00.000Z';
  const merged = (n: number, minutes: number) => ({
    ...entry(n, 'merged', { stateChangedAt: `2026-11-22T1${n}:00:00.000Z` }),
    submittedAt: new Date(Date.parse(`2026-11-22T1${n}:00:00.000Z`) - minutes * 60_000).toISOString(),
  });
  beforeEach(() => {
    fake.on('POST /listMergeQueueTestingResults', {
      status: 404,
      body: 'Cannot POST /v1/listMergeQueueTestingResults',
    });
    // One answer for each state asked: entries of another state are left out.
    fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [merged(0, 30), merged(1, 50)] } });
  });

  it('queue stats: the figures that need no test runs, a warning naming the endpoint, exit 0', async () => {
    const r = await mq(['queue', 'stats', '--since', since, '--until', until, '--json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      'mq: warning: the service does not offer testing history (listMergeQueueTestingResults answered HTTP 404): ' +
        'PRs, merges per hour and time to merge are shown; waiting, testing, runs, test minutes, flaky share and the ceiling are not\n',
    );
    expect(sent('/listMergeQueueTestingResults')).toHaveLength(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.prs).toEqual({ merged: 2, failed: 0, cancelled: 0 });
    expect(doc.mergedPerHour).toBe(0.5);
    expect(doc.timeToMerge).toEqual({ p50: 30 * 60, p90: 50 * 60, p95: 50 * 60 });
    expect(doc.waiting).toEqual({ p50: null, p95: null });
    expect(doc.testing).toEqual({ p50: null, p95: null });
    expect(doc.runs).toEqual({ total: null, failed: null, bisection: null, perMergedPr: null });
    expect([doc.testMinutesPerMergedPr, doc.flakyShare, doc.ceilingPerHour]).toEqual([null, null, null]);
  });

  it('queue stats piped: unknown figures are empty, never 0', async () => {
    const r = await mq(['queue', 'stats', '--since', since, '--until', until]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining(['prs.merged\t2', 'runs.total\t', 'testMinutesPerMergedPr\t', 'waiting.p50\t']),
    );
  });

  it('simulate --from-history: one line naming the endpoint, a hint, the 404 exit code', async () => {
    const r = await mq(['queue', 'simulate', '--from-history', '4h', '--runs', '2', '--jobs', '1']);
    expect(r.exitCode).toBe(ExitCode.notFound);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'mq: --from-history: the service does not offer testing history (listMergeQueueTestingResults answered HTTP 404), which the fit needs',
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^hint: give the workload instead: --arrivals, --test-time and --failure-rate/),
    ]);
    expect(r.stderr).not.toMatch(/does not exist/);
  });

  it('queue eta-check: one line naming the endpoint, a hint, the 404 exit code', async () => {
    const r = await mq(['queue', 'eta-check', '--since', since, '--until', until]);
    expect(r.exitCode).toBe(ExitCode.notFound);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'mq: queue eta-check: the service does not offer testing history (listMergeQueueTestingResults answered ' +
        'HTTP 404), which the estimator fits test times from',
      'hint: `mq queue stats` still shows the time to merge',
    ]);
  });
});
