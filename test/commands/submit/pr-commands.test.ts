import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, TOKEN } from '../../helpers/run-cli.js';
import { runMq } from '../../helpers/in-process.js';
import { PR_RECORD, usePrServer } from '../../helpers/pr-server.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

const { fake, env } = usePrServer();

describe('requests on the wire', () => {
  const cases: Array<{ name: string; args: string[]; path: string; body: unknown }> = [
    {
      name: 'submit',
      args: ['submit', '42'],
      path: '/submitPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42 } },
    },
    {
      name: 'submit with priority name and --no-batch',
      args: ['submit', '#42', '--priority', 'HIGH', '--no-batch'],
      path: '/submitPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42 }, priority: 'high', noBatch: true },
    },
    {
      name: 'submit with numeric priority',
      args: ['submit', '7', '-p', '255'],
      path: '/submitPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 7 }, priority: 255 },
    },
    {
      name: 'cancel',
      args: ['cancel', '42'],
      path: '/cancelPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42 } },
    },
    {
      name: 'restart',
      args: ['restart', '42'],
      path: '/restartTestsOnPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42 } },
    },
    {
      name: 'status',
      args: ['status', '42'],
      path: '/getSubmittedPullRequest',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42 }, includeTimeline: true },
    },
    {
      name: 'targets list',
      args: ['targets', '42', '--sha', 'abc1234', '--target', '//a', '-t', '//b'],
      path: '/setImpactedTargets',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42, sha: 'abc1234' }, impactedTargets: ['//a', '//b'] },
    },
    {
      name: 'targets ALL',
      args: ['targets', '42', '--sha', 'abc1234', '--all'],
      path: '/setImpactedTargets',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42, sha: 'abc1234' }, impactedTargets: 'ALL' },
    },
    {
      name: 'targets none',
      args: ['targets', '42', '--sha', 'abc1234', '--none'],
      path: '/setImpactedTargets',
      body: { repo: REPO, targetBranch: 'main', pr: { number: 42, sha: 'abc1234' }, impactedTargets: [] },
    },
    {
      name: 'explicit --repo with host and --branch',
      args: ['status', '9', '--repo', 'ghe.example.com/Org/Repo', '--branch', 'release'],
      path: '/getSubmittedPullRequest',
      body: {
        repo: { host: 'ghe.example.com', owner: 'Org', name: 'Repo' },
        targetBranch: 'release',
        pr: { number: 9 },
        includeTimeline: true,
      },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await runMq(c.args, { env: env() });
      expect(r.stderr).not.toContain('mq:');
      expect(r.exitCode).toBe(0);
      const sent = fake.requests.find((q) => q.path === c.path);
      expect(sent, `request to ${c.path}`).toBeDefined();
      expect(sent?.method).toBe('POST');
      expect(sent?.body).toEqual(c.body);
      expect(sent?.headers['x-api-token']).toBe(TOKEN);
      expect(sent?.headers['content-type']).toBe('application/json');
      expect(sent?.headers['user-agent']).toMatch(/^mq\/\d+\.\d+\.\d+/);
    });
  }
});

describe('mq targets --file', () => {
  it.each([
    ['an empty file', ''],
    ['only comments and blank lines', '# generated\n\n   \n'],
    ['an empty JSON array', '[]'],
  ])('refuses %s unless --none says so (exit 2, nothing sent)', async (_name, content) => {
    const cwd = tempDir('mq-targets-');
    writeFileSync(join(cwd, 'targets.txt'), content);
    const r = await runMq(['targets', '42', '--sha', 'abc1234', '--file', 'targets.txt'], { env: env(), cwd });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--file: targets.txt lists no targets');
    expect(r.stderr).toContain('--none');
    expect(fake.requests).toHaveLength(0);
  });

  it('sends the targets a file lists', async () => {
    const cwd = tempDir('mq-targets-');
    writeFileSync(join(cwd, 'targets.txt'), '# one per line\n//a\n\n//b\n');
    const r = await runMq(['targets', '42', '--sha', 'abc1234', '--file', 'targets.txt'], { env: env(), cwd });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.at(-1)?.body).toMatchObject({ impactedTargets: ['//a', '//b'] });
  });
});

describe('mutation success bodies', () => {
  for (const [name, reply] of [
    ['OK text', { status: 200, body: 'OK' }],
    ['empty', { status: 200, body: '' }],
    ['empty JSON object', { status: 200, body: {} }],
    ['202 with JSON', { status: 202, body: { accepted: true } }],
  ] as const) {
    it(`submit accepts ${name}`, async () => {
      fake.on('POST /submitPullRequest', reply);
      const r = await runMq(['submit', '42', '--json'], { env: env() });
      expect(r.exitCode).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc).toMatchObject({
        pr: 42,
        ok: true,
        action: 'submit',
        targetBranch: 'main',
        repo: 'github.com/acme/widgets',
      });
      expect(r.stderr).toContain('submitted PR #42');
    });
  }

  it('cancel reports the state the PR is left in', async () => {
    fake.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: { ...PR_RECORD, state: 'cancelled', isCurrentlySubmittedToQueue: false },
    });
    const r = await runMq(['cancel', '42', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ pr: 42, ok: true, state: 'cancelled' });
    expect(r.stderr).toContain('it is now cancelled');
  });
});

describe('error statuses', () => {
  const cases: Array<{ name: string; reply: { status: number; body?: string }; exit: number; message: RegExp }> = [
    {
      name: '400',
      reply: { status: 400, body: 'pr.number must be an integer' },
      exit: 5,
      message: /HTTP 400: pr.number must be an integer/,
    },
    { name: '401', reply: { status: 401, body: 'Unauthorized' }, exit: 4, message: /HTTP 401: Unauthorized/ },
    { name: '403', reply: { status: 403, body: 'Forbidden' }, exit: 4, message: /HTTP 403/ },
    {
      name: '404',
      reply: { status: 404, body: 'PR not found in queue' },
      exit: 3,
      message: /HTTP 404: PR not found in queue/,
    },
    { name: '409', reply: { status: 409, body: 'already queued' }, exit: 5, message: /HTTP 409: already queued/ },
    { name: '413', reply: { status: 413, body: 'too large' }, exit: 5, message: /HTTP 413/ },
    { name: '500 every time', reply: { status: 500, body: 'boom' }, exit: 6, message: /HTTP 500: boom/ },
  ];
  for (const c of cases) {
    it(`${c.name} -> exit ${c.exit}`, async () => {
      fake.on('POST /submitPullRequest', c.reply);
      const r = await runMq(['submit', '42'], { env: env() });
      expect(r.exitCode).toBe(c.exit);
      expect(r.stderr).toMatch(/^mq: submit PR #42: /);
      expect(r.stderr).toMatch(c.message);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('401 hints at mq auth login', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 401, body: 'bad token' });
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.stderr).toContain('hint: check the token with `mq auth status`');
  });

  it('caps a long error body at 2 KB', async () => {
    fake.on('POST /submitPullRequest', { status: 400, body: 'x'.repeat(10_000) });
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr.length).toBeLessThan(2600);
    expect(r.stderr).toContain('more characters');
  });

  it('429 then 200 is retried and succeeds (submit is idempotent)', async () => {
    fake.on(
      'POST /submitPullRequest',
      { status: 429, body: 'slow down', headers: { 'retry-after': '0' } },
      { status: 200, body: 'OK' },
    );
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.filter((q) => q.path === '/submitPullRequest')).toHaveLength(2);
  });

  it('500 is retried 3 times for a read, then exit 6', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 500, body: 'boom' });
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(fake.requests.filter((q) => q.path === '/getSubmittedPullRequest')).toHaveLength(4);
  });

  it('500 on a non-idempotent cancel is not retried', async () => {
    fake.on('POST /cancelPullRequest', { status: 500, body: 'boom' });
    const r = await runMq(['cancel', '42'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(fake.requests.filter((q) => q.path === '/cancelPullRequest')).toHaveLength(1);
    expect(r.stderr).toContain('may or may not have taken effect');
  });

  it('a JSON error document accompanies --json failures', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'nope' });
    const r = await runMq(['status', '42', '--json'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { exitCode: 3 } });
  });
});

describe('network failures', () => {
  it('connection refused: retried, then exit 6 naming the host', async () => {
    const e = { ...env(), MQ_API_URL: 'http://127.0.0.1:1/v1' };
    const r = await runMq(['status', '42'], { env: e });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/cannot connect to 127\.0\.0\.1:1 \(ECONNREFUSED\) \(4 attempts\)/);
  });

  it('a server that never answers times out: exit 6', async () => {
    fake.on('POST /getSubmittedPullRequest', { hang: true });
    const started = Date.now();
    const r = await runMq(['status', '42', '--timeout', '300ms'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('no answer from');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a non-idempotent write that times out is reported as outcome unknown, once', async () => {
    fake.on('POST /restartTestsOnPullRequest', { hang: true });
    const r = await runMq(['restart', '42', '--timeout', '300ms'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('outcome unknown');
    expect(r.stderr).toContain('mq status');
    expect(fake.requests.filter((q) => q.path === '/restartTestsOnPullRequest')).toHaveLength(1);
  });
});
