/**
 * Serves `/v2/...`: route, authenticate the Bearer key, read a JSON body where the route takes
 * one, answer JSON, and every refusal in the `{"error":{"code","message"}}` envelope. Every answer
 * carries `X-Request-Id`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { EngineError, type QueueEngine, type RepoRef } from '../../engine/index.js';
import { DurabilityError } from '../../journal.js';
import { discardRest, parseJson, readBody } from '../body.js';
import type { ReadCache } from '../read-cache.js';
import { HttpError, JSON_TYPE, type Reply, send } from '../respond.js';
import { parseUrl } from '../router.js';
import { type ApiKey, authenticate } from './auth.js';
import { envelope, fromEngine, V2Error } from './errors.js';
import { configRoutes } from './config-routes.js';
import { entryHistoryRoutes } from './entry-history-routes.js';
import { entryRoutes } from './entry-routes.js';
import { estimateRoute } from './estimate-route.js';
import { graphRoute } from './graph-route.js';
import { historyRoutes } from './history-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import { orderRoute } from './order-route.js';
import { prListRoutes } from './pr-list-routes.js';
import type { RateLimiter } from './rate-limits.js';
import { v2Routes } from './routes.js';
import { targetsRoute } from './targets-route.js';
import { verificationRoutes } from './verification-routes.js';

// Metrics first: `merge-queues/metrics` would otherwise read as a queue id.
const ROUTES = [
  ...metricsRoutes,
  ...v2Routes,
  ...prListRoutes,
  ...entryRoutes,
  ...entryHistoryRoutes,
  ...verificationRoutes,
  ...configRoutes,
  ...historyRoutes,
  targetsRoute,
  orderRoute,
  graphRoute,
  estimateRoute,
];

function asV2(err: unknown): V2Error {
  if (err instanceof V2Error) return err;
  if (err instanceof EngineError) return fromEngine(err);
  if (err instanceof DurabilityError) return new V2Error('SERVICE_UNAVAILABLE', err.message, { 'retry-after': '5' });
  if (err instanceof HttpError && err.status === 413) return new V2Error('PAYLOAD_TOO_LARGE', err.message);
  if (err instanceof HttpError) return new V2Error('VALIDATION_FAILED', err.message);
  return new V2Error('INTERNAL_ERROR', `internal error: ${(err as Error).message ?? String(err)}`);
}

export interface V2Options {
  log(line: string): void;
  engine: QueueEngine;
  keys: readonly ApiKey[];
  /** Counts each authenticated request; none: no limits. */
  rateLimit?: RateLimiter;
  /** Queues without a setting of their own serve merge estimates (default true). */
  estimates?: boolean;
  /** The server's kept answers: a `kept` route's are reused until anything changes. */
  readCache?: ReadCache;
  /** Makes a change through the v1 route at `path`, at engine time `at`. */
  change(path: string, input: unknown, at: number): Promise<Reply>;
}

export function v2Handler(opts: V2Options) {
  const repos = new Map<string, RepoRef>();
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    at: number,
    headers: Record<string, string>,
  ): Promise<void> => {
    const all = { ...headers, 'x-request-id': randomUUID() };
    try {
      const url = parseUrl(req.url ?? '/');
      const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
      let params: string[] | undefined;
      const allowed: string[] = [];
      const route = ROUTES.find((r) => {
        const m = r.path.exec(url.pathname);
        if (!m) return false;
        if (r.method !== method) {
          allowed.push(r.method);
          return false;
        }
        params = m.slice(1);
        return true;
      });
      if (!route) {
        if (allowed.length > 0) {
          const allow = [...new Set(allowed)].join(', ');
          throw new V2Error('METHOD_NOT_ALLOWED', `method ${method} not allowed; use ${allow}`, { allow });
        }
        throw new V2Error('NOT_FOUND', `no such endpoint: ${url.pathname.slice(0, 200)}`);
      }
      const key = authenticate(req, opts.keys);
      opts.rateLimit?.(method, url.pathname, key);
      let stamp: ReturnType<ReadCache['stamp']> | undefined;
      const keptKey = route.kept && opts.readCache ? (req.url ?? '') : undefined;
      if (keptKey !== undefined && opts.readCache) {
        // Events due by now come first: they may change the answer (the engine counts its time steps).
        opts.engine.advance(at);
        const text = opts.readCache.get(keptKey);
        if (text !== undefined) {
          send(res, { text, contentType: JSON_TYPE }, all);
          return;
        }
        stamp = opts.readCache.stamp();
      }
      let body: unknown;
      if (route.body) {
        const raw = await readBody(req);
        body = raw.length === 0 ? undefined : parseJson(raw);
      }
      const reply = await route.handle({
        engine: opts.engine,
        now: at,
        url,
        params: params ?? [],
        body,
        key,
        repos,
        estimates: opts.estimates !== false,
        change: (path, input) => opts.change(path, input, at),
      });
      const status = reply.status ?? 200;
      if (stamp && keptKey !== undefined && reply.json !== undefined && status === 200) {
        const text = JSON.stringify(reply.json);
        opts.readCache?.set(keptKey, text, stamp);
        send(res, { text, contentType: JSON_TYPE }, all);
        return;
      }
      send(
        res,
        reply.json === undefined ? { ...reply, status, text: reply.text ?? '' } : { status, json: reply.json },
        all,
      );
    } catch (err) {
      const e = asV2(err);
      if (e.code === 'INTERNAL_ERROR')
        opts.log(
          `mq emulator: internal error on ${req.method ?? ''} ${req.url ?? ''}: ${(err as Error).stack ?? String(err)}`,
        );
      send(res, { status: e.status, json: envelope(e.code, e.message) }, { ...all, ...e.headers });
      if (e.code === 'PAYLOAD_TOO_LARGE') discardRest(req);
    }
  };
}
