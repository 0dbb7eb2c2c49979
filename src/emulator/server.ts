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
import { isAscii } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';

import type { Clock } from './clock.js';
import { EngineError, type QueueEngine } from './engine/index.js';
import { discardRest, parseJson, readBody, requireJsonContentType } from './http/body.js';
import { HttpError, JSON_TYPE, type Reply, sendError, sendWithDate } from './http/respond.js';
import type { Route, RouteContext } from './http/route.js';
import { parseUrl, Router } from './http/router.js';
import { describeIssues } from './http/schemas.js';
import { ReadCache } from './http/read-cache.js';
import { engineErrorStatus } from './http/wire.js';
import type { ApiKey } from './http/v2/auth.js';
import { v2Handler } from './http/v2/handler.js';
import { rateLimiter } from './http/v2/rate-limits.js';
import { apiRoutes } from './http/api-routes.js';
import { dueTimer } from './due-timer.js';
import { DurabilityError } from './journal.js';
import type { StateStore } from './store.js';
import type { WebhookDispatcher } from './webhooks.js';

/** Longer than the usual 60 s client/proxy idle timeouts, so a client never reuses a socket we just closed. */
export const KEEP_ALIVE_MS = 65_000;

export interface EmulatorServerOptions {
  engine: QueueEngine;
  clock: Clock;
  token: string;
  /** v2 API keys (`Authorization: Bearer`); none: /v2 refuses every request. */
  apiKeys?: readonly ApiKey[];
  /** v2 rate limits (default on); `rateLimitClock` is the wall clock they count by. */
  rateLimits?: boolean;
  rateLimitClock?: () => number;
  /** v2: queues without a setting of their own serve merge estimates (default true). */
  estimates?: boolean;
  store?: StateStore;
  log?: (line: string) => void;
  webhooks?: WebhookDispatcher;
  /** Concluded PRs and finished runs older than this (engine time) are dropped (default 45 days). */
  retentionMs?: number;
}

export interface EmulatorServer {
  server: Server;
  /** Stops accepting, lets in-flight requests finish, stops the timer. */
  close(): Promise<void>;
  /** Re-arms the real-clock timer (after anything that may have changed the next due time). */
  schedule(): void;
  /** The state changed outside a request (a rolled-back change): kept answers go, the timer re-arms. */
  changed(): void;
}

/** Compares in constant time; `scratch` (the expected token's length) spares an allocation per request. */
function tokenMatches(given: string | string[] | undefined, expected: Buffer, scratch: Buffer): boolean {
  if (typeof given !== 'string' || Buffer.byteLength(given) !== expected.length) return false;
  scratch.write(given);
  return timingSafeEqual(scratch, expected);
}

/**
 * Without a token, a fork PR's workflow run id (`x-forked-workflow-run-id`) authenticates
 * setImpactedTargets alone, as Trunk documents; the emulator takes any run id (it knows no runs).
 */
function forkedRunAuth(req: IncomingMessage, route: Route): void {
  const runId = req.headers['x-forked-workflow-run-id'];
  if (runId === undefined || runId === '') throw new HttpError(401, 'missing x-api-token header');
  if (!route.forkedRunAuth) {
    throw new HttpError(401, 'x-forked-workflow-run-id authenticates setImpactedTargets only; send x-api-token');
  }
  if (typeof runId !== 'string' || !/^[1-9]\d{0,19}$/.test(runId)) {
    throw new HttpError(401, 'invalid x-forked-workflow-run-id: expected a workflow run id');
  }
}

/** One listener for every request's and response's 'error' (no closure per request). */
const ignore = (): void => {};

export function createEmulatorServer(opts: EmulatorServerOptions): EmulatorServer {
  const { engine, clock, store } = opts;
  const readCache = new ReadCache(engine);
  const expected = Buffer.from(opts.token);
  const scratch = Buffer.alloc(expected.length);
  const router = new Router();
  const log = opts.log ?? (() => {});
  let closing = false;
  const timer = dueTimer({ engine, clock, readCache, log, store, retentionMs: opts.retentionMs });
  const { schedule, maybePrune } = timer;

  /** The emulator's time for the `Date` header: the engine's (manual clock) or the running clock's. */
  function dateHeader(): Record<string, string> {
    const d = dateString();
    return d === undefined ? {} : { date: d };
  }
  // The header has whole seconds: its string is made once per second of emulator time.
  let dateSecond = Number.NaN;
  let dateText: string | undefined;
  function dateString(): string | undefined {
    const t = Math.max(clock.now(), engine.now);
    if (!Number.isFinite(t)) return undefined;
    const second = Math.floor(t / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(t).toUTCString();
    }
    return dateText;
  }

  // v2 makes each change through the v1 route that does it, so the journal and replay stay v1's.
  const v2 = v2Handler({
    log,
    engine,
    keys: opts.apiKeys ?? [],
    readCache,
    ...(opts.rateLimits === false ? {} : { rateLimit: rateLimiter(opts.rateLimitClock) }),
    ...(opts.estimates === false ? { estimates: false } : {}),
    async change(path, input, at) {
      const route = apiRoutes.find((r) => r.method === 'POST' && r.path.test(path));
      if (!route) throw new Error(`internal: no v1 route ${path}`);
      const ctx: RouteContext = { engine, clock, now: at, url: parseUrl(path), params: [] };
      readCache.invalidate();
      try {
        return await apply(route, ctx, input, at);
      } finally {
        readCache.invalidate();
      }
    },
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    if (target.startsWith('/v2/')) {
      const date = dateString();
      await v2(req, res, Math.max(clock.now(), engine.now), {
        ...(date === undefined ? {} : { date }),
        ...(closing ? { connection: 'close' } : {}),
      });
      schedule();
      return;
    }
    const method = req.method ?? 'GET';
    const found = router.routeOf(target, method);
    const { route, allowed, pathname } = found;
    if (!route) {
      if (allowed.length > 0) {
        throw new HttpError(405, `method ${req.method ?? ''} not allowed on ${pathname}; use ${allowed.join(', ')}`, {
          allow: allowed.join(', '),
        });
      }
      throw new HttpError(404, `no such endpoint: ${pathname}`);
    }
    const token = req.headers['x-api-token'];
    if (token === undefined || token === '') forkedRunAuth(req, route);
    else if (!tokenMatches(token, expected, scratch)) throw new HttpError(401, 'invalid API token');

    let input: unknown;
    let keptKey: string | undefined;
    let keptStamp: { generation: number; changes: number } | undefined;
    if (route.schema) {
      requireJsonContentType(req);
      const raw = await readBody(req);
      if (route.kept && isAscii(raw)) {
        // The same body as an earlier answered request, and nothing changed since: the same answer.
        // Events due by now come first: they may change it (the engine counts its time steps).
        engine.advance(Math.max(clock.now(), engine.now));
        keptKey = `${target}\0${raw.toString('latin1')}`;
        const text = readCache.get(keptKey);
        if (text !== undefined) {
          sendWithDate(res, { text, contentType: JSON_TYPE }, dateString(), closing);
          schedule();
          return;
        }
        keptStamp = readCache.stamp();
      }
      const body = parseJson(raw);
      const parsed = route.schema.safeParse(body);
      if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error, body));
      input = parsed.data;
    }
    // Time never runs back: a change runs at the later of the clock and the engine (the journal
    // records this time, so replaying it reproduces the change exactly).
    const at = Math.max(clock.now(), engine.now);
    let url = found.url;
    const ctx: RouteContext = {
      engine,
      clock,
      now: at,
      get url() {
        url ??= parseUrl(target);
        return url;
      },
      params: [...found.params],
      ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
    };
    let reply: Reply;
    // Kept answers go when a change starts (a read while it awaits sees the changed state) and
    // again when it ends.
    if (route.mutates) readCache.invalidate();
    try {
      reply = await apply(route, ctx, input, at);
    } finally {
      if (route.mutates) readCache.invalidate();
    }
    if (keptKey !== undefined && keptStamp !== undefined && reply.json !== undefined && (reply.status ?? 200) === 200) {
      reply = { text: JSON.stringify(reply.json), contentType: reply.contentType ?? JSON_TYPE };
      readCache.set(keptKey, reply.text as string, keptStamp);
    }
    sendWithDate(res, reply, dateString(), closing);
    schedule();
  }

  async function apply(route: Route, ctx: RouteContext, input: unknown, at: number): Promise<Reply> {
    let reply: Reply;
    if (route.mutates && store) {
      // Apply, record and wait for the record to be durable; nothing in between may yield.
      let seq: number | undefined;
      store.beginOp();
      try {
        const r = route.handle(ctx, input);
        seq = store.recordOp(route, ctx.params, input, at);
        seq = maybePrune() ?? seq;
        reply = await r;
      } finally {
        store.endOp(seq !== undefined);
      }
      await store.durable(seq);
    } else {
      const r = route.handle(ctx, input);
      reply = r instanceof Promise ? await r : r;
      if (route.mutates) maybePrune();
    }
    return reply;
  }

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    const date = dateHeader();
    if (err instanceof HttpError) {
      sendError(res, err.status, err.message, { ...date, ...err.headers, ...(closing ? { connection: 'close' } : {}) });
      if (err.status === 413) discardRest(req);
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
    req.on('error', ignore);
    res.on('error', ignore);
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
    if (socket.writable)
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nbad request',
      );
    else socket.destroy(err);
  });

  return {
    server,
    schedule,
    changed() {
      readCache.invalidate();
      schedule();
    },
    close() {
      closing = true;
      timer.stop();
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
