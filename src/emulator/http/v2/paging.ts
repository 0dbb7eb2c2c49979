/**
 * v2 paging: `limit` 1–100 (default 25), `includeTotal`, and an opaque forward cursor bound to the
 * operation and filter that minted it (anything else is 400 INVALID_CURSOR). A cursor may carry
 * one more value the first page fixed (testing results' `until`).
 */
import { V2Error } from './errors.js';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
  total?: number;
}

export interface PageRequest {
  op: string;
  filter: string;
  start: number;
  limit: number;
  includeTotal: boolean;
  /** What the first page fixed, from the cursor (undefined on a first page). */
  fixed?: number;
}

export function readPage(url: URL, op: string, filter: string): PageRequest {
  const q = url.searchParams;
  const rawLimit = q.get('limit');
  let limit = 25;
  if (rawLimit !== null) {
    if (!/^\d{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100) {
      throw new V2Error('VALIDATION_FAILED', 'limit: expected a whole number from 1 to 100');
    }
    limit = Number(rawLimit);
  }
  const rawTotal = q.get('includeTotal');
  if (rawTotal !== null && rawTotal !== 'true' && rawTotal !== 'false') {
    throw new V2Error('VALIDATION_FAILED', 'includeTotal: expected true or false');
  }
  const cursor = q.get('cursor');
  const req: PageRequest = { op, filter, start: 0, limit, includeTotal: rawTotal === 'true' };
  if (cursor !== null) {
    const [start, fixed] = readCursor(cursor, op, filter);
    req.start = start;
    if (fixed !== undefined) req.fixed = fixed;
  }
  return req;
}

/** The page of `data` (already cut to the request's rows) out of `count` rows in all. */
export function pageAnswer<T>(req: PageRequest, count: number, data: T[], fixed?: number): Page<T> {
  const end = req.start + req.limit;
  const hasMore = count > end;
  return {
    data,
    nextCursor: hasMore ? mintCursor(req.op, req.filter, end, fixed) : null,
    hasMore,
    ...(req.includeTotal ? { total: count } : {}),
  };
}

/** A page of an in-memory list. */
export function page<T, R>(url: URL, op: string, filter: string, rows: T[], render: (row: T) => R): Page<R> {
  const req = readPage(url, op, filter);
  return pageAnswer(req, rows.length, rows.slice(req.start, req.start + req.limit).map(render));
}

function mintCursor(op: string, filter: string, offset: number, fixed?: number): string {
  return Buffer.from(JSON.stringify(fixed === undefined ? [op, filter, offset] : [op, filter, offset, fixed])).toString(
    'base64url',
  );
}

function readCursor(cursor: string, op: string, filter: string): [number, number | undefined] {
  let p: unknown;
  try {
    p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    p = undefined;
  }
  const ok =
    Array.isArray(p) &&
    p[0] === op &&
    p[1] === filter &&
    Number.isSafeInteger(p[2]) &&
    p[2] >= 0 &&
    (p.length === 3 || (p.length === 4 && Number.isSafeInteger(p[3])));
  if (!ok)
    throw new V2Error(
      'INVALID_CURSOR',
      'cursor: not a cursor this operation and filter minted; pass nextCursor back verbatim',
    );
  const [, , offset, fixed] = p as [string, string, number, number?];
  return [offset, fixed];
}
