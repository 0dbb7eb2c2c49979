/**
 * v2 rate limits, as Trunk documents them: 100 requests/s per organisation; `GET /v2/pull-requests*`
 * 5/s per key and metrics 5/s, each outside the organisation's count. Counted in one-second windows
 * of wall time (not engine time: a manual clock stands still).
 */
import type { ApiKey } from './auth.js';
import { V2Error } from './errors.js';

const ORG_PER_S = 100;
const PULL_REQUESTS_PER_S = 5;
const METRICS_PER_S = 5;

/** Which limit a request counts against, and that limit per second. */
function bucketOf(method: string, pathname: string, key: ApiKey): [string, number] {
  if (method === 'GET' && /^\/v2\/merge-queues\/(?:[^/]+\/)?metrics$/.test(pathname)) return ['metrics', METRICS_PER_S];
  if (method === 'GET' && /^\/v2\/pull-requests(?:\/|$)/.test(pathname)) return [`key:${key.key}`, PULL_REQUESTS_PER_S];
  return ['org', ORG_PER_S];
}

export type RateLimiter = (method: string, pathname: string, key: ApiKey) => void;

/** Counts a request, or throws 429 RATE_LIMIT_EXCEEDED with `Retry-After` (seconds). */
export function rateLimiter(wallNow: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { second: number; count: number }>();
  return (method, pathname, key) => {
    const now = wallNow();
    const second = Math.floor(now / 1000);
    const [bucket, limit] = bucketOf(method, pathname, key);
    const w = windows.get(bucket);
    if (!w || w.second !== second) {
      windows.set(bucket, { second, count: 1 });
      return;
    }
    if (w.count >= limit) {
      const wait = Math.max(1, Math.ceil(((second + 1) * 1000 - now) / 1000));
      throw new V2Error('RATE_LIMIT_EXCEEDED', `over ${limit} requests per second; retry after ${wait} s`, {
        'retry-after': String(wait),
      });
    }
    w.count++;
  };
}
