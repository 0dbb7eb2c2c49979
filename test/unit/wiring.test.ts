/**
 * The wiring alone: each command line becomes the typed options its behaviour gets. Nothing is run
 * (the context intercepts the options), nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/run.js';
import { testDeps } from '../helpers/deps.js';

const H = 3_600_000;

const CASES: Array<[string[], string, unknown]> = [
  [['status', '42'], 'status', { pr: 42 }],
  // Repeatable options may repeat; formats a command honours pass.
  [
    ['targets', '3', '--sha', 'abc1234', '-t', '//a', '-t', '//a'],
    'targets',
    { pr: 3, sha: 'abc1234', source: { targets: ['//a', '//a'] } },
  ],
  [
    ['submit', '42', '--wait', '-o', 'markdown'],
    'submit',
    { prs: ['42'], parallel: 8, wait: { timeoutMs: 2 * H, intervalMs: 15_000 } },
  ],
  [['wait', '42', '-o', 'markdown'], 'wait', { pr: 42, timeoutMs: 2 * H, intervalMs: 15_000 }],
  [['wait', '42', '--eta'], 'wait', { pr: 42, timeoutMs: 2 * H, intervalMs: 15_000, eta: true }],
  [['cancel', '42', '--json'], 'cancel', { prs: ['42'], parallel: 8 }],
  [['status', '#7'], 'status', { pr: 7 }],
  [['status', '42', '--eta'], 'status', { pr: 42, eta: true }],
  [['submit', '42'], 'submit', { prs: ['42'], parallel: 8 }],
  [
    ['submit', '1', '2', '-p', 'high', '--no-batch', '--parallel', '4', '--dry-run'],
    'submit',
    { prs: ['1', '2'], priority: 'high', noBatch: true, parallel: 4, dryRun: true },
  ],
  [
    ['submit', '42', '--wait', '--timeout', '30m', '--interval', '10s'],
    'submit',
    { prs: ['42'], parallel: 8, wait: { timeoutMs: 30 * 60_000, intervalMs: 10_000 } },
  ],
  [['submit', '42', '--wait'], 'submit', { prs: ['42'], parallel: 8, wait: { timeoutMs: 2 * H, intervalMs: 15_000 } }],
  [['cancel', '1', '-'], 'cancel', { prs: ['1', '-'], parallel: 8 }],
  [['restart', '9', '--dry-run'], 'restart', { pr: 9, dryRun: true }],
  [['priority', '9', 'HIGH'], 'priority', { pr: 9, priority: 'high' }],
  [['priority', '9', '0', '--batch'], 'priority', { pr: 9, priority: 0, noBatch: false }],
  [['priority', '9', '--no-batch', '--dry-run'], 'priority', { pr: 9, noBatch: true, dryRun: true }],
  [['notify', '42'], 'notify', { pr: 42, on: ['failed', 'cancelled'], sinks: {} }],
  [
    ['notify', '42', '--slack', '--github', '--on', 'merged,canceled,merged', '--authors', 'a.json'],
    'notify',
    { pr: 42, on: ['merged', 'cancelled'], sinks: { slack: true, github: true, authors: 'a.json' } },
  ],
  [
    ['notify', '7', '--teams-url-file', 't.url', '--webhook', '--github-token-file', 'gh.tok'],
    'notify',
    { pr: 7, on: ['failed', 'cancelled'], sinks: { webhook: true, teamsUrlFile: 't.url', githubTokenFile: 'gh.tok' } },
  ],
  [
    ['notify', '--watch', '--teams'],
    'notify',
    { watch: { intervalMs: 30_000 }, on: ['failed', 'cancelled'], sinks: { teams: true } },
  ],
  [
    ['notify', '--watch', '--interval', '1m', '--state', 's.json', '--slack-url-file', 's.url', '--json'],
    'notify',
    { watch: { intervalMs: 60_000, state: 's.json' }, on: ['failed', 'cancelled'], sinks: { slackUrlFile: 's.url' } },
  ],
  [['wait', '42', '--timeout', '1h', '--interval', '5s'], 'wait', { pr: 42, timeoutMs: H, intervalMs: 5000 }],
  [['wait', '42'], 'wait', { pr: 42, timeoutMs: 2 * H, intervalMs: 15_000 }],
  [
    ['wait', '42', '--requeue', '2', '--flaky-check', 'e2e', '--flaky-check', 'lint'],
    'wait',
    { pr: 42, timeoutMs: 2 * H, intervalMs: 15_000, requeue: { max: 2, flakyChecks: ['e2e', 'lint'] } },
  ],
  [['wait', '42', '--requeue', '0'], 'wait', { pr: 42, timeoutMs: 2 * H, intervalMs: 15_000 }],
  [
    ['submit', '42', '--wait', '--requeue', '10'],
    'submit',
    { prs: ['42'], parallel: 8, wait: { timeoutMs: 2 * H, intervalMs: 15_000, requeue: { max: 10, flakyChecks: [] } } },
  ],
  [
    ['targets', '3', '--sha', 'abc1234', '-t', '//a', '-t', '//b'],
    'targets',
    { pr: 3, sha: 'abc1234', source: { targets: ['//a', '//b'] } },
  ],
  [
    ['targets', '3', '--sha', 'abc1234', '--all', '--forked-workflow-run-id', '9876543210'],
    'targets',
    { pr: 3, sha: 'abc1234', source: { all: true }, forkedWorkflowRunId: '9876543210' },
  ],
  [
    ['targets', '3', '--sha', 'abc1234', '--file', 't.txt'],
    'targets',
    { pr: 3, sha: 'abc1234', source: { file: 't.txt' } },
  ],
  [['targets', '3', '--sha', 'abc1234', '--all'], 'targets', { pr: 3, sha: 'abc1234', source: { all: true } }],
  [
    ['targets', '3', '--sha', ` ${'A'.repeat(64)} `, '--all'],
    'targets',
    { pr: 3, sha: 'A'.repeat(64), source: { all: true } },
  ],
  [
    ['targets', '3', '--sha', 'abc1234', '--none', '--dry-run'],
    'targets',
    { pr: 3, sha: 'abc1234', source: { none: true }, dryRun: true },
  ],
  [['queue', 'show', '--settings'], 'queue show', { settings: true }],
  [['queue', 'order'], 'queue order', {}],
  [['queue', 'graph'], 'queue graph', { format: 'table', impactedTargets: false }],
  [
    ['queue', 'graph', '--format', 'MERMAID', '--impacted-targets'],
    'queue graph',
    { format: 'mermaid', impactedTargets: true },
  ],
  [['queue', 'watch', '--interval', '10s'], 'queue watch', { interval: '10s', intervalMs: 10_000 }],
  [
    ['queue', 'history', '--state', 'FAILED', '--since', '2h', '--limit', '20'],
    'queue history',
    { state: 'failed', since: '2h', limit: 20 },
  ],
  [['queue', 'history'], 'queue history', { limit: 50 }],
  [
    ['queue', 'testing', 'trunk-merge/pr-1815/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31'],
    'queue testing',
    { testRunId: '5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31' },
  ],
  [['queue', 'pause', '--reason', 'red main', '--dry-run'], 'queue pause', { reason: 'red main', dryRun: true }],
  [['queue', 'resume'], 'queue resume', {}],
  [['queue', 'drain'], 'queue drain', {}],
  [['queue', 'drain', '--wait', '--timeout', '1h'], 'queue drain', { wait: { timeoutMs: H, intervalMs: 10_000 } }],
  [
    [
      'queue',
      'update',
      '--concurrency',
      '4',
      '--no-batch',
      '--mode',
      'PARALLEL',
      '--testing-timeout',
      '90',
      '--required-status',
      'ci/a',
      '--required-status',
      'ci/a',
    ],
    'queue update',
    {
      settings: {
        concurrency: 4,
        batch: false,
        mode: 'parallel',
        testingTimeoutMinutes: 90,
        requiredStatuses: ['ci/a'],
      },
    },
  ],
  [
    ['queue', 'update', '--clear-required-statuses', '--dry-run'],
    'queue update',
    { settings: { deleteRequiredStatuses: true }, dryRun: true },
  ],
  [
    ['queue', 'create', '--mode', 'parallel', '--concurrency', '2'],
    'queue create',
    { mode: 'parallel', concurrency: 2 },
  ],
  [['queue', 'delete', '--yes'], 'queue delete', { yes: true }],
  [
    ['queue', 'simulate', '--from-history', '14d', '--compare', 'concurrency=4', '--runs', '5'],
    'queue simulate',
    { fromHistory: '14d', compare: ['concurrency=4'], runs: '5' },
  ],
  [['queue', 'eta-check'], 'queue eta-check', { since: undefined, until: undefined }],
  [['queue', 'eta-check', '--since', '3d', '--until', '1d'], 'queue eta-check', { since: '3d', until: '1d' }],
  [['metrics', '--all-repos'], 'metrics', { allRepos: true }],
  [['auth', 'login', '--with-token'], 'auth login', { withToken: true }],
  [['auth', 'status'], 'auth status', {}],
  [['auth', 'logout'], 'auth logout', {}],
  [['profile', 'list'], 'profile list', {}],
  [['profile', 'show', 'ci'], 'profile show', { name: 'ci' }],
  [['profile', 'use', 'ci'], 'profile use', { name: 'ci' }],
  [['profile', 'rm', 'ci'], 'profile remove', { name: 'ci' }],
  [['profile', 'set', 'branch', 'main'], 'profile set', { key: 'branch', value: 'main' }],
  [['demo', '--speed', '50', '--seed', '7'], 'demo', { speed: 50, seed: 7 }],
  [
    ['emulator', 'start', '--port', '8080', '--clock', 'manual', '--seed', '3'],
    'emulator start',
    expect.objectContaining({ host: '127.0.0.1', port: 8080, clock: 'manual', seed: 3, speed: 1, rateLimits: true }),
  ],
  [['emulator', 'start', '--rate-limits', 'off'], 'emulator start', expect.objectContaining({ rateLimits: false })],
  [['emulator', 'start'], 'emulator start', expect.objectContaining({ estimates: true })],
  [['emulator', 'start', '--estimates', 'off'], 'emulator start', expect.objectContaining({ estimates: false })],
  [
    ['emulator', 'start', '--api-key', 'ci=merge,priority', '--api-key', 'dash=none'],
    'emulator start',
    expect.objectContaining({ apiKeySpecs: ['ci=merge,priority', 'dash=none'] }),
  ],
  [
    ['webhooks', 'verify', '--body', 'b.json', '--id', 'msg_1', '--timestamp', '1767225600', '--signature', 'v1,x'],
    'webhooks verify',
    { body: 'b.json', id: 'msg_1', timestamp: '1767225600', signature: 'v1,x' },
  ],
  [
    ['webhooks', 'verify', '--headers', 'h.txt', '--secret-file', 's.txt', '--json'],
    'webhooks verify',
    { headersFile: 'h.txt', secret: { file: 's.txt' } },
  ],
  [['webhooks', 'listen'], 'webhooks listen', { host: '127.0.0.1', port: 0, noVerify: false }],
  [
    ['webhooks', 'listen', '--port', '8787', '--forward', 'http://127.0.0.1:3000/h', '--record', 'd', '--no-verify'],
    'webhooks listen',
    { host: '127.0.0.1', port: 8787, forward: 'http://127.0.0.1:3000/h', record: 'd', noVerify: true },
  ],
  [
    ['webhooks', 'listen', '--host', '::1', '--secret', 'whsec_x', '--json'],
    'webhooks listen',
    { host: '::1', port: 0, noVerify: false, secret: { flag: 'whsec_x' } },
  ],
  [
    ['webhooks', 'replay', 'd', '--to', 'http://127.0.0.1:3000/h', '--new-ids'],
    'webhooks replay',
    { dir: 'd', to: 'http://127.0.0.1:3000/h', newIds: true },
  ],
  [
    ['webhooks', 'replay', 'd', '--to', 'http://x.test/'],
    'webhooks replay',
    { dir: 'd', to: 'http://x.test/', newIds: false },
  ],
  [['completion', 'bash'], 'completion', expect.objectContaining({ shell: 'bash' })],
  [['help', 'queue', 'update'], 'help', expect.objectContaining({ topic: ['queue', 'update'] })],
];

const strip = (o: unknown): unknown =>
  o && typeof o === 'object' && !Array.isArray(o)
    ? Object.fromEntries(
        Object.entries(o)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, strip(v)]),
      )
    : o;

describe('argv -> options, for every command', () => {
  it.each(CASES)('%j', async (argv, name, expected) => {
    const { deps, io } = testDeps();
    const seen: Array<[string, unknown]> = [];
    deps.intercept = (n, o) => void seen.push([n, o]);
    expect(await run(deps, argv)).toBe(0);
    expect(io.stderr).toBe('');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toBe(name);
    expect(strip(seen[0]?.[1])).toEqual(expected);
  });

  it.each([
    [['submit', '1', '--interval', '5s'], /--interval only applies with --wait/],
    [
      ['submit', '1', '--requeue', '2'],
      /--requeue only applies with --wait\nhint: mq submit "\$PR" --wait --requeue 2/,
    ],
    [['submit', '1', '--flaky-check', 'e2e'], /--flaky-check only applies with --wait/],
    [['wait', '1', '--requeue', '11'], /--requeue: "11" must be an integer from 0 to 10\nhint: the most resubmits/],
    [['wait', '1', '--requeue', '-1'], /--requeue: "-1" must be an integer from 0 to 10/],
    [['wait', '1', '--requeue', 'x'], /--requeue: "x" must be an integer from 0 to 10/],
    [['wait', '1', '--flaky-check', 'e2e'], /--flaky-check only applies with --requeue\nhint: add --requeue N/],
    [['wait', '1', '--requeue', '1', '--flaky-check', ' '], /--flaky-check: expected the name of a check/],
    [['queue', 'drain', '--wait', '--dry-run'], /--wait cannot be used with --dry-run/],
    [['targets', '1', '--sha', 'abc1234', '--all', '--none'], /exactly one of --target, --file, --all or --none/],
    // --sha is a commit id: 7 to 64 hex digits (a service would wait forever for any other).
    [
      ['targets', '1', '--sha', 'x', '--all'],
      /^mq: usage: --sha: "x" is not a commit sha; expected 7 to 64 hex digits\nhint: e\.g\. --sha/,
    ],
    [['targets', '1', '--sha', 'abc123', '--all'], /--sha: "abc123" is not a commit sha/],
    [['targets', '1', '--sha', 'f'.repeat(65), '--all'], /--sha: "f{65}" is not a commit sha/],
    [['targets', '1', '--sha', 'abc123g', '--all'], /--sha: "abc123g" is not a commit sha/],
    [['targets', '1', '--sha', 'HEAD', '--all'], /--sha: "HEAD" is not a commit sha/],
    // A fork PR's workflow run id is digits.
    [
      ['targets', '1', '--sha', 'abc1234', '--all', '--forked-workflow-run-id', 'run-7'],
      /^mq: usage: --forked-workflow-run-id: "run-7" is not a workflow run id; expected digits\nhint: in the fork PR's workflow: --forked-workflow-run-id "\$GITHUB_RUN_ID"/,
    ],
    [
      ['targets', '1', '--sha', 'abc1234', '--all', '--forked-workflow-run-id', '0'],
      /--forked-workflow-run-id: "0" is not a workflow run id/,
    ],
    [
      ['targets', '1', '--sha', 'abc1234', '--all', '--forked-workflow-run-id', ''],
      /--forked-workflow-run-id: "" is not a workflow run id/,
    ],
    [['queue', 'update'], /no setting given/],
    [['queue', 'update', '--required-status', 'a', '--clear-required-statuses'], /cannot be used together/],
    [['wait', '1', '--interval', '10ms'], /--interval: must be at least 100ms/],
    [['notify', '1', '--on', 'evicted'], /--on: "evicted" is not an outcome; expected failed, cancelled, merged/],
    [['notify', '1', '--watch'], /--watch: follows the whole queue; drop the PR number/],
    [['notify', '1', '--state', 's.json'], /--state: only with --watch/],
    [['notify', '--watch', '--interval', '100ms'], /--interval: must be at least 500ms/],
    [['notify', '1', '-o', 'markdown'], /-o markdown: mq notify has no markdown output/],
    // Central refusals: formats a command cannot honour, a flag with its negation, a single value twice.
    [['submit', '1', '-o', 'markdown'], /-o markdown: mq submit has no markdown output/],
    [['restart', '1', '-o', 'markdown'], /-o markdown: mq restart has no markdown output/],
    [['targets', '1', '--sha', 'abc1234', '--all', '-o', 'raw'], /-o raw: mq targets has no raw output/],
    [['demo', '-o', 'markdown'], /-o markdown: mq demo has no markdown output/],
    [['demo', '-o', 'raw'], /-o raw: mq demo has no raw output/],
    [['queue', 'watch', '-o', 'markdown'], /-o markdown: mq queue watch has no markdown output/],
    [['emulator', 'start', '-o', 'json'], /-o json: mq emulator start has no json output/],
    [['emulator', 'start', '--estimates', 'yes'], /--estimates.*yes.*on, off/],
    [['completion', 'zsh', '--json'], /--json: mq completion has no json output/],
    [['profile', 'use', 'x', '-o', 'markdown'], /-o markdown: mq profile use has no markdown output/],
    [['auth', 'logout', '-o', 'raw'], /-o raw: mq auth logout has no raw output/],
    [['queue', 'delete', '-o', 'markdown'], /-o markdown: mq queue delete has no markdown output/],
    [['submit', '1', '--batch', '--no-batch'], /--batch and --no-batch: give one or the other, not both/],
    [['submit', '1', '--no-batch', '--batch'], /--batch and --no-batch: give one or the other, not both/],
    [['queue', 'update', '--no-batch', '--batch'], /--batch and --no-batch: give one or the other, not both/],
    [
      ['submit', '1', '--priority', 'high', '--priority', 'low'],
      /--priority \(-p\): given twice \("high" and "low"\); it takes one value/,
    ],
    [['submit', '1', '-p', 'high', '-p', 'high'], /--priority \(-p\): given twice/],
    [['-B', 'a', '-B', 'b', 'status', '1'], /--branch \(-B\): given twice \("a" and "b"\)/],
    [['status', '1', '--repo', 'a/b', '-R', 'c/d'], /--repo \(-R\): given twice/],
    [['queue', 'update', '--concurrency', '2', '--concurrency', '3'], /--concurrency: given twice/],
    [['webhooks', 'listen', '--port', '70000'], /--port: "70000" must be an integer from 0 to 65535/],
    [
      ['webhooks', 'listen', '--forward', 'file:///x'],
      /^mq: usage: --forward: "file:\/\/\/x" is not an http or https URL/,
    ],
    [['webhooks', 'replay', 'd'], /--to/],
    [['webhooks', 'replay', 'd', '--to', 'nope'], /--to: "nope" is not a URL/],
    [['webhooks', 'verify', '--secret', 'a', '--secret-file', 'b'], /--secret-file and --secret: give one/],
    [['webhooks', 'verify', '-o', 'markdown'], /-o markdown: mq webhooks verify has no markdown output/],
    [['webhooks', 'listen', '-o', 'raw'], /-o raw: mq webhooks listen has no raw output/],
    [['status', '41', '42', '--eta'], /^mq: usage: --eta: takes one PR/],
  ])('%j is refused by the wiring (exit 2), nothing run', async (argv, message) => {
    const { deps, io } = testDeps();
    const seen: unknown[] = [];
    deps.intercept = (n) => void seen.push(n);
    expect(await run(deps, argv)).toBe(2);
    expect(io.stderr).toMatch(message);
    expect(seen).toEqual([]);
  });
});
