import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { baseEnv, runCli, TOKEN, tempDir } from '../helpers/run-cli.js';

/**
 * Proxies, through a real forward proxy. The service is reached as `mq.test` (a name that is not
 * loopback, so proxies apply to it); fake-dns.mjs makes that name 127.0.0.1 inside the CLI and the
 * proxy does the same. Every case runs with each transport forced for the direct connections
 * (proxied ones always go through undici).
 */
const FAKE_DNS = resolve(import.meta.dirname, '../helpers/fake-dns.mjs');
const HOST = 'mq.test';

const fake = useFakeServer();
let proxy: ForwardProxy;
beforeAll(async () => {
  fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 1 } });
  // `mq status 1` reads the queue's order alongside the PR (its place): two requests.
  fake.on('POST /getQueue', { status: 200, body: { state: 'running', enqueuedPullRequests: [{ prNumber: 1 }] } });
  proxy = await startForwardProxy([HOST]);
});
afterAll(async () => {
  await proxy.close();
});
beforeEach(() => {
  proxy.seen.length = 0;
  proxy.auth.length = 0;
  proxy.mode = 'relay';
  fake.requests.length = 0;
});

const serviceUrl = () => `http://${HOST}:${fake.port}/v1`;

describe.each(['node', 'undici'] as const)('proxies (direct connections: %s transport)', (transport) => {
  const env = (extra: Record<string, string>) => ({
    ...baseEnv(serviceUrl()),
    NODE_OPTIONS: `--import=${FAKE_DNS}`,
    MQ_TEST_HOSTS: HOST,
    MQ_TEST_TRANSPORT: transport,
    ...extra,
  });
  const status = (extra: Record<string, string>, args: string[] = []) =>
    runCli(['status', '1', '--insecure-http', '--debug', ...args], { env: env(extra) });

  it('HTTP_PROXY carries the request, through undici', async () => {
    const r = await status({ HTTP_PROXY: proxy.url });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${HOST}:${fake.port}`]));
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe(TOKEN);
    expect(r.stderr).toContain(`(undici, through the proxy ${new URL(proxy.url).host})`);
  });

  it('a targets file (a streamed body, Windows line ends) goes through the proxy', async () => {
    fake.on('POST /setImpactedTargets', { status: 200, body: {} });
    const targets = Array.from({ length: 30_000 }, (_, i) => `//svc/p${i}:t`);
    const file = resolve(tempDir('mq-proxy-targets-'), 'targets.txt');
    writeFileSync(file, `${targets.join('\r\n')}\r\n`);
    const r = await runCli(['targets', '1', '--sha', 'abc1234', '--file', file, '--insecure-http'], {
      env: env({ HTTP_PROXY: proxy.url }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // The upload and the read of the PR's head (for the --sha check) both go through the proxy.
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${HOST}:${fake.port}`]));
    const upload = fake.requests.find((q) => q.path === '/setImpactedTargets');
    expect((upload?.body as { impactedTargets?: string[] } | undefined)?.impactedTargets).toEqual(targets);
  });

  it('NO_PROXY bypasses it: the service is reached directly with the forced transport', async () => {
    const r = await status({ HTTP_PROXY: proxy.url, NO_PROXY: `example.com,.${HOST}` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
    expect(fake.requests.map((q) => q.path).sort()).toEqual(['/getQueue', '/getSubmittedPullRequest']);
    expect(r.stderr).toContain(`/getSubmittedPullRequest (${transport})`);
  });

  it('loopback is never proxied: localhost, 127.0.0.1 and [::1] go direct whatever HTTP(S)_PROXY say', async () => {
    const proxies = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, http_proxy: proxy.url };
    for (const host of ['127.0.0.1', 'localhost']) {
      const r = await runCli(['status', '1'], {
        env: { ...env(proxies), MQ_API_URL: `http://${host}:${fake.port}/v1` },
      });
      expect(r.exitCode, `${host}: ${r.stderr}`).toBe(0);
    }
    // Nothing listens on [::1] (test servers are on 127.0.0.1 only): refused, but never proxied.
    const r = await runCli(['status', '1'], { env: { ...env(proxies), MQ_API_URL: `http://[::1]:${fake.port}/v1` } });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(`cannot connect to [::1]:${fake.port}`);
    expect(proxy.seen).toEqual([]);
    expect(fake.requests.map((q) => q.headers['x-api-token'])).toEqual([TOKEN, TOKEN, TOKEN, TOKEN]);
  });

  it('a proxy that never answers is bounded by --timeout (exit 6)', async () => {
    proxy.mode = 'silent';
    const r = await status({ HTTP_PROXY: proxy.url }, ['--timeout', '500ms']);
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/mq: get PR #1: no answer from mq\.test:\d+ within 500 ms/);
    expect(fake.requests).toHaveLength(0);
  });

  it('a proxy answering 407 is exit 4, "the proxy refused the credentials", tried once, nothing sent on', async () => {
    proxy.mode = 'auth';
    const withCredentials = proxy.url.replace('http://', 'http://alice:s3cret-pw@');
    const r = await status({ HTTP_PROXY: withCredentials });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/mq: get PR #1: the proxy 127\.0\.0\.1:\d+ refused the credentials \(HTTP 407\)/);
    expect(r.stderr).toContain('hint: check the user and password in HTTPS_PROXY');
    expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
    // Once for each of the two reads.
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.auth[0]).toBe(`Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`);
    expect(fake.requests).toHaveLength(0);
  });

  it('a proxy that drops every tunnel costs one CONNECT per attempt of each read, then exit 6', async () => {
    proxy.mode = 'drop';
    const r = await status({ HTTP_PROXY: proxy.url });
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toMatch(
      /mq: get PR #1: the proxy 127\.0\.0\.1:\d+ closed the connection before opening a tunnel to mq\.test:\d+ \(4 attempts\)/,
    );
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${HOST}:${fake.port}`]));
    // The PR's 4 attempts, and the order's, cut short when the command ends.
    expect(proxy.seen.length).toBeGreaterThanOrEqual(5);
    expect(proxy.seen.length).toBeLessThanOrEqual(8);
  });

  it('a write through a proxy that drops the tunnel is retried (nothing reached the service) and never doubled', async () => {
    proxy.mode = 'drop';
    const r = await runCli(['cancel', '1', '--insecure-http'], { env: env({ HTTP_PROXY: proxy.url }) });
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).not.toContain('outcome unknown');
    expect(proxy.seen).toHaveLength(4);
  });

  it('an unreachable proxy is named as the proxy', async () => {
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await status({ HTTP_PROXY: `http://127.0.0.1:${port}` });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      `mq: get PR #1: cannot connect to the proxy 127.0.0.1:${port} (ECONNREFUSED) (4 attempts)`,
    );
  });
});

describe('the code cache behind a proxy', () => {
  it('a proxied run (undici, whose V8 flag changes the cache format) still leaves a cache the next run uses', async () => {
    const cacheDir = tempDir('mq-v8-proxy-');
    const hook = resolve(import.meta.dirname, '../helpers/record-loads.cjs');
    const run = async () => {
      const log = resolve(tempDir('mq-loads-'), 'loads.txt');
      const r = await runCli(['status', '1', '--insecure-http'], {
        env: {
          ...baseEnv(serviceUrl()),
          NODE_OPTIONS: `--import=${FAKE_DNS} --require=${hook}`,
          MQ_TEST_HOSTS: HOST,
          HTTP_PROXY: proxy.url,
          MQ_COMPILE_CACHE_DIR: cacheDir,
          MQ_LOAD_LOG: log,
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[1]);
    };
    const first = await run();
    expect(first.every((c) => c === 'miss')).toBe(true);
    expect(first).toContain('miss');
    const second = await run();
    expect(second).toEqual(first.map(() => 'hit'));
  });
});
