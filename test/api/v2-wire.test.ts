/**
 * The v2 wire against the recording fake (issue 30): what it sends (Bearer, paths, bodies), how many
 * requests a command costs with a cold and a warm id cache, every documented error code's exit code
 * with the request id printed, and a kept id the service no longer knows.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { V2_ERROR_CODES } from '../../src/api/v2/error-codes.js';
import { EXIT_CODES } from '../../src/errors.js';
import { type Recorded, useFakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv } from '../helpers/run-cli.js';

const fake = useFakeServer();
const KEY = 'trunk_v2_0123456789abcdef0123456789abcdef';
const REPO = '11111111-2222-4333-8444-555555555555';
const PR5 = '66666666-7777-4888-8999-000000000005';

function pr(state: string, extra: Record<string, unknown> = {}) {
  return {
    id: PR5,
    repositoryId: REPO,
    number: 5,
    title: 'Add widgets',
    branch: 'widgets',
    sha: 'abc1234',
    baseBranch: 'main',
    author: 'octocat',
    isCurrentlySubmittedToQueue: state !== 'cancelled',
    createdAt: '2026-11-25T10:00:00Z',
    queueEntry: {
      id: 'entry-5',
      mergeQueueId: 'qMain001',
      state,
      stateChangedAt: '2026-11-25T10:00:00Z',
      priorityValue: 100,
      priorityName: 'medium',
      skipsTheLine: false,
      allowBatching: true,
      direct: false,
      readiness: { hasImpactedTargets: false, requiresImpactedTargets: false, doesBaseBranchMatch: true },
      createdAt: '2026-11-25T10:00:00Z',
      updatedAt: '2026-11-25T10:00:00Z',
      ...extra,
    },
  };
}

const page = (data: unknown[]) => ({ data, nextCursor: null, hasMore: false });
let env: Record<string, string | undefined>;

beforeEach(() => {
  env = { ...baseEnv(fake.url), MQ_API_URL: fake.url.replace(/\/v1$/, ''), MQ_TOKEN: KEY };
  fake.on('GET /v2/repositories', { status: 200, body: page([{ id: REPO }]) });
  fake.on('GET /v2/merge-queues', { status: 200, body: page([{ id: 'qMain001' }]) });
  fake.on('GET /v2/pull-requests', { status: 200, body: page([pr('pending')]) });
  fake.on(`GET /v2/pull-requests/${PR5}`, { status: 200, body: pr('pending') });
  fake.on(`POST /v2/pull-requests/${PR5}/dequeue`, { status: 200, body: pr('cancelled') });
  fake.on(`POST /v2/pull-requests/${PR5}/restart-tests`, { status: 200, body: pr('pending') });
});

const routes = (from = 0): string[] => fake.requests.slice(from).map((r: Recorded) => `${r.method} ${r.path}`);

describe('what the v2 wire sends', () => {
  it('a trunk_v2_ key goes as a Bearer credential to /v2 paths, never as x-api-token', async () => {
    const r = await runMq(['cancel', '5'], { env });
    expect(r.stderr).toContain('✓ cancelled PR #5');
    expect(r.exitCode).toBe(0);
    for (const req of fake.requests) {
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(req.headers['x-api-token']).toBeUndefined();
      expect(req.path.startsWith('/v2/')).toBe(true);
    }
    expect(fake.requests[0]?.query).toEqual({ providerUrl: 'https://github.com/acme/widgets' });
  });

  it('--debug shows the request id and never the key', async () => {
    fake.on(`POST /v2/pull-requests/${PR5}/dequeue`, {
      status: 200,
      body: pr('cancelled'),
      headers: { 'x-request-id': 'req-abc-123' },
    });
    const r = await runMq(['cancel', '5', '--debug'], { env });
    expect(r.stderr).toContain('< x-request-id: req-abc-123');
    expect(r.stderr).toContain('authorization: Bearer ***');
    expect(r.stderr).not.toContain(KEY);
  });

  it('targets: PUT /v2/impacted-targets with the repository id; --all is impactsAllTargets', async () => {
    fake.on('PUT /v2/impacted-targets', { status: 202 });
    const sha = 'a'.repeat(40);
    expect((await runMq(['targets', '5', '--sha', sha, '--all'], { env })).exitCode).toBe(0);
    expect((await runMq(['targets', '5', '--sha', sha, '-t', 'app', '-t', 'lib'], { env })).exitCode).toBe(0);
    const puts = fake.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((p) => p.body)).toEqual([
      { repositoryId: REPO, targetBranch: 'main', number: 5, sha, impactsAllTargets: true },
      { repositoryId: REPO, targetBranch: 'main', number: 5, sha, impactedTargets: ['app', 'lib'] },
    ]);
  });

  it('resubmitting a live PR with a new priority patches its entry (v2 refuses the resubmit)', async () => {
    fake.on('POST /v2/merge-queues/qMain001/pull-requests', {
      status: 409,
      body: { error: { code: 'PR_ALREADY_ENQUEUED', message: 'already queued' } },
    });
    fake.on(`PATCH /v2/pull-requests/${PR5}/queue-entry`, { status: 200, body: pr('pending') });
    fake.on('GET /v2/merge-queues/qMain001', { status: 200, body: { id: 'qMain001', state: 'running' } });
    const r = await runMq(['submit', '5', '--priority', 'urgent'], { env });
    expect(r.stderr).toContain('✓ submitted PR #5');
    const patch = fake.requests.find((q) => q.method === 'PATCH');
    expect(patch?.body).toEqual({ priorityName: 'urgent' });
  });
});

describe('requests per command, cold and warm id cache', () => {
  it('cancel: 4 requests cold, 2 warm (as v1): the entry is checked, and the dequeue answer is the state shown', async () => {
    await runMq(['cancel', '5'], { env });
    expect(routes().sort()).toEqual(
      [
        'GET /v2/repositories',
        'GET /v2/pull-requests',
        'GET /v2/merge-queues',
        `POST /v2/pull-requests/${PR5}/dequeue`,
      ].sort(),
    );
    const warm = fake.requests.length;
    const r = await runMq(['cancel', '5'], { env });
    expect(r.stderr).toContain('it is now cancelled');
    expect(routes(warm)).toEqual([`GET /v2/pull-requests/${PR5}`, `POST /v2/pull-requests/${PR5}/dequeue`]);
  });

  it('the id cache is one 0600 file per API origin in the cache directory', async () => {
    await runMq(['restart', '5'], { env });
    const dir = join(env.HOME as string, '.cache', 'mq', 'ids');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const file = join(dir, files[0] as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      'repo github.com/acme/widgets': REPO,
      [`queue ${REPO} main`]: 'qMain001',
      [`pr ${REPO} 5`]: PR5,
    });
  });

  it('a kept PR id the service answers 404 for is resolved again, once', async () => {
    await runMq(['restart', '5'], { env });
    const NEW = '66666666-7777-4888-8999-000000000099';
    fake.on(`GET /v2/pull-requests/${PR5}`, {
      status: 404,
      body: { error: { code: 'PR_NOT_FOUND', message: 'no such pull request' } },
    });
    fake.on('GET /v2/pull-requests', { status: 200, body: page([{ ...pr('pending'), id: NEW }]) });
    fake.on(`POST /v2/pull-requests/${NEW}/restart-tests`, { status: 200, body: { ...pr('pending'), id: NEW } });
    const from = fake.requests.length;
    const r = await runMq(['restart', '5'], { env });
    expect(r.exitCode).toBe(0);
    expect(routes(from)).toEqual([
      `GET /v2/pull-requests/${PR5}`,
      'GET /v2/pull-requests',
      `POST /v2/pull-requests/${NEW}/restart-tests`,
    ]);
  });

  it('a PR whose entry is in another queue is not in this one (exit 3) and is not dequeued', async () => {
    fake.on('GET /v2/pull-requests', { status: 200, body: page([pr('pending', { mergeQueueId: 'qOther' })]) });
    const r = await runMq(['cancel', '5'], { env });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('PR #5 is not in the merge queue for main');
    expect(routes().filter((x) => x.startsWith('POST'))).toEqual([]);
  });
});

describe('every documented error code', () => {
  const statusOf: Record<string, number> = {};
  for (const [status, codes] of Object.entries({
    400: ['VALIDATION_FAILED', 'INVALID_CURSOR'],
    401: ['AUTHENTICATION_REQUIRED', 'INVALID_TOKEN'],
    403: ['INSUFFICIENT_PERMISSIONS'],
    404: [
      'NOT_FOUND',
      'MERGE_QUEUE_NOT_FOUND',
      'PR_NOT_FOUND',
      'REPOSITORY_NOT_FOUND',
      'VERIFICATION_RUN_NOT_FOUND',
      'PROVIDER_URL_NOT_FOUND',
      'ESTIMATE_NOT_ENABLED',
    ],
    409: [
      'PR_ALREADY_ENQUEUED',
      'PR_NOT_IN_ACTIVE_STATE',
      'QUEUE_ALREADY_EXISTS',
      'QUEUE_HAS_ACTIVE_ENTRIES',
      'MODE_CHANGE_IN_PROGRESS',
    ],
    422: [
      'PR_NOT_ENQUEUEABLE',
      'PR_TESTS_NOT_RESTARTABLE',
      'MERGE_QUEUE_NOT_CREATABLE',
      'ALLOWED_BOT_SUBMITTERS_FROZEN',
      'IMPACTED_TARGETS_UNSUPPORTED',
    ],
    429: ['RATE_LIMIT_EXCEEDED'],
    500: ['INTERNAL_ERROR'],
    502: ['UPSTREAM_ERROR'],
  }))
    for (const code of codes) statusOf[code] = Number(status);

  it('the table covers exactly the documented codes', () => {
    expect(Object.keys(V2_ERROR_CODES).sort()).toEqual(Object.keys(statusOf).sort());
  });

  // The README's table, written out: conflicts and refusals 5, credentials 4, not found 3, busy 6.
  const EXIT_BY_STATUS: Record<number, number> = {
    400: 5,
    401: 4,
    403: 4,
    404: 3,
    409: 5,
    422: 5,
    429: 6,
    500: 6,
    502: 6,
  };
  for (const code of Object.keys(V2_ERROR_CODES)) {
    const exit = EXIT_BY_STATUS[statusOf[code] as number] as number;
    const name = EXIT_CODES.find((e) => e.code === exit)?.name;
    it(`${code} (HTTP ${statusOf[code]}) exits ${exit} (${name}), with the code and the request id`, async () => {
      fake.on('PUT /v2/impacted-targets', {
        status: statusOf[code] as number,
        body: { error: { code, message: `because ${code.toLowerCase()}` } },
        headers: { 'x-request-id': 'rq-42' },
      });
      const r = await runMq(['targets', '5', '--sha', 'abc1234', '--all'], { env });
      expect(r.exitCode).toBe(exit);
      expect(r.stderr).toContain(`HTTP ${statusOf[code]}: ${code}: because ${code.toLowerCase()} (request id rq-42)`);
    });
  }

  it('an unknown code keeps its status exit code and is shown as sent', async () => {
    fake.on(`POST /v2/pull-requests/${PR5}/restart-tests`, {
      status: 409,
      body: { error: { code: 'QUEUE_ON_FIRE', message: 'new in v2.1' } },
    });
    const r = await runMq(['restart', '5'], { env });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('HTTP 409: QUEUE_ON_FIRE: new in v2.1');
  });

  it('INSUFFICIENT_PERMISSIONS names the permission the command needs', async () => {
    fake.on(`POST /v2/pull-requests/${PR5}/restart-tests`, {
      status: 403,
      body: { error: { code: 'INSUFFICIENT_PERMISSIONS', message: 'not allowed' } },
    });
    const r = await runMq(['restart', '5'], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('"Merge and cancel PRs" permission');
  });
});

describe('choosing the API on the command line', () => {
  it('--api v3 is refused with the choices, nothing sent (exit 2)', async () => {
    const r = await runMq(['--api', 'v3', 'cancel', '5'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("argument 'v3' is invalid. Allowed choices are v1, v2, auto.");
    expect(fake.requests).toEqual([]);
  });

  it('--api v1 with a v2 key: refused before sending (exit 7)', async () => {
    const r = await runMq(['--api', 'v1', 'cancel', '5'], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('works only on the v2 API');
    expect(fake.requests).toEqual([]);
  });

  it('MQ_API=v1 with an organization token and a bare URL speaks v1 there', async () => {
    fake.on('POST /v1/cancelPullRequest', { status: 200, body: 'OK' });
    fake.on('POST /cancelPullRequest', { status: 200, body: 'OK' });
    const r = await runMq(['cancel', '5', '--dry-run', '--json'], {
      env: { ...env, MQ_TOKEN: 'org-1234', MQ_API: 'v1' },
    });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).requests[0].url).toBe(`${env.MQ_API_URL}/cancelPullRequest`);
  });

  it('profile set api v2 is kept; a bad value is refused (exit 2)', async () => {
    expect((await runMq(['profile', 'set', 'api', 'v2'], { env })).exitCode).toBe(0);
    const show = await runMq(['profile', 'show', '--json'], { env });
    expect(show.stdout).toContain('"v2"');
    const bad = await runMq(['profile', 'set', 'api', 'v9'], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"v9" is not an API version; expected v1, v2 or auto');
  });
});

describe('writes Trunk cannot deduplicate are read back before they are sent again', () => {
  it('a dequeue answered 500 that did take effect is not sent again', async () => {
    await runMq(['restart', '5'], { env }); // warm the ids
    fake.on(`POST /v2/pull-requests/${PR5}/dequeue`, {
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'oops' } },
    });
    fake.on(
      `GET /v2/pull-requests/${PR5}`,
      { status: 200, body: pr('pending') },
      { status: 200, body: pr('cancelled') },
    );
    const from = fake.requests.length;
    const r = await runMq(['cancel', '5'], { env });
    expect(r.exitCode).toBe(0);
    expect(routes(from).filter((x) => x.startsWith('POST'))).toHaveLength(1);
  });

  it('one that did not take effect is sent once more', async () => {
    await runMq(['restart', '5'], { env });
    fake.on(
      `POST /v2/pull-requests/${PR5}/dequeue`,
      { status: 502, body: { error: { code: 'UPSTREAM_ERROR', message: 'later' } } },
      { status: 200, body: pr('cancelled') },
    );
    const from = fake.requests.length;
    const r = await runMq(['cancel', '5'], { env });
    expect(r.exitCode).toBe(0);
    expect(routes(from).filter((x) => x.startsWith('POST'))).toHaveLength(2);
  });

  it('dequeuing a PR that is no longer live is not found (exit 3), as on v1', async () => {
    fake.on(`POST /v2/pull-requests/${PR5}/dequeue`, {
      status: 409,
      body: { error: { code: 'PR_NOT_IN_ACTIVE_STATE', message: 'merged' } },
    });
    const r = await runMq(['cancel', '5'], { env });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('PR #5 is not in the merge queue for main');
  });
});

describe('the README', () => {
  it('lists every v2 error code with the exit code the table gives it', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const rows = [...readme.matchAll(/^\| (`[A-Z_]+`.*) \| (\d+) \|$/gm)];
    const documented = new Map<string, number>();
    for (const [, codes, exit] of rows)
      for (const m of (codes as string).matchAll(/`([A-Z_]+)`/g)) documented.set(m[1] as string, Number(exit));
    expect(Object.fromEntries(documented)).toEqual(V2_ERROR_CODES);
  });
});
