import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseEnv, runCli, TOKEN } from '../helpers/run-cli.js';

/**
 * A forward proxy that records what it is asked for and relays it: absolute-form requests, and
 * CONNECT tunnels (which is how undici's proxy agent reaches even plain-http targets).
 */
async function startProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const pass = ['content-type', 'x-api-token', 'user-agent'];
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => pass.includes(k))) as Record<string, string>;
      const upstream = await fetch(target, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  server.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

let fake: FakeServer;
let proxy: Awaited<ReturnType<typeof startProxy>>;
beforeAll(async () => {
  fake = await startFakeServer();
  fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 1 } });
  proxy = await startProxy();
});
afterAll(async () => {
  await fake.close();
  await proxy.close();
});

describe('proxies', () => {
  it('HTTP_PROXY carries the request', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['status', '1'], { env: { ...baseEnv(fake.url), HTTP_PROXY: proxy.url } });
    expect(r.exitCode).toBe(0);
    const host = new URL(fake.url).host;
    expect(proxy.seen.length).toBe(1);
    expect([`CONNECT ${host}`, `POST ${fake.url}/getSubmittedPullRequest`]).toContain(proxy.seen[0]);
    expect(fake.requests.at(-1)?.headers['x-api-token']).toBe(TOKEN);
  });

  it('a proxy that never answers is bounded by --timeout (exit 6)', async () => {
    const silent = createServer();
    silent.on('connect', () => undefined);
    silent.on('request', () => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const started = Date.now();
    const r = await runCli(['status', '1', '--timeout', '500ms'], { env: { ...baseEnv(fake.url), HTTP_PROXY: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` } });
    expect(r.exitCode).toBe(6);
    expect(Date.now() - started).toBeLessThan(8000);
    silent.closeAllConnections();
    silent.close();
  });

  it('NO_PROXY bypasses it', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['status', '1'], { env: { ...baseEnv(fake.url), HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    expect(r.exitCode).toBe(0);
    expect(proxy.seen).toEqual([]);
  });
});
