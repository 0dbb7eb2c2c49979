/** v2 rate limits on an injected wall clock: per organisation, per key on pull-request reads, and off. */
import { afterEach, expect, it } from 'vitest';

import { fails, KEY, ok, READER, start, stop, v2 } from './v2-helpers.js';
import { list, MergeQueue } from './v2-helpers.js';

afterEach(stop);

let wall = 0;
const limited = () => start(undefined, { rateLimitClock: () => wall });

it('allows 100 requests a second per organisation, then 429 with Retry-After, across keys', async () => {
  wall = 1_000_000_400;
  const c = await limited();
  for (let i = 0; i < 100; i++)
    await ok(list(MergeQueue), v2(c, 'GET', '/v2/merge-queues', undefined, i % 2 ? KEY : READER));
  const a = await v2(c, 'GET', '/v2/merge-queues', undefined, READER);
  expect(a.headers.get('retry-after')).toBe('1');
  await fails(Promise.resolve(a), 429, 'RATE_LIMIT_EXCEEDED');
  wall += 600;
  await ok(list(MergeQueue), v2(c, 'GET', '/v2/merge-queues'));
});

it('allows 5 pull-request reads a second per key, outside the organisation count', async () => {
  wall = 2_000_000_000;
  const c = await limited();
  const path = '/v2/pull-requests/00000000-0000-5000-8000-000000000000';
  for (let i = 0; i < 5; i++) await fails(v2(c, 'GET', path), 404, 'PR_NOT_FOUND');
  await fails(v2(c, 'GET', path), 429, 'RATE_LIMIT_EXCEEDED');
  // Another key has its own five; other reads still pass.
  await fails(v2(c, 'GET', path, undefined, READER), 404, 'PR_NOT_FOUND');
  await ok(list(MergeQueue), v2(c, 'GET', '/v2/merge-queues'));
});

it('counts metrics reads apart, 5 a second', async () => {
  wall = 3_000_000_000;
  const c = await limited();
  for (let i = 0; i < 5; i++) {
    const a = await v2(c, 'GET', '/v2/merge-queues/metrics');
    expect(a.status).toBe(200);
  }
  await fails(v2(c, 'GET', '/v2/merge-queues/metrics'), 429, 'RATE_LIMIT_EXCEEDED');
  await ok(list(MergeQueue), v2(c, 'GET', '/v2/merge-queues'));
});

it('rateLimits: false turns them off', async () => {
  wall = 4_000_000_000;
  const c = await start(undefined, { rateLimits: false, rateLimitClock: () => wall });
  const path = '/v2/pull-requests/00000000-0000-5000-8000-000000000000';
  for (let i = 0; i < 8; i++) await fails(v2(c, 'GET', path), 404, 'PR_NOT_FOUND');
});
