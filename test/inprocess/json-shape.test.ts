/**
 * One shape per command's --json document (issue 14, item 6): every PR command prints
 * `{ok, exitCode, ...fields common to the run, results: [...]}` whatever the number of PRs, and
 * with exactly one PR that PR's fields are at the top level too (as before `results`). Each row runs
 * the command in-process against a fake service with one PR and, where the command takes several,
 * with two, and compares the top-level keys with the table README's JSON section documents.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv } from '../helpers/run-cli.js';

const record = (prNumber: number, state = 'testing') => ({
  id: `id-${prNumber}`,
  state,
  stateChangedAt: '2026-11-22T10:00:00.000Z',
  priorityValue: 10,
  priorityName: 'high',
  isCurrentlySubmittedToQueue: state !== 'merged',
  readiness: {
    hasImpactedTargets: false,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'mergeable',
  },
  prNumber,
  prTitle: `PR ${prNumber}`,
  prSha: 'a'.repeat(40),
  prBaseBranch: 'main',
  prAuthor: 'octocat',
  timeline: [{ at: '2026-11-22T10:00:00.000Z', state, reason: 'TEST_RUN_STARTED', testRunId: 'run-1' }],
});

const fake = useFakeServer();
beforeEach(() => {
  for (const route of ['submitPullRequest', 'cancelPullRequest', 'restartTestsOnPullRequest', 'setImpactedTargets'])
    fake.on(`POST /${route}`, { status: 200, body: 'OK' });
  fake.on('POST /getSubmittedPullRequests', {
    status: 200,
    body: { pullRequests: [record(42), record(43)], notFound: [] },
  });
  fake.on('POST /getQueue', {
    status: 200,
    body: { state: 'running', branch: 'main', enqueuedPullRequests: [{ prNumber: 42 }, { prNumber: 43 }] },
  });
});

async function keysOf(args: string[], route?: [string, object]): Promise<string[]> {
  if (route) fake.on(`POST /${route[0]}`, { status: 200, body: route[1] });
  const r = await runMq([...args, '--json'], { env: baseEnv(fake.url) });
  expect(r.stderr).not.toMatch(/^mq: /m);
  expect(r.exitCode).toBe(0);
  return Object.keys(JSON.parse(r.stdout)).sort();
}

const sorted = (keys: string[]) => [...keys].sort();

interface Row {
  command: string;
  one: string[];
  /** Absent for commands that take one PR. */
  two?: string[];
  /** The document's keys whatever the count. */
  core: string[];
  /** Keys present only with exactly one PR. */
  single: string[];
  route?: [string, object];
}

const PR_CORE = ['ok', 'exitCode', 'action', 'repo', 'targetBranch', 'results'];

const ROWS: Row[] = [
  { command: 'submit', one: ['submit', '42'], two: ['submit', '42', '43'], core: PR_CORE, single: ['pr'] },
  {
    command: 'submit -p',
    one: ['submit', '42', '-p', 'high', '--no-batch'],
    two: ['submit', '42', '43', '-p', 'high', '--no-batch'],
    core: PR_CORE,
    single: ['pr', 'priority', 'priorityValue', 'noBatch'],
  },
  {
    command: 'cancel',
    one: ['cancel', '42'],
    two: ['cancel', '42', '43'],
    core: PR_CORE,
    single: ['pr', 'state'],
    route: ['getSubmittedPullRequest', record(42, 'cancelled')],
  },
  {
    command: 'restart',
    one: ['restart', '42'],
    core: PR_CORE,
    single: ['pr', 'state'],
    route: ['getSubmittedPullRequest', record(42)],
  },
  {
    command: 'targets',
    one: ['targets', '42', '--sha', 'abc1234', '--all'],
    core: PR_CORE,
    single: ['pr', 'sha', 'targets', 'bytes'],
  },
  {
    command: 'wait',
    one: ['wait', '42'],
    core: ['ok', 'exitCode', 'action', 'results'],
    single: ['pr', 'outcome', 'state', 'submitted', 'waitedMs', 'transitions', 'pullRequest'],
    route: ['getSubmittedPullRequest', record(42, 'merged')],
  },
  {
    command: 'status',
    one: ['status', '42'],
    two: ['status', '42', '43'],
    core: ['ok', 'exitCode', 'results', 'pullRequests', 'notFound'],
    // The PR's record as the service sent it, then its story, then its place in the queue.
    single: [
      'pr',
      ...Object.keys(record(42)),
      'runId',
      'failingChecks',
      ...['position', 'of', 'ahead', 'heldBy', 'waitingBecause', 'positionApproximate'],
    ],
    route: ['getSubmittedPullRequest', record(42)],
  },
];

describe('--json: one top-level shape per command, whatever the number of PRs', () => {
  it.each(ROWS)('$command', async (row) => {
    const one = await keysOf(row.one, row.route);
    expect(one).toEqual(sorted([...new Set([...row.core, ...row.single])]));
    if (row.two) {
      const two = await keysOf(row.two, row.route);
      expect(two).toEqual(sorted(row.core));
      // The same shape: the keys of two PRs are the ones of one PR less its own fields.
      expect(one.filter((k) => !row.single.includes(k) || row.core.includes(k))).toEqual(two);
    }
  });

  it('results lists one document per PR, in the order given, with the single-PR fields inside', async () => {
    const env = baseEnv(fake.url);
    const one = JSON.parse((await runMq(['submit', '42', '--json'], { env })).stdout);
    expect(one.results).toEqual([
      { pr: 42, ok: true, exitCode: 0, action: 'submit', repo: 'github.com/acme/widgets', targetBranch: 'main' },
    ]);
    expect(one.pr).toBe(42);
    const two = JSON.parse((await runMq(['submit', '43', '42', '--json'], { env })).stdout);
    expect(two.results.map((r: { pr: number }) => r.pr)).toEqual([43, 42]);
    expect(two.pr).toBeUndefined();
  });

  it('a bulk run with a failure: ok is false and exitCode is the most severe', async () => {
    fake.on('POST /cancelPullRequest', { status: 200, body: 'OK' }, { status: 404, body: 'not in queue' });
    // 42 is cancelled now; 43 was never submitted (an already-cancelled PR would be exit 0).
    fake.on(
      'POST /getSubmittedPullRequest',
      { status: 200, body: record(42, 'cancelled') },
      { status: 404, body: 'not found' },
    );
    const r = await runMq(['cancel', '42', '43', '--parallel', '1', '--json'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(3);
    const doc = JSON.parse(r.stdout);
    expect([doc.ok, doc.exitCode, doc.results.map((x: { ok: boolean }) => x.ok)]).toEqual([false, 3, [true, false]]);
  });

  it('status with a PR never submitted: ok false, exit 3, same keys', async () => {
    fake.on('POST /getSubmittedPullRequests', {
      status: 200,
      body: { pullRequests: [record(42)], notFound: [{ number: 44 }] },
    });
    const r = await runMq(['status', '42', '44', '--json'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(3);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(sorted(['ok', 'exitCode', 'results', 'pullRequests', 'notFound']));
    expect([doc.ok, doc.notFound]).toEqual([false, [44]]);
  });

  it('--dry-run: `requests` always; `request` too with one PR', async () => {
    const env = baseEnv(fake.url);
    const one = JSON.parse((await runMq(['submit', '42', '--dry-run', '--json'], { env })).stdout);
    const two = JSON.parse((await runMq(['submit', '42', '43', '--dry-run', '--json'], { env })).stdout);
    expect(Object.keys(one).sort()).toEqual(['dryRun', 'request', 'requests']);
    expect(Object.keys(two).sort()).toEqual(['dryRun', 'requests']);
    expect(one.requests).toEqual([one.request]);
    expect(two.requests).toHaveLength(2);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('mq --version --json', () => {
  it('prints one JSON document naming the package, its version and the Node.js it runs on', async () => {
    const { name } = (await import('../../package.json', { with: { type: 'json' } })).default;
    for (const args of [
      ['--version', '--json'],
      ['--json', '-V'],
      ['-V', '-o', 'json'],
    ]) {
      const r = await runMq(args);
      expect(r.exitCode).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(Object.keys(doc)).toEqual(['name', 'version', 'node', 'platform', 'arch']);
      expect(doc).toMatchObject({ name, node: process.versions.node, platform: process.platform });
    }
    const plain = await runMq(['--version']);
    expect(plain.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });
});

describe('a value the service nests too deep for the stack', () => {
  it('is cut with a marker in --json, never a crash', async () => {
    let deep = '1';
    for (let i = 0; i < 6000; i++) deep = `{"a":${deep}}`;
    const pr = JSON.stringify(record(42));
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: `${pr.slice(0, -1)},"extra":${deep}}` });
    const r = await runMq(['status', '42', '--json'], { env: baseEnv(fake.url) });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.state).toBe('testing');
    let level = findExtra(doc);
    let depth = 0;
    while (typeof level === 'object' && level !== null) {
      level = (level as { a?: unknown }).a;
      depth++;
    }
    expect(level).toBe('[nested deeper than 64 levels: not shown]');
    expect(depth).toBeLessThan(64);
  });
});

function findExtra(doc: unknown): unknown {
  if (!doc || typeof doc !== 'object') return undefined;
  if ('extra' in doc) return (doc as { extra: unknown }).extra;
  for (const v of Object.values(doc)) {
    const found = findExtra(v);
    if (found !== undefined) return found;
  }
  return undefined;
}
