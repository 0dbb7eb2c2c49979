// The default transport: node:http(s) with keep-alive; cheap to load, never proxied (undici does that).
import type { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream';
import {
  parserError,
  systemCode,
  TransportError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

const AGENT_OPTIONS = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 64, scheduling: 'lifo' as const };

/** A TransportError for every network failure; anything else (a bug) goes up as it is. */
function normalise(err: unknown, signal: AbortSignal): unknown {
  if (err instanceof TransportError) return err;
  if (signal.aborted) return new TransportError('ABORTED', 'aborted', { cause: err });
  const parse = parserError(err);
  if (parse) return parse;
  const code = systemCode(err);
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNABORTED' || code === 'EPIPE') {
    return new TransportError('ECONNRESET', 'the connection was closed', { cause: err });
  }
  return code ? new TransportError(code, (err as Error)?.message ?? String(err), { cause: err }) : err;
}

/** How many chunks may wait unread before the answer is paused. */
const MAX_WAITING = 16;

/** The answer's chunks via stream events (cheaper than its async iterator); paused past MAX_WAITING. */
function body(res: IncomingMessage, signal: AbortSignal): AsyncIterable<Uint8Array> {
  const waiting: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const settle = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  res.on('data', (chunk: Uint8Array) => {
    waiting.push(chunk);
    if (waiting.length >= MAX_WAITING) res.pause();
    settle();
  });
  res.on('end', () => {
    ended = true;
    settle();
  });
  res.on('error', (err) => {
    failure ??= normalise(err, signal);
    settle();
  });
  res.on('close', () => {
    // A response cut short without an error event (the socket ended early) is still a failure.
    if (!ended && !res.complete)
      failure ??= new TransportError('ECONNRESET', 'the connection closed before the answer was complete');
    settle();
  });
  const next = async (): Promise<IteratorResult<Uint8Array>> => {
    for (;;) {
      const chunk = waiting.shift();
      if (chunk !== undefined) {
        if (waiting.length === 0 && res.isPaused()) res.resume();
        return { value: chunk, done: false };
      }
      if (failure !== undefined) throw failure;
      if (ended) {
        if (!res.complete)
          throw new TransportError('ECONNRESET', 'the connection closed before the answer was complete');
        return { value: undefined, done: true };
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  const stop = async (): Promise<IteratorResult<Uint8Array>> => {
    if (!ended) res.destroy();
    return { value: undefined, done: true };
  };
  return { [Symbol.asyncIterator]: () => ({ next, return: stop }) };
}

interface Stack {
  agent: HttpAgent;
  request: typeof httpRequest;
}

export function nodeTransport(): Transport {
  // node:https pulls in TLS; load each module only when a URL needs it.
  const stacks = new Map<string, Promise<Stack>>();
  const stackFor = (protocol: string): Promise<Stack> => {
    let s = stacks.get(protocol);
    if (!s) {
      s =
        protocol === 'https:'
          ? import('node:https').then((m) => ({
              agent: new m.Agent(AGENT_OPTIONS),
              request: m.request as typeof httpRequest,
            }))
          : import('node:http').then((m) => ({ agent: new m.Agent(AGENT_OPTIONS), request: m.request }));
      stacks.set(protocol, s);
    }
    return s;
  };
  return {
    name: 'node',
    async request(req: TransportRequest): Promise<TransportResponse> {
      const { url, signal } = req;
      const { agent, request } = await stackFor(url.protocol);
      const headers: Record<string, string> = { ...req.headers };
      const sent = req.body;
      if (typeof sent === 'string') headers['content-length'] = String(Buffer.byteLength(sent));
      else if (sent?.length !== undefined) headers['content-length'] = String(sent.length);
      return new Promise<TransportResponse>((resolve, reject) => {
        if (signal.aborted) {
          reject(new TransportError('ABORTED', 'aborted'));
          return;
        }
        let connectTimer: NodeJS.Timeout | undefined;
        // URL parts (Node would convert the URL per request); one abort listener (Node's `signal` adds several).
        const host = url.hostname;
        const r = request({
          protocol: url.protocol,
          hostname: host.startsWith('[') ? host.slice(1, -1) : host,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers,
          agent,
        });
        signal.addEventListener('abort', () => r.destroy(new TransportError('ABORTED', 'aborted')), { once: true });
        r.on('socket', (socket: Socket) => {
          if (!socket.connecting) return;
          connectTimer = setTimeout(() => {
            r.destroy(new TransportError('CONNECT_TIMEOUT', `no connection within ${req.connectTimeoutMs} ms`));
          }, req.connectTimeoutMs);
          socket.once('connect', () => clearTimeout(connectTimer));
        });
        r.on('response', (res) => {
          clearTimeout(connectTimer);
          const flat: Record<string, string | undefined> = {};
          for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v[0] : v;
          const destroy = () => {
            res.on('error', () => undefined);
            r.destroy();
          };
          resolve({ status: res.statusCode ?? 0, headers: flat, body: body(res, signal), destroy });
        });
        r.on('error', (err) => {
          clearTimeout(connectTimer);
          reject(normalise(err, signal));
        });
        if (typeof sent === 'object') {
          // Chunk by chunk, waiting for the socket to drain; a failure on either side destroys the
          // request, which reports it through the 'error' handler above.
          pipeline(sent.chunks, r, () => undefined);
        } else r.end(sent);
      });
    },
    async close() {
      const all = [...stacks.values()];
      stacks.clear();
      // Idle keep-alive sockets are unref'd by the agent and end with the process; closing them would
      // cost a turn of the loop at every exit (bench/status.mjs). A socket still in use would hold it.
      for (const s of await Promise.all(all)) {
        for (const sockets of Object.values(s.agent.sockets)) for (const socket of sockets ?? []) socket.destroy();
      }
    },
  };
}
