import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv, TOKEN } from '../../../helpers/run-cli.js';
import { runMq } from '../../../helpers/in-process.js';
import { entry, queueRecord } from '../../../helpers/test-context.js';

const TARGET = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const BEFORE = queueRecord({}, [entry(7, 'testing')]);
const { enqueuedPullRequests: _omit, ...AFTER_BASE } = BEFORE;

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getQueue', { status: 200, body: BEFORE });
  fake.on('POST /updateQueue', { status: 200, body: AFTER_BASE });
});
const env = () => baseEnv(fake.url);
const updates = () => fake.requests.filter((r) => r.path === '/updateQueue');

describe('mq queue update: exactly the flags given are sent', () => {
  const cases: Array<[string[], Record<string, unknown>]> = [
    [['--concurrency', '4'], { concurrency: 4 }],
    [['--bisection-concurrency', '6'], { bisectionConcurrency: 6 }],
    [['--testing-timeout', '90'], { testingTimeoutMinutes: 90 }],
    [['--pending-failure-depth', '1'], { pendingFailureDepth: 1 }],
    [['--batching-max-wait', '15'], { batchingMaxWaitTimeMinutes: 15 }],
    [['--batching-min-size', '4294967295'], { batchingMinSize: 4294967295 }],
    [['--mode', 'PARALLEL'], { mode: 'parallel' }],
    [['--direct-merge', 'always'], { directMergeMode: 'always' }],
    [['--optimization', 'bisection_skip_redundant_tests'], { optimizationMode: 'bisection_skip_redundant_tests' }],
    [['--merge-method', 'rebase'], { mergeMethod: 'rebase' }],
    [['--optimistic-merge'], { canOptimisticallyMerge: true }],
    [['--no-optimistic-merge'], { canOptimisticallyMerge: false }],
    [['--batch'], { batch: true }],
    [['--no-batch'], { batch: false }],
    [['--comments'], { commentsEnabled: true }],
    [['--no-comments'], { commentsEnabled: false }],
    [['--commands'], { commandsEnabled: true }],
    [['--no-commands'], { commandsEnabled: false }],
    [['--testing-branch-prs'], { createPrsForTestingBranches: true }],
    [['--no-testing-branch-prs'], { createPrsForTestingBranches: false }],
    [['--status-check'], { statusCheckEnabled: true }],
    [['--no-status-check'], { statusCheckEnabled: false }],
    [['--required-status', 'ci/build', '--required-status', 'ci/lint'], { requiredStatuses: ['ci/build', 'ci/lint'] }],
    [['--clear-required-statuses'], { deleteRequiredStatuses: true }],
    [
      ['--concurrency', '2', '--no-batch', '--merge-method', 'merge_commit', '--status-check'],
      { concurrency: 2, batch: false, mergeMethod: 'merge_commit', statusCheckEnabled: true },
    ],
  ];
  for (const [flags, fields] of cases) {
    it(flags.join(' '), async () => {
      const r = await runMq(['queue', 'update', ...flags], { env: env() });
      expect(r.stderr).not.toContain('mq:');
      expect(r.exitCode).toBe(0);
      const sent = updates();
      expect(sent).toHaveLength(1);
      // toEqual on the parsed body: any field not given would make it fail.
      expect(sent[0]?.body).toEqual({ ...TARGET, ...fields });
      expect(sent[0]?.headers['x-api-token']).toBe(TOKEN);
    });
  }
});

describe('mq queue update: before -> after', () => {
  it('reads the queue first, then prints each changed setting', async () => {
    fake.on('POST /updateQueue', {
      status: 200,
      body: { ...AFTER_BASE, concurrency: 5, batch: false, requiredStatuses: ['ci/build', 'ci/lint'] },
    });
    const r = await runMq(
      [
        'queue',
        'update',
        '--concurrency',
        '5',
        '--no-batch',
        '--required-status',
        'ci/build',
        '--required-status',
        'ci/lint',
        '-o',
        'table',
      ],
      { env: env() },
    );
    expect(r.exitCode).toBe(0);
    expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue', '/updateQueue']);
    expect(r.stdout).toMatch(/concurrency\s+3 -> 5/);
    expect(r.stdout).toMatch(/batch\s+on -> off/);
    expect(r.stdout).toMatch(/required-statuses\s+ci\/build -> ci\/build, ci\/lint/);
    expect(r.stderr).toContain('✓ updated the queue for main of github.com/acme/widgets: 3 settings changed');
  });

  it('a requested value the service kept is marked unchanged; a side effect shows too', async () => {
    // The service switched modes as a consequence of the mode change.
    fake.on('POST /updateQueue', { status: 200, body: { ...AFTER_BASE, mode: 'parallel', state: 'switching_modes' } });
    const r = await runMq(['queue', 'update', '--mode', 'parallel', '--concurrency', '3'], { env: env() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'state\trunning\tswitching_modes\ttrue',
      'mode\tsingle\tparallel\ttrue',
      'concurrency\t3\t3\tfalse',
    ]);
    expect(r.stderr).toContain('QUEUE SWITCHING MODES');
  });

  it('--json: one document with the request, the changes and the returned queue', async () => {
    fake.on('POST /updateQueue', { status: 200, body: { ...AFTER_BASE, testingTimeoutMinutes: 45 } });
    const r = await runMq(['queue', 'update', '--testing-timeout', '45', '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc.settings).toEqual({ testingTimeoutMinutes: 45 });
    expect(doc.changes).toEqual([
      {
        field: 'testingTimeoutMinutes',
        key: 'testing-timeout',
        label: 'Testing timeout (minutes)',
        before: 60,
        after: 45,
        from: '60',
        to: '45',
        requested: true,
        changed: true,
      },
    ]);
    expect(doc.queue.testingTimeoutMinutes).toBe(45);
    expect(doc.repo).toBe('github.com/acme/widgets');
  });

  it('--clear-required-statuses shows the list going back to branch protection', async () => {
    fake.on('POST /updateQueue', { status: 200, body: { ...AFTER_BASE, requiredStatuses: null } });
    const r = await runMq(['queue', 'update', '--clear-required-statuses'], { env: env() });
    expect(r.stdout).toBe('required-statuses\tci/build\t\ttrue\n');
  });
});

describe('mq queue update --dry-run', () => {
  it('prints the request and the changes, and sends no update', async () => {
    const r = await runMq(['queue', 'update', '--concurrency', '8', '--no-comments', '--dry-run'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(updates()).toHaveLength(0);
    expect(r.stdout).toContain(`POST ${fake.url}/updateQueue`);
    expect(r.stdout).toContain('x-api-token: ***');
    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stdout).toContain(JSON.stringify({ ...TARGET, concurrency: 8, commentsEnabled: false }));
    expect(r.stdout).toContain('concurrency\t3\t8\ttrue');
    expect(r.stdout).toContain('comments\ttrue\tfalse\ttrue');
    expect(r.stderr).toContain('dry run: nothing was sent');
  });

  it('--json: one document {dryRun, request, changes}', async () => {
    const r = await runMq(['queue', 'update', '--merge-method', 'squash', '--dry-run', '--json'], { env: env() });
    expect(updates()).toHaveLength(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.dryRun).toBe(true);
    expect(doc.request.method).toBe('POST');
    expect(JSON.parse(doc.request.body)).toEqual({ ...TARGET, mergeMethod: 'squash' });
    expect(doc.changes).toEqual([
      expect.objectContaining({ key: 'merge-method', from: 'squash', to: 'squash', changed: false }),
    ]);
  });
});

describe('mq queue update: bad input exits 2 naming the flag and the rule, nothing sent', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--concurrency', '0'], /--concurrency: "0" must be an integer from 1 to 4294967295/],
    [['--concurrency', '-3'], /--concurrency: "-3" must be an integer from 1 to 4294967295/],
    [['--testing-timeout', '1.5'], /--testing-timeout: "1\.5" must be an integer from 1 to 4294967295/],
    [['--batching-min-size', '4294967296'], /--batching-min-size: "4294967296" must be an integer/],
    [['--pending-failure-depth', 'two'], /--pending-failure-depth: "two" must be an integer/],
    [['--mode', 'serial'], /--mode: "serial" is not one of single, parallel/],
    [['--merge-method', 'fast-forward'], /--merge-method: "fast-forward" is not one of merge_commit, squash, rebase/],
    [['--direct-merge', 'sometimes'], /--direct-merge: "sometimes" is not one of off, always/],
    [['--optimization', 'on'], /--optimization: "on" is not one of off, bisection_skip_redundant_tests/],
    [
      ['--required-status', 'ci/build', '--clear-required-statuses'],
      /--required-status and --clear-required-statuses cannot be used together/,
    ],
    [['--required-status', ''], /--required-status: a status name cannot be empty/],
    [[], /no setting given; pass at least one setting flag/],
  ];
  for (const [flags, message] of cases) {
    it(flags.join(' ') || '(no flags)', async () => {
      const r = await runMq(['queue', 'update', ...flags], { env: env() });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(/^mq: usage: /);
      expect(r.stderr).toMatch(message);
      expect(fake.requests).toHaveLength(0);
    });
  }
});
