/**
 * The route table type shared by the API and control routes. A route declares its method, path,
 * request schema (POST bodies), whether it changes state (so the server persists before answering)
 * and a handler that calls the engine and returns a Reply.
 */
import type { z } from 'zod';

import type { Clock } from '../clock.js';
import type { QueueEngine } from '../engine/index.js';
import type { WebhookDispatcher } from '../webhooks.js';
import type { Reply } from './respond.js';

export interface RouteContext {
  engine: QueueEngine;
  clock: Clock;
  /** Engine time for this request (real clock: the wall-derived time; manual: the engine's). */
  now: number;
  url: URL;
  /** Captured groups of the route's path pattern. */
  params: string[];
  webhooks?: WebhookDispatcher;
}

export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  mutates: boolean;
  schema?: z.ZodType;
  /**
   * A read whose answer depends only on its body and the state: the server keeps the answer to a
   * body it has seen until the state changes (read-cache.ts), and answers it again without
   * parsing, validating or calling the engine.
   */
  kept?: boolean;
  /** A fork PR's workflow run id may stand in for the token (setImpactedTargets). */
  forkedRunAuth?: boolean;
  handle(ctx: RouteContext, input: unknown): Reply | Promise<Reply>;
}

export function route<S extends z.ZodType>(
  method: 'POST',
  path: string | RegExp,
  schema: S,
  mutates: boolean,
  handle: (ctx: RouteContext, input: z.output<S>) => Reply | Promise<Reply>,
): Route;
export function route(
  method: 'GET' | 'POST',
  path: string | RegExp,
  schema: undefined,
  mutates: boolean,
  handle: (ctx: RouteContext, input: undefined) => Reply | Promise<Reply>,
): Route;
export function route(
  method: 'GET' | 'POST',
  path: string | RegExp,
  schema: z.ZodType | undefined,
  mutates: boolean,
  handle: (ctx: RouteContext, input: never) => Reply | Promise<Reply>,
): Route {
  const pattern = typeof path === 'string' ? new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : path;
  return { method, path: pattern, mutates, ...(schema ? { schema } : {}), handle: handle as Route['handle'] };
}

/** Marks a read route whose answers the server may keep (see Route.kept). */
export function kept(r: Route): Route {
  if (r.mutates) throw new Error(`internal: ${r.path} changes state; its answers cannot be kept`);
  return { ...r, kept: true };
}

/** Marks the route a fork PR's workflow run id authenticates (see Route.forkedRunAuth). */
export function forkedRunAuth(r: Route): Route {
  return { ...r, forkedRunAuth: true };
}
