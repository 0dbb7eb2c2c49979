/** `mq status` stories and batches against the recording fake scripted with the v1 history shapes. */
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv, runCli } from '../../helpers/run-cli.js';

const fake = useFakeServer();
const env = () => baseEnv(fake.url);
const sent = (path: string) => fake.requests.filter((r) => r.path === path);

const FAILED_PR = {
  id: 'e-42',
  state: 'failed',
  stateChangedAt: '2026-11-20T10:16:00Z',
  priorityValue: 100,
  priorityName: 'medium',
  skipTheLine: false,
  isCurrentlySubmittedToQueue: false,
  prNumber: 42,
  prTitle: 'Add the widget cache',
  prSha: 'abc123',
  prBaseBranch: 'main',
  prAuthor: 'octocat',
  verifiedByTestRun: 'run-9',
  timeline: [
    { at: '2026-11-20T10:00:00Z', state: 'pending', reason: 'MERGE_ITEM_NOW_READY', testRunId: null },
    { at: '2026-11-20T10:01:00Z', state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'run-8' },
    {
      at: '2026-11-20T10:04:00Z',
      state: 'pending',
      reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
      testRunId: null,
      aheadPr: 40,
    },
    { at: '2026-11-20T10:06:00Z', state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'run-9' },
    { at: '2026-11-20T10:16:00Z', state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', testRunId: 'run-9' },
  ],
};
const DETAILS = {
  requiredStatuses: ['test', 'lint'],
  testBranch: 'trunk-merge/pr-42/run-9',
  testBranchSha: 'def456',
  status: 'failed',
  checkSuites: [
    {
      checkRuns: [
        { name: 'test', url: 'https://ci.example/runs/9/test', status: 'COMPLETED', conclusion: 'FAILURE' },
        { name: 'lint', url: 'https://ci.example/runs/9/lint', status: 'COMPLETED', conclusion: 'SUCCESS' },
      ],
    },
  ],
  statusChecks: [],
  testedPullRequests: [
    { prNumber: 42, prUrl: 'https://github.com/acme/widgets/pull/42', title: 'Add the widget cache' },
  ],
};

describe('mq status N: the story', () => {
  beforeEach(() => {
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: FAILED_PR });
    fake.on('POST /getMergeQueueTestingDetails', { status: 200, body: DETAILS });
  });

  it('asks for the timeline, tells the reasons and lists the failing check with its URL', async () => {
    const r = await runCli(['status', '42'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(sent('/getSubmittedPullRequest')[0]?.body).toMatchObject({ pr: { number: 42 }, includeTimeline: true });
    expect(sent('/getMergeQueueTestingDetails')[0]?.body).toMatchObject({ testRunId: 'run-9' });
    const lines = r.stdout.split('\n');
    expect(lines).toContain('run\trun-9');
    expect(lines).toContain('trip\t1\tfailed\trun-9');
    expect(lines).toContain(
      'step\t2026-11-20T10:16:00Z\tfailed\tTEST_RUN_REQUIRED_STATUS_FAILED\trun-9\tfailed: required status `test` failed in run run-9',
    );
    expect(lines).toContain(
      'step\t2026-11-20T10:04:00Z\tpending\tPREREQUISITE_MERGE_ITEM_FAILED\t\tback to pending: PR #40 ahead failed',
    );
    expect(lines).toContain('check\ttest\tfailure\thttps://ci.example/runs/9/test');
    // Newest first.
    expect(lines.findIndex((l) => l.includes('10:16:00Z'))).toBeLessThan(
      lines.findIndex((l) => l.includes('10:00:00Z')),
    );
  });

  it('--json carries the timeline, the run and the failing checks', async () => {
    const r = await runCli(['status', '42', '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc.state).toBe('failed');
    expect(doc.runId).toBe('run-9');
    expect(doc.timeline).toHaveLength(5);
    expect(doc.timeline[4]).toMatchObject({
      state: 'failed',
      testRunId: 'run-9',
      text: 'failed: required status `test` failed in run run-9',
    });
    expect(doc.failingChecks).toEqual([{ name: 'test', conclusion: 'FAILURE', url: 'https://ci.example/runs/9/test' }]);
  });

  it('markdown and the terminal table carry the run id and the check URL too', async () => {
    for (const format of ['markdown', 'table']) {
      const r = await runCli(['status', '42', '-o', format], { env: env() });
      expect(r.stdout, format).toContain('run-9');
      expect(r.stdout, format).toContain('https://ci.example/runs/9/test');
      expect(r.stdout, format).toContain('back to pending: PR #40 ahead failed');
    }
  });

  it('a merged PR shows the run that verified it and reads no testing details', async () => {
    fake.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: {
        ...FAILED_PR,
        state: 'merged',
        verifiedByTestRun: 'run-12',
        timeline: [
          { at: '2026-11-20T11:00:00Z', state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'run-12' },
          { at: '2026-11-20T11:10:00Z', state: 'tests_passed', reason: 'TEST_RUN_PASSED', testRunId: 'run-12' },
          { at: '2026-11-20T11:11:00Z', state: 'merged', reason: 'MERGE_GRAPH_MERGE', testRunId: 'run-12' },
        ],
      },
    });
    const r = await runCli(['status', '42'], { env: env() });
    expect(r.stdout).toContain('run\trun-12');
    expect(r.stdout).toContain('merged after run run-12 passed');
    expect(sent('/getMergeQueueTestingDetails')).toHaveLength(0);
  });

  it('names the PR ahead from the dependent PRs of the run it was testing in', async () => {
    const timeline = FAILED_PR.timeline.map(({ aheadPr: _a, ...t }: Record<string, unknown>) => t).reverse(); // newest first, as v1 sends it
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: { ...FAILED_PR, timeline } });
    fake.on(
      'POST /getMergeQueueTestingDetails',
      { status: 200, body: DETAILS },
      { status: 200, body: { ...DETAILS, dependentPrs: [40] } },
    );
    const r = await runCli(['status', '42'], { env: env() });
    expect(sent('/getMergeQueueTestingDetails').map((q) => (q.body as { testRunId: string }).testRunId)).toEqual([
      'run-9',
      'run-8',
    ]);
    expect(r.stdout).toContain('back to pending: PR #40 ahead failed');
  });

  it('a run whose details are gone still tells the story, with a note', async () => {
    fake.on('POST /getMergeQueueTestingDetails', { status: 404, body: 'test run not found' });
    const r = await runCli(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('failed: a required status failed in run run-9');
    expect(r.stderr).toBe('mq: note: the details of run run-9 are no longer kept\n');
  });
});

describe('mq status with several PRs', () => {
  it('reads 50 PRs per request, lists never-submitted PRs as not found and exits 3', async () => {
    const numbers = Array.from({ length: 120 }, (_, i) => i + 1);
    fake.on('POST /getSubmittedPullRequests', {
      status: 200,
      body: {
        pullRequests: [
          { ...FAILED_PR, prNumber: 1 },
          {
            ...FAILED_PR,
            prNumber: 2,
            state: 'testing',
            isCurrentlySubmittedToQueue: true,
            timeline: [
              { at: '2026-11-20T10:06:00Z', state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'run-3' },
            ],
          },
        ],
        notFound: [120],
      },
    });
    fake.on('POST /getQueue', {
      status: 200,
      body: { state: 'running', branch: 'main', enqueuedPullRequests: [{ prNumber: 7 }, { prNumber: 2 }] },
    });
    const r = await runCli(['status', '-'], { env: env(), input: numbers.join('\n') });
    expect(sent('/getSubmittedPullRequests').map((q) => (q.body as { prs: unknown[] }).prs.length)).toEqual([
      50, 50, 20,
    ]);
    expect(sent('/getSubmittedPullRequest')).toHaveLength(0);
    expect(r.exitCode).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^1\tfailed\t2026-11-20T10:16:00\.000Z\t\d+\t\tfailed: a required status failed in run run-9$/,
    );
    expect(lines[1]).toMatch(/^2\ttesting\t2026-11-20T10:16:00\.000Z\t\d+\t2\ttesting in run run-3$/);
    expect(lines).toContain('120\tnot_found\t\t\t\tnever submitted to this queue');
  });

  it('--json lists the PRs and the ones not found; all found exits 0', async () => {
    fake.on('POST /getSubmittedPullRequests', {
      status: 200,
      body: {
        pullRequests: [
          { ...FAILED_PR, prNumber: 5 },
          { ...FAILED_PR, prNumber: 6 },
        ],
        notFound: [],
      },
    });
    const r = await runCli(['status', '5', '6', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([5, 6]);
    expect(doc.notFound).toEqual([]);
    expect(sent('/getSubmittedPullRequests')).toHaveLength(1);
  });

  it('positions are optional, but a refused token on the queue read is not hidden (exit 4)', async () => {
    fake.on('POST /getSubmittedPullRequests', {
      status: 200,
      body: { pullRequests: [{ ...FAILED_PR, prNumber: 5 }], notFound: [] },
    });
    fake.on('POST /getQueue', { status: 403, body: 'forbidden' });
    const r = await runCli(['status', '5', '6', '--json'], { env: env() });
    expect(r.exitCode).toBe(4);
  });
});
