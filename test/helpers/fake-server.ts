/**
 * A recording fake of the merge queue service: node:http on 127.0.0.1, port 0. Each route answers
 * from a script (a list of replies, the last one repeating); every request is recorded with its
 * method, path, query, headers and body so tests can assert exactly what the CLI sent. A route the
 * test did not script answers a loud 500 (never 200 OK), unless the test passes its own default.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
}

export type Reply =
  | { status: number; body?: string | object; headers?: Record<string, string> }
  | { hang: true }
  | { reset: true }
  /** Headers and part of the body, then the connection is destroyed. */
  | { resetAfter: { status: number; partial: string } }
  | { slow: { status: number; chunks: string[]; everyMs: number } }
  /** These bytes as they are (not HTTP, or broken HTTP), then the connection is closed. */
  | { raw: string }
  /** A body that never ends: 1 MiB chunks for as long as the client reads. */
  | { endless: { status: number; contentLength?: number } };

export interface FakeServer {
  url: string;
  port: number;
  requests: Recorded[];
  /** Script the replies of one route, e.g. `POST /submitPullRequest`. */
  on(route: string, ...replies: Reply[]): void;
  close(): Promise<void>;
}

export const UNSCRIPTED: Reply = { status: 500, body: 'fake server: no reply scripted for this route' };

export async function startFakeServer(defaultReply: Reply = UNSCRIPTED): Promise<FakeServer> {
  const scripts = new Map<string, Reply[]>();
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const path = url.pathname.replace(/^\/v1/, '');
      requests.push({
        method: req.method ?? '',
        path,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        raw,
        body,
      });
      const script = scripts.get(`${req.method} ${path}`);
      const reply =
        script && script.length > 0
          ? script.length > 1
            ? (script.shift() as Reply)
            : (script[0] as Reply)
          : defaultReply;
      answer(res, reply);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    on: (route, ...replies) => void scripts.set(route, replies),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The fake server as a fixture of one file (or describe block): started before its tests, closed
 * after them, its recorded requests cleared before each test. Scripts carry over between tests.
 */
export function useFakeServer(defaultReply: Reply = UNSCRIPTED): FakeServer {
  const fake = {} as FakeServer;
  beforeAll(async () => void Object.assign(fake, await startFakeServer(defaultReply)));
  afterAll(() => fake.close?.());
  beforeEach(() => {
    fake.requests.length = 0;
  });
  return fake;
}

function answer(res: ServerResponse, reply: Reply): void {
  if ('hang' in reply) return;
  if ('raw' in reply) {
    res.socket?.end(reply.raw);
    return;
  }
  if ('endless' in reply) {
    const { status, contentLength } = reply.endless;
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(contentLength !== undefined ? { 'content-length': String(contentLength) } : {}),
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let open = true;
    res.on('close', () => (open = false));
    const pump = () => {
      while (open && res.write(chunk));
      if (open) res.once('drain', pump);
    };
    pump();
    return;
  }
  if ('reset' in reply) {
    res.socket?.destroy();
    return;
  }
  if ('resetAfter' in reply) {
    res.writeHead(reply.resetAfter.status, { 'content-type': 'application/json', 'content-length': '100000' });
    res.write(reply.resetAfter.partial, () => setTimeout(() => res.socket?.destroy(), 20));
    return;
  }
  if ('slow' in reply) {
    res.writeHead(reply.slow.status, { 'content-type': 'application/json' });
    const rest = [...reply.slow.chunks];
    const timer = setInterval(() => {
      const next = rest.shift();
      if (next === undefined) {
        clearInterval(timer);
        res.end();
      } else res.write(next);
    }, reply.slow.everyMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  const isText = typeof reply.body === 'string' || reply.body === undefined;
  const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json',
    ...reply.headers,
  });
  res.end(text);
}
