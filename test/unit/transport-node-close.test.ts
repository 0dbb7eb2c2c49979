/**
 * The node transport's close() (called before mq exits): a request still in flight is ended; an idle
 * keep-alive connection is left as it is, unref'd, so it neither holds the process nor costs a turn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/api/transport.js';
import { nodeTransport } from '../../src/api/transport-node.js';

const sockets: Socket[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  // /hang never answers; /ok answers after 20 ms, keeping the connection.
  if (req.url !== '/hang') setTimeout(() => res.end('ok'), 20);
});
server.on('connection', (s) => sockets.push(s));
let base = '';

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((done) => server.close(done));
});

const request = (path: string) => ({
  url: new URL(`${base}${path}`),
  method: 'GET',
  headers: {},
  signal: new AbortController().signal,
  connectTimeoutMs: 5_000,
});

describe('node transport close()', () => {
  it('ends a request still waiting for its answer and leaves an idle connection open', async () => {
    const t = nodeTransport();
    const hanging = t.request(request('/hang')).then(
      () => null,
      (err: unknown) => err,
    );
    const ok = await t.request(request('/ok'));
    let text = '';
    for await (const chunk of ok.body) text += Buffer.from(chunk).toString();
    expect([ok.status, text, sockets.length]).toEqual([200, 'ok', 2]);
    await t.close();
    const failure = await hanging;
    expect(failure).toBeInstanceOf(TransportError);
    await new Promise((done) => setTimeout(done, 50));
    // The server's side: the hanging request's connection closed, the idle one still open.
    expect(sockets.map((s) => s.destroyed || s.readableEnded)).toEqual([true, false]);
  });
});
