/**
 * A getQueue answer shaped like the sample in Trunk's API docs (older field names, UPPERCASE enums,
 * entries without `id`): every setting shows in `mq queue show --settings`, under today's names.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_SETTINGS } from '../../../../src/domain/queue-settings.js';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { runMq } from '../../../helpers/in-process.js';
import { baseEnv } from '../../../helpers/run-cli.js';

const DOCS_SAMPLE = {
  state: 'RUNNING',
  branch: 'main',
  concurrency: 3,
  testingTimeoutMins: 90,
  mode: 'SINGLE',
  canOptimisticallyMerge: true,
  pendingFailureDepth: 2,
  isBatching: true,
  batchingMaxWaitTimeMins: 10,
  batchingMinSize: 4,
  createPrsForTestingBranches: true,
  commentsEnabled: true,
  commandsEnabled: false,
  statusCheckEnabled: true,
  bisectionConcurrency: 5,
  requiredStatuses: ['ci/build', 'ci/lint'],
  directMergeMode: 'OFF',
  optimizationMode: 'BISECTION_SKIP_REDUNDANT_TESTS',
  mergeMethod: 'MERGE_COMMIT',
  enqueuedPullRequests: [
    {
      state: 'TESTING',
      stateChangedAt: '2026-01-01T00:00:00Z',
      priorityValue: 100,
      priorityName: 'default',
      usedDefaultPriorityName: 'default',
      skipTheLine: false,
      noBatch: false,
      prNumber: 42,
      prTitle: 'Add a feature',
      prSha: 'abc123',
      prBaseBranch: 'main',
      prAuthor: 'alice',
    },
  ],
};

/** What each `--settings` key must read, piped. */
const EXPECTED: Record<string, string> = {
  branch: 'main',
  state: 'running',
  mode: 'single',
  concurrency: '3',
  'bisection-concurrency': '5',
  'testing-timeout': '90',
  'pending-failure-depth': '2',
  'optimistic-merge': 'true',
  batch: 'true',
  'batching-max-wait': '10',
  'batching-min-size': '4',
  'direct-merge': 'off',
  optimization: 'bisection_skip_redundant_tests',
  'merge-method': 'merge_commit',
  comments: 'true',
  commands: 'false',
  'testing-branch-prs': 'true',
  'status-check': 'true',
  'required-statuses': 'ci/build,ci/lint',
  enqueued: '1',
};

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getQueue', { status: 200, body: DOCS_SAMPLE });
  fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [] } });
});
const show = (...args: string[]) => runMq(['queue', 'show', ...args], { env: baseEnv(fake.url) });

describe("mq queue show reads the older field names of the sample in Trunk's API docs", () => {
  it('--settings piped: every setting has its value', async () => {
    const r = await show('--settings');
    expect(r.exitCode).toBe(0);
    const got = Object.fromEntries(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    expect(got).toEqual(EXPECTED);
    expect(Object.keys(got)).toEqual(expect.arrayContaining(QUEUE_SETTINGS.map((s) => s.key)));
  });

  it('--settings as a table: every label has its value', async () => {
    const r = await show('--settings', '-o', 'table');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Batching\s+true\n/);
    expect(r.stdout).toMatch(/Testing timeout \(minutes\)\s+90\n/);
    expect(r.stdout).toMatch(/Batching max wait \(minutes\)\s+10\n/);
    expect(r.stdout).toMatch(/State\s+running\n/);
    expect(r.stdout).toMatch(/Mode\s+single\n/);
    for (const s of QUEUE_SETTINGS) expect(r.stdout).toMatch(new RegExp(`${s.label.replace(/[()]/g, '\\$&')} +\\S`));
  });

  it("--settings --json: today's names and lowercase enums, no older names", async () => {
    const r = await show('--settings', '--json');
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ state: 'running', mode: 'single', batch: true });
    expect(doc).toMatchObject({ testingTimeoutMinutes: 90, batchingMaxWaitTimeMinutes: 10 });
    for (const old of ['isBatching', 'testingTimeoutMins', 'batchingMaxWaitTimeMins']) {
      expect(doc).not.toHaveProperty(old);
    }
    for (const s of QUEUE_SETTINGS) expect(doc[s.field], s.field).not.toBeUndefined();
  });

  it('the summary and the PRs: batching on, the entry testing with its priority name', async () => {
    const table = await show('-o', 'table');
    expect(table.stdout).toMatch(/Batching\s+on: at least 4 PRs, waits up to 10m · bisection concurrency 5/);
    expect(table.stdout).toMatch(/Testing\s+timeout 1h 30m/);
    const piped = await show();
    expect(piped.stdout).toMatch(/^1\t42\ttesting\t\d+\tdefault\t100\tfalse\tfalse\talice\tAdd a feature\t\n$/);
    type Doc = { enqueuedPullRequests: Array<Record<string, unknown>> };
    const doc = JSON.parse((await show('--json')).stdout) as Doc;
    expect(doc.enqueuedPullRequests[0]).toMatchObject({ state: 'testing', priorityName: 'default', prNumber: 42 });
    expect(doc).not.toHaveProperty('isBatching');
  });
});
