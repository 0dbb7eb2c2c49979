/**
 * v2 paging: `limit` 1–100 (default 25), `includeTotal`, and an opaque forward cursor bound to the
 * operation and filter that minted it (anything else is 400 INVALID_CURSOR).
 */
import { V2Error } from './errors.js';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
  total?: number;
}

export function page<T, R>(url: URL, op: string, filter: string, rows: T[], render: (row: T) => R): Page<R> {
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
  const start = cursor === null ? 0 : readCursor(cursor, op, filter);
  const end = start + limit;
  const hasMore = rows.length > end;
  return {
    data: rows.slice(start, end).map(render),
    nextCursor: hasMore ? mintCursor(op, filter, end) : null,
    hasMore,
    ...(rawTotal === 'true' ? { total: rows.length } : {}),
  };
}

function mintCursor(op: string, filter: string, offset: number): string {
  return Buffer.from(JSON.stringify([op, filter, offset])).toString('base64url');
}

function readCursor(cursor: string, op: string, filter: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed[0] !== op || parsed[1] !== filter || !Number.isSafeInteger(parsed[2]) || parsed[2] < 0) {
    throw new V2Error('INVALID_CURSOR', 'cursor: not a cursor this operation and filter minted; pass nextCursor back verbatim');
  }
  return parsed[2] as number;
}
