/** What a v2 route sees, and the lookups every route shares. */
import type { z } from 'zod';

import type { QueueEngine, QueueRecord, RepoRef } from '../../engine/index.js';
import type { Reply } from '../respond.js';
import { describeIssues } from '../schemas.js';
import type { ApiKey } from './auth.js';
import { V2Error } from './errors.js';
import { findPullRequest, findQueue } from './ids.js';
import { v2PullRequest } from './wire.js';

export interface V2Context {
  engine: QueueEngine;
  now: number;
  url: URL;
  params: string[];
  body: unknown;
  key: ApiKey;
  /** Repositories resolved by provider URL (the emulator serves any repository). */
  repos: Map<string, RepoRef>;
  /** Whether a queue with no setting of its own serves merge estimates (`--estimates`). */
  estimates: boolean;
  /** Makes a change through the v1 route at `path` (journaled as that route). */
  change(path: string, input: unknown): Promise<Reply>;
}

export interface V2Reply {
  status?: number;
  json?: unknown;
  /** A plain-text answer (metrics), with its content type. */
  text?: string;
  contentType?: string;
}

export interface V2Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT';
  path: RegExp;
  /** The route reads a JSON body. */
  body?: boolean;
  /** A read whose answer the server may keep until anything changes (see http/read-cache.ts). */
  kept?: boolean;
  handle(ctx: V2Context): V2Reply | Promise<V2Reply>;
}

const ID = '([A-Za-z0-9-]{1,64})';
export const at = (p: string) => new RegExp(`^/v2/${p.replaceAll('{id}', ID)}$`);

export function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) throw new V2Error('VALIDATION_FAILED', describeIssues(r.error, body));
  return r.data;
}

export function queueOf(c: V2Context): QueueRecord {
  c.engine.advance(c.now);
  const q = findQueue(c.engine.state, c.params[0] as string);
  if (!q) throw new V2Error('MERGE_QUEUE_NOT_FOUND', `no merge queue has id ${c.params[0] as string}`);
  return q;
}

export function prOf(c: V2Context, id = c.params[0] as string): { q: QueueRecord; number: number } {
  c.engine.advance(c.now);
  const found = findPullRequest(c.engine.state, id);
  if (!found) throw new V2Error('PR_NOT_FOUND', `no pull request has id ${id}`);
  return found;
}

export const ref = (q: QueueRecord) => ({ repo: q.repo, targetBranch: q.branch });

/** PR `number` of queue `q`; `listRead` for a list (or a lookup of several numbers). */
export function prAnswer(c: V2Context, q: QueueRecord, number: number, listRead = false) {
  return v2PullRequest(q, c.engine.getSubmittedPullRequest({ ...ref(q), pr: { number } }, c.now), listRead);
}
