/**
 * Argument fuzzing: generated command lines (real commands, random flags and values, numbers at
 * and past the bounds, unicode, empty strings) run in-process against the recording fake server.
 * Whatever the input: never a stack trace, always an exit code from the table, and nothing sent
 * when the exit code is 2.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv, tempDir } from '../helpers/run-cli.js';

const RUNS = Number(process.env.MQ_FUZZ_RUNS ?? 10_000);
const CODES = new Set<number>(EXIT_CODES.map((e) => e.code));

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer({ status: 200, body: 'OK' });
  // Reads answer with records that end any wait at once.
  fake.on('POST /getSubmittedPullRequest', {
    status: 200,
    body: { state: 'merged', isCurrentlySubmittedToQueue: false },
  });
  fake.on('POST /getQueue', {
    status: 200,
    body: { state: 'running', branch: 'main', concurrency: 1, mode: 'single', enqueuedPullRequests: [] },
  });
  fake.on('POST /updateQueue', {
    status: 200,
    body: { state: 'paused', branch: 'main', concurrency: 2, mode: 'single' },
  });
  fake.on('POST /getMergeQueueTestingDetails', {
    status: 200,
    body: {
      testBranch: 'trunk-merge/pr-1/x',
      testBranchSha: 'abc',
      checkSuites: [],
      statusChecks: [],
      testedPullRequests: [],
      requiredStatuses: [],
    },
  });
  fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [] } });
  fake.on('POST /getSubmittedPullRequests', { status: 200, body: { pullRequests: [], notFound: [] } });
  fake.on('POST /listMergeQueueTestingResults', { status: 200, body: { testingResults: [], totalItems: 0 } });
  fake.on('GET /getMergeQueueMetrics', {
    status: 200,
    body: 'mq_depth_current{repo="a/b",branch="main",queue_type="main"} 1\n',
  });
});
afterAll(async () => {
  await fake.close();
});

// Commands that run until interrupted (watch, emulator, demo) are left out.
const COMMANDS = [
  ['submit'],
  ['cancel'],
  ['restart'],
  ['status'],
  ['wait'],
  ['targets'],
  ['auth', 'status'],
  ['auth', 'logout'],
  ['profile', 'list'],
  ['profile', 'show'],
  ['profile', 'use'],
  ['profile', 'set'],
  ['profile', 'remove'],
  ['completion'],
  ['help'],
  ['queue', 'show'],
  ['queue', 'create'],
  ['queue', 'update'],
  ['queue', 'pause'],
  ['queue', 'resume'],
  ['queue', 'delete'],
  ['queue', 'testing'],
  ['queue', 'history'],
  ['queue', 'stats'],
  ['metrics'],
];

const numberish = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '42',
    '255',
    '256',
    '4294967295',
    '4294967296',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '#7',
    '',
    ' ',
    '00',
    '99999999999999999999',
  ),
  fc.integer({ min: -10, max: 5_000_000_000 }).map(String),
);
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    'ALL',
    'urgent',
    'HIGH',
    'single',
    'parallel',
    'squash',
    'ünïcödé',
    '日本',
    '🚀',
    '--',
    '-',
    'a/b',
    'github.com/a/b',
    'x/y/z/w',
  ),
);
const FLAGS = [
  '--priority',
  '-p',
  '--no-batch',
  '--parallel',
  '--dry-run',
  '--wait',
  '--interval',
  '--timeout',
  '--sha',
  '--target',
  '-t',
  '--file',
  '--all',
  '--none',
  '--mode',
  '--concurrency',
  '--bisection-concurrency',
  '--testing-timeout',
  '--pending-failure-depth',
  '--batching-max-wait',
  '--batching-min-size',
  '--direct-merge',
  '--optimization',
  '--merge-method',
  '--optimistic-merge',
  '--no-optimistic-merge',
  '--batch',
  '--required-status',
  '--clear-required-statuses',
  '--reason',
  '--yes',
  '--state',
  '--since',
  '--until',
  '--fail-if',
  '--limit',
  '--json',
  '-o',
  '--output',
  '--repo',
  '-R',
  '--branch',
  '-B',
  '--profile',
  '--no-color',
  '--bogus',
  '-z',
];
const flagWithValue = fc
  .tuple(fc.constantFrom(...FLAGS), fc.option(fc.oneof(numberish, text), { nil: undefined }))
  .map(([f, v]) => (v === undefined ? [f] : [f, v]));
const commandLine = fc
  .tuple(
    fc.constantFrom(...COMMANDS),
    fc.array(fc.oneof(numberish, text), { maxLength: 3 }),
    fc.array(flagWithValue, { maxLength: 4 }),
  )
  .map(([cmd, args, flags]) => [...cmd, ...args, ...flags.flat()]);

describe('argument fuzzing', () => {
  it(`${RUNS} generated command lines: exit codes from the table, no stack traces, nothing sent on exit 2`, async () => {
    const env = { ...baseEnv(fake.url), MQ_CONFIG_DIR: tempDir('mq-fuzz-') };
    const cwd = tempDir('mq-fuzz-cwd-');
    let usage = 0;
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        const before = fake.requests.length;
        const r = await runMq(argv, { env, cwd });
        expect(CODES.has(r.exitCode), `exit ${r.exitCode} for ${JSON.stringify(argv)}`).toBe(true);
        expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
        expect(r.stderr).not.toMatch(/TypeError|ReferenceError|SyntaxError/);
        // The fake answers every request well, so nothing here may end as an unexpected error.
        expect(r.exitCode, `exit 1 for ${JSON.stringify(argv)}: ${r.stderr}`).not.toBe(1);
        if (r.exitCode === 2) {
          usage++;
          expect(fake.requests.length - before, `sent on usage error: ${JSON.stringify(argv)}`).toBe(0);
          expect(r.stderr).toMatch(/^mq: /);
        }
      }),
      { numRuns: RUNS },
    );
    // The generator must actually reach the validation paths.
    expect(usage).toBeGreaterThan(RUNS / 4);
  }, 600_000);
});
