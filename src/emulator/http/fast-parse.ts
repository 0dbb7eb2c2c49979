/**
 * Hand-written validators for the request shapes clients send most often (a queue, a PR, a PR
 * lookup). Each one accepts only bodies that are plainly valid — exactly the known fields, of the
 * exact type and within the limits — and returns what the zod schema would return for them;
 * anything else (a numeric string, an unknown field, a bound crossed) gives `undefined`, and the
 * zod schema then decides and words the error. So the answers are the schemas' answers; this only
 * spares the common case the generic machinery (a tenth of a small request's CPU under load).
 */
import type { z } from 'zod';

import { MAX_U32 } from '../../domain/vocabulary.js';
import { getPullRequestRequest, LIMITS, prRequest, queueRequest } from './schemas.js';

export type FastParse = (body: unknown) => unknown;

const hasOwn = Object.prototype.hasOwnProperty;

/** A plain object whose own keys are all among `allowed`. */
function onlyKeys(v: unknown, allowed: readonly string[]): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) {
    if (!hasOwn.call(v, k)) continue;
    if (!allowed.includes(k)) return false;
  }
  return true;
}

const isName = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= LIMITS.name;

const REPO_KEYS = ['host', 'owner', 'name'] as const;
function repo(v: unknown): { host: string; owner: string; name: string } | undefined {
  if (!onlyKeys(v, REPO_KEYS)) return undefined;
  const { host, owner, name } = v;
  return isName(host) && isName(owner) && isName(name) ? { host, owner, name } : undefined;
}

const QUEUE_KEYS = ['repo', 'targetBranch'] as const;
function queue(body: unknown) {
  if (!onlyKeys(body, QUEUE_KEYS)) return undefined;
  const r = repo(body.repo);
  const targetBranch = body.targetBranch;
  return r && isName(targetBranch) ? { repo: r, targetBranch } : undefined;
}

function prOf(v: unknown): { number: number } | undefined {
  if (!onlyKeys(v, ['number'])) return undefined;
  const n = v.number;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_U32 ? { number: n } : undefined;
}

const PR_KEYS = ['repo', 'targetBranch', 'pr'] as const;
function pr(body: unknown) {
  if (!onlyKeys(body, PR_KEYS)) return undefined;
  const r = repo(body.repo);
  const targetBranch = body.targetBranch;
  const p = prOf(body.pr);
  return r && isName(targetBranch) && p ? { repo: r, targetBranch, pr: p } : undefined;
}

const GET_PR_KEYS = ['repo', 'targetBranch', 'pr', 'includeTimeline', 'includeEstimatedTimeToMerge'] as const;
function getPr(body: unknown) {
  if (!onlyKeys(body, GET_PR_KEYS)) return undefined;
  const r = repo(body.repo);
  const targetBranch = body.targetBranch;
  const p = prOf(body.pr);
  if (!r || !isName(targetBranch) || !p) return undefined;
  const out: Record<string, unknown> = { repo: r, targetBranch, pr: p };
  for (const k of ['includeTimeline', 'includeEstimatedTimeToMerge'] as const) {
    if (!hasOwn.call(body, k)) continue;
    if (typeof body[k] !== 'boolean') return undefined;
    out[k] = body[k];
  }
  return out;
}

const FAST = new Map<z.ZodType, FastParse>([
  [queueRequest, queue],
  [prRequest, pr],
  [getPullRequestRequest, getPr],
]);

/** The fast validator for a route's schema, if it has one. */
export function fastParserFor(schema: z.ZodType): FastParse | undefined {
  return FAST.get(schema);
}
