import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, runCli, TOKEN } from '../helpers/run-cli.js';

/** Where the token may go (a stored token stays with its service) and what an API URL may be. */
const fake = useFakeServer();
const other = useFakeServer();
beforeEach(() => {
  for (const f of [fake, other])
    f.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 1 } });
});

const TARGET = ['-R', 'acme/widgets', '-B', 'main'];

/** An environment whose only token is the one stored by `auth login` (with `--api-url url` if given). */
async function loggedIn(url?: string): Promise<Record<string, string | undefined>> {
  const env = baseEnv();
  const r = await runCli([...(url ? ['--api-url', url] : []), 'auth', 'login', '--with-token'], {
    env,
    input: `${TOKEN}\n`,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  // auth login checks the token once with the service it stores it for; what follows counts afresh.
  if (url === fake.url) expect(fake.requests.map((q) => q.path)).toEqual(['/getSubmittedPullRequest']);
  fake.requests.length = 0;
  other.requests.length = 0;
  return env;
}

const sent = () => fake.requests.length + other.requests.length;

describe('a stored token stays with its service', () => {
  it('MQ_API_URL pointing at another origin: exit 7 with a hint, nothing sent', async () => {
    const env = await loggedIn(fake.url);
    const r = await runCli(['status', '1', ...TARGET], { env: { ...env, MQ_API_URL: other.url } });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain(
      `mq: configuration: the token of profile "default" is for http://127.0.0.1:${fake.port}; mq will not send it to http://127.0.0.1:${other.port} (API URL from env MQ_API_URL)`,
    );
    expect(r.stderr).toContain('hint: set MQ_TOKEN to a token for that service');
    expect(r.stderr).toContain('hint: or make a profile for it');
    expect(sent()).toBe(0);
  });

  it('--api-url pointing at another origin (same host, other port; or localhost for 127.0.0.1): exit 7, nothing sent', async () => {
    const env = await loggedIn(fake.url);
    for (const url of [other.url, fake.url.replace('127.0.0.1', 'localhost'), fake.url.replace('http:', 'https:')]) {
      const r = await runCli(['--api-url', url, 'status', '1', ...TARGET], { env });
      expect(r.exitCode, url).toBe(7);
      expect(r.stderr).toContain('(API URL from flag --api-url)');
    }
    const dry = await runCli(['--api-url', other.url, 'cancel', '1', '--dry-run', ...TARGET], { env });
    expect(dry.exitCode).toBe(7);
    expect(sent()).toBe(0);
  });

  it('the same origin under another path is the same service', async () => {
    const env = await loggedIn(fake.url);
    const r = await runCli(['--api-url', `http://127.0.0.1:${fake.port}/v1/`, 'status', '1', ...TARGET], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fake.requests[0]?.headers['x-api-token']).toBe(TOKEN);
  });

  it('a profile without an API URL holds a token for the default service only', async () => {
    const env = await loggedIn();
    const r = await runCli(['status', '1', ...TARGET], { env: { ...env, MQ_API_URL: fake.url } });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('is for https://api.trunk.io; mq will not send it to');
    expect(sent()).toBe(0);
  });

  it('auth status names the refusal (exit 7) and sends nothing', async () => {
    const env = await loggedIn(fake.url);
    const r = await runCli(['auth', 'status', ...TARGET], { env: { ...env, MQ_API_URL: other.url } });
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toContain('token_check\tfailed\n');
    expect(r.stdout).toContain('token_check_detail\tthe token of profile "default"');
    expect(sent()).toBe(0);
  });

  it('a token from MQ_TOKEN goes where the URL says', async () => {
    const env = await loggedIn(fake.url);
    const r = await runCli(['status', '1', ...TARGET], {
      env: { ...env, MQ_API_URL: other.url, MQ_TOKEN: 'tok_env_for_other_1' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(other.requests[0]?.headers['x-api-token']).toBe('tok_env_for_other_1');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the API URL is just a URL', () => {
  const SECRET = 's3cret-Pa55';

  it('a query string or a fragment from the flag or the environment: exit 2, nothing sent', async () => {
    const env = baseEnv(fake.url);
    for (const [args, extra] of [
      [['--api-url', `${fake.url}?tenant=1`], {}],
      [['--api-url', `${fake.url}?`], {}],
      [[], { MQ_API_URL: `${fake.url}#top` }],
      [[], { MQ_API_URL: `${fake.url}?a=b#c` }],
    ] as Array<[string[], Record<string, string>]>) {
      const r = await runCli([...args, 'status', '1'], { env: { ...env, ...extra } });
      expect(r.exitCode, JSON.stringify([args, extra])).toBe(2);
      expect(r.stderr).toMatch(
        /mq: usage: the API URL \(from (flag --api-url|env MQ_API_URL)\) must be a plain URL, without (a query string|a fragment)/,
      );
    }
    expect(sent()).toBe(0);
  });

  it('credentials in the URL are refused and never echoed, whatever the form', async () => {
    const env = baseEnv(fake.url);
    const urls = [
      `http://alice:${SECRET}@127.0.0.1:${fake.port}/v1`,
      `http://${SECRET}@127.0.0.1:${fake.port}/v1`,
      `http://alice:${SECRET}@[not-a-host/v1`,
      `alice:${SECRET}@127.0.0.1/v1`,
      `${SECRET}:x@127.0.0.1/v1`,
      `ht^tp://alice:${SECRET}@127.0.0.1/v1`,
      `http//alice:${SECRET}@127.0.0.1/v1`,
    ];
    for (const url of urls) {
      const byFlag = await runCli(['--api-url', url, 'status', '1'], { env });
      const byEnv = await runCli(['status', '1', '--json'], { env: { ...env, MQ_API_URL: url } });
      expect(byFlag.exitCode, url).toBe(2);
      // Text that is not an http(s) URL at all keeps its rule: exit 7 when it comes from the environment.
      expect(byEnv.exitCode, url).toBe(/\[not-a-host|^(?!http:\/\/)/.test(url) ? 7 : 2);
      for (const r of [byFlag, byEnv]) expect(r.stdout + r.stderr, url).not.toContain(SECRET);
    }
    expect(sent()).toBe(0);
  });

  it('a profile holding such a URL: exit 7, the credentials never shown', async () => {
    const env = baseEnv();
    const dir = env.MQ_CONFIG_DIR as string;
    mkdirSync(dir, { recursive: true });
    const url = `http://alice:${SECRET}@127.0.0.1:${fake.port}/v1?x=1`;
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ activeProfile: 'work', profiles: { work: { token: TOKEN, apiUrl: url } } }),
      { mode: 0o600 },
    );
    const r = await runCli(['status', '1', ...TARGET], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain(
      'mq: configuration: the API URL (from profile "work") must be a plain URL, without credentials (user:password@), a query string',
    );
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(sent()).toBe(0);
  });
});
