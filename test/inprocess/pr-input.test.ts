/**
 * Input the service would refuse is refused before sending (issue 25): PR number 0 for every PR
 * command, a --sha that is not a commit id; and the warning when --sha is not the PR's head.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv } from '../helpers/run-cli.js';

const SHA = '6b91931aedddd30582f9a457ddf459c5d3a97d1d';

const fake = useFakeServer();

const env = () => baseEnv(fake.url);

describe('PR number 0 (the service has no PR 0)', () => {
  it.each([
    ['submit', ['submit', '0']],
    ['submit, one of several', ['submit', '1', '#0']],
    ['cancel', ['cancel', '0']],
    ['restart', ['restart', '0']],
    ['status', ['status', '0']],
    ['status, one of several', ['status', '1', '0']],
    ['wait', ['wait', '0']],
    ['targets', ['targets', '0', '--sha', SHA, '--all']],
  ])('%s: exit 2, the argument and the rule named, nothing sent', async (_name, args) => {
    const r = await runMq(args, { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^mq: usage: PR number: "#?0" is not a PR number; expected an integer from 1 to 4294967295\n/,
    );
    expect(r.stderr).toContain('for example: mq ');
    expect(fake.requests).toEqual([]);
  });

  it('a list on stdin holding 0 is refused whole', async () => {
    const r = await runMq(['cancel', '-'], { env: env(), input: '3\n0\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('PR number: "0" is not a PR number');
    expect(fake.requests).toEqual([]);
  });

  it('in GitHub Actions, a run for refs/pull/0/merge is refused the same way', async () => {
    const r = await runMq(['targets', '--sha', SHA, '--all'], {
      env: { ...env(), GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/pull/0/merge' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('GITHUB_REF: "0" is not a PR number; expected an integer from 1');
    expect(fake.requests).toEqual([]);
  });

  it('queue testing refuses a test branch of PR 0', async () => {
    const r = await runMq(['queue', 'testing', 'trunk-merge/pr-0/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31'], {
      env: env(),
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mq: usage: test run: "trunk-merge\/pr-0\/[^"]+" names PR 0; PR numbers start at 1\n/);
    expect(fake.requests).toEqual([]);
  });
});

describe('--sha is a commit id', () => {
  it.each(['x', 'abc123', 'HEAD', 'main', 'g'.repeat(40), 'a'.repeat(65)])('%j: exit 2, nothing sent', async (sha) => {
    const r = await runMq(['targets', '3004', '--sha', sha, '--all'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `mq: usage: --sha: ${JSON.stringify(sha)} is not a commit sha; expected 7 to 64 hex digits\n`,
    );
    expect(r.stderr).toContain('hint: e.g. --sha "$(git rev-parse HEAD)"');
    expect(fake.requests).toEqual([]);
  });
});

describe('a --sha that is not the head of the PR the service knows', () => {
  const upload = ['targets', '42', '--sha', 'abc1234', '--all'];
  const record = (prSha: string) => ({ status: 200, body: { state: 'pending', prNumber: 42, prSha } });
  beforeEach(() => fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' }));

  it('uploads, then warns on stderr naming both shas (exit 0)', async () => {
    fake.on('POST /getSubmittedPullRequest', record(SHA));
    const r = await runMq(upload, { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      `✓ set impacted targets of PR #42 at abc1234: ALL\nwarning: --sha abc1234 is not the head of PR #42 as the service knows it (${SHA}); the PR waits for targets of its head\n`,
    );
    expect(fake.requests.find((q) => q.path === '/setImpactedTargets')?.body).toMatchObject({
      pr: { number: 42, sha: 'abc1234' },
    });
    expect(fake.requests.find((q) => q.path === '/getSubmittedPullRequest')?.body).toMatchObject({
      pr: { number: 42 },
    });
  });

  it('the service head is shown inert and bounded', async () => {
    fake.on('POST /getSubmittedPullRequest', record(`\u001b]0;pwned\u0007${'9'.repeat(200)}`));
    const r = await runMq(upload, { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('warning: --sha abc1234 is not the head of PR #42');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toContain('9'.repeat(65));
  });

  it.each([
    ['the head (any case)', record('ABC1234')],
    ['an unknown PR (404)', { status: 404, body: 'PR not found' }],
    ['a failed read (500)', { status: 500, body: 'boom' }],
    ['a record without a sha', { status: 200, body: { state: 'pending', prNumber: 42 } }],
    ['an answer that is not JSON', { status: 200, body: '<html>' }],
  ])('says nothing for %s', async (_name, reply) => {
    fake.on('POST /getSubmittedPullRequest', reply);
    const r = await runMq(upload, { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('✓ set impacted targets of PR #42 at abc1234: ALL\n');
  });

  it('a read that hangs costs at most one request time (--timeout), tried once', async () => {
    fake.on('POST /getSubmittedPullRequest', { hang: true });
    const r = await runMq([...upload, '--timeout', '300ms'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('✓ set impacted targets of PR #42 at abc1234: ALL\n');
    expect(fake.requests.filter((q) => q.path === '/getSubmittedPullRequest')).toHaveLength(1);
  });

  it('--dry-run reads nothing', async () => {
    const r = await runMq([...upload, '--dry-run'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests).toEqual([]);
  });

  it('a failed upload fails the command; the read adds nothing', async () => {
    fake.on('POST /setImpactedTargets', { status: 400, body: 'no' });
    fake.on('POST /getSubmittedPullRequest', record(SHA));
    const r = await runMq(upload, { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).not.toContain('warning:');
  });
});
