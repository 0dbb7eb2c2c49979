/**
 * The HTTP adapter: route → authenticate → read the body under the limit → parse → validate →
 * call the engine at the request's time → journal the change and wait until it is durable
 * (mutations, with --data-dir) → answer. It holds no queue logic. Every answer carries the
 * emulator's time in `Date`. Every failure becomes a plain-text answer; nothing a client sends can
 * take the process down; a change that cannot be made durable is undone and answered 503.
 *
 * With a real clock a timer fires at the engine's next due event, so runs complete and PRs merge
 * while nobody is asking.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

import type { Clock } from './clock.js';
import { EngineError, type QueueEngine } from './engine/index.js';
import { apiRoutes } from './http/api-routes.js';
import { parseJson, readBody, requireJsonContentType } from './http/body.js';
import { controlRoutes } from './http/control-routes.js';
import { HttpError, type Reply, send, sendError } from './http/respond.js';
import type { Route } from './http/route.js';
import { describeIssues } from './http/schemas.js';
import { DEFAULT_RETENTION_MS, pruneConcluded } from './engine/retention.js';
import { engineErrorStatus } from './http/wire.js';
import { DurabilityError } from './journal.js';
import type { StateStore } from './store.js';
import type { WebhookDispatcher } from './webhooks.js';

const ROUTES: Route[] = [...apiRoutes, ...controlRoutes];
/** Longer than the usual 60 s client/proxy idle timeouts, so a client never reuses a socket we just closed. */
export const KEEP_ALIVE_MS = 65_000;

export interface EmulatorServerOptions {
  engine: QueueEngine;
  clock: Clock;
  token: string;
  store?: StateStore;
  log?: (line: string) => void;
  webhooks?: WebhookDispatcher;
  /** Concluded PRs and finished runs older than this (engine time) are dropped (default 45 days). */
  retentionMs?: number;
}

/** How often (engine time) retention looks for concluded PRs to drop. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface EmulatorServer {
  server: Server;
  /** Stops accepting, lets in-flight requests finish, stops the timer. */
  close(): Promise<void>;
  /** Re-arms the real-clock timer (after anything that may have changed the next due time). */
  schedule(): void;
}

function tokenMatches(given: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof given !== 'string') return false;
  const g = Buffer.from(given);
  return g.length === expected.length && timingSafeEqual(g, expected);
}

function findRoute(pathname: string, method: string): { route?: Route; params: string[]; allowed: string[] } {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.path.exec(pathname);
    if (!m) continue;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { route: r, params: m.slice(1), allowed };
    allowed.push(r.method);
  }
  return { params: [], allowed };
}

export function createEmulatorServer(opts: EmulatorServerOptions): EmulatorServer {
  const { engine, clock, store } = opts;
  const expected = Buffer.from(opts.token);
  const log = opts.log ?? (() => {});
  let closing = false;
  let timer: NodeJS.Timeout | undefined;

  const retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  let lastPruneAt = -Infinity;

  /** The emulator's time for the `Date` header: the engine's (manual clock) or the running clock's. */
  function dateHeader(): Record<string, string> {
    const t = Math.max(clock.now(), engine.now);
    return Number.isFinite(t) ? { date: new Date(t).toUTCString() } : {};
  }

  /** Drops concluded PRs and runs past the retention window, at most once per engine hour. */
  function maybePrune(): number | undefined {
    const now = engine.now;
    if (now - lastPruneAt < PRUNE_EVERY_MS) return undefined;
    lastPruneAt = now;
    const cutoff = now - retentionMs;
    const pruned = pruneConcluded(engine.state, cutoff);
    if (pruned.prs + pruned.runs === 0) return undefined;
    log(`mq emulator: retention dropped ${pruned.prs} concluded pull requests and ${pruned.runs} test runs older than ${new Date(cutoff).toISOString()}`);
    return store?.recordPrune(now, cutoff);
  }

  function schedule(): void {
    if (clock.kind !== 'real' || closing) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    const due = engine.nextDueAt();
    if (due === null) return;
    // setTimeout caps at ~24.8 days; a longer wait simply re-arms on firing.
    const delay = Math.min(clock.wallDelayUntil(due), 2_147_483_647);
    timer = setTimeout(() => {
      timer = undefined;
      let recorded = false;
      store?.beginOp();
      try {
        const at = Math.max(clock.now(), engine.now);
        engine.advance(at);
        if (store) {
          store.recordTick(at);
          recorded = true;
        }
        maybePrune();
      } catch (err) {
        log(`mq emulator: processing due events failed: ${(err as Error).stack ?? String(err)}`);
      } finally {
        store?.endOp(recorded);
      }
      schedule();
    }, delay);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      throw new HttpError(400, `malformed request path: ${req.url ?? ''}`);
    }
    // The control API is also reachable under the API base URL, so a client only needs MQ_API_URL.
    const pathname = url.pathname.startsWith('/v1/_emulator/') ? url.pathname.slice(3) : url.pathname;
    const { route, params, allowed } = findRoute(pathname, req.method ?? 'GET');
    if (!route) {
      if (allowed.length > 0) {
        throw new HttpError(405, `method ${req.method ?? ''} not allowed on ${url.pathname}; use ${allowed.join(', ')}`, {
          allow: allowed.join(', '),
        });
      }
      throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    }
    const token = req.headers['x-api-token'];
    if (token === undefined || token === '') throw new HttpError(401, 'missing x-api-token header');
    if (!tokenMatches(token, expected)) throw new HttpError(401, 'invalid API token');

    let input: unknown;
    if (route.schema) {
      requireJsonContentType(req);
      const body = parseJson(await readBody(req));
      const parsed = route.schema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error, body));
      input = parsed.data;
    }
    // Time never runs back: a change runs at the later of the clock and the engine (the journal
    // records this time, so replaying it reproduces the change exactly).
    const at = Math.max(clock.now(), engine.now);
    const ctx = { engine, clock, now: at, url, params, ...(opts.webhooks ? { webhooks: opts.webhooks } : {}) };
    let reply: Reply;
    if (route.mutates && store) {
      // Apply, record and wait for the record to be durable; nothing in between may yield.
      let seq: number | undefined;
      store.beginOp();
      try {
        const r = route.handle(ctx, input);
        seq = store.recordOp(route, params, input, at);
        seq = maybePrune() ?? seq;
        reply = await r;
      } finally {
        store.endOp(seq !== undefined);
      }
      await store.durable(seq);
    } else {
      reply = await route.handle(ctx, input);
      if (route.mutates) maybePrune();
    }
    send(res, reply, { ...dateHeader(), ...(closing ? { connection: 'close' } : {}) });
    schedule();
  }

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    const date = dateHeader();
    if (err instanceof HttpError) {
      sendError(res, err.status, err.message, { ...date, ...err.headers, ...(closing ? { connection: 'close' } : {}) });
      if (err.status === 413) {
        // The rest of an oversized body is discarded as it arrives (never buffered).
        // It is not closed at once: closing with unread data makes the kernel send a reset, which
        // can destroy the 413 before the client reads it. A client that finishes its upload keeps
        // its connection; one that keeps streaming is cut after two seconds.
        const cut = setTimeout(() => req.destroy(), 2_000).unref();
        req.once('end', () => clearTimeout(cut));
        req.resume();
      }
      return;
    }
    if (err instanceof EngineError) {
      sendError(res, engineErrorStatus(err.kind), err.message, date);
      return;
    }
    if (err instanceof DurabilityError) {
      sendError(res, 503, err.message, { ...date, 'retry-after': '5' });
      schedule();
      return;
    }
    log(`mq emulator: internal error on ${req.method ?? ''} ${req.url ?? ''}: ${(err as Error).stack ?? String(err)}`);
    sendError(res, 500, `internal error: ${(err as Error).message ?? String(err)}`, date);
  }

  const server = createServer((req, res) => {
    // A client vanishing mid-request must not surface as an unhandled 'error' event.
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch((err: unknown) => {
      try {
        fail(req, res, err);
      } catch (inner) {
        log(`mq emulator: could not answer a failed request: ${String(inner)}`);
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nbad request');
    else socket.destroy(err);
  });

  return {
    server,
    schedule,
    close() {
      closing = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      return new Promise<void>((resolve) => {
        // Busy keep-alive sockets get `Connection: close` on their last answer; idle ones go now.
        const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
