/**
 * What the server refuses before a v2 route runs (a wrong method, a body over the limit, a change
 * it cannot make durable) comes in v2's envelope with X-Request-Id; v1 answers them as before.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';

import type { Clock } from '../../src/emulator/clock.js';
import { createState, QueueEngine } from '../../src/emulator/engine/index.js';
import { PERMISSIONS } from '../../src/emulator/http/v2/auth.js';
import { DurabilityError } from '../../src/emulator/journal.js';
import { createEmulatorServer, type EmulatorServer } from '../../src/emulator/server.js';
import type { StateStore } from '../../src/emulator/store.js';
import { Client, queue, T0, TOKEN } from './http-helpers.js';
import { fails, KEY, MergeQueue, ok, setUp, start, stop, v2 } from './v2-helpers.js';

let server: EmulatorServer | undefined;
afterEach(async () => {
  await stop();
  await server?.close();
  server = undefined;
});

const MiB = 1024 * 1024;

it('answers a wrong method on a v2 path 405 with Allow, in the envelope; v1 keeps its plain 405', async () => {
  const c = await start();
  const { q } = await setUp(c);
  const a = await v2(c, 'PUT', '/v2/merge-queues');
  expect(a.headers.get('allow')).toBe('GET, POST');
  await fails(Promise.resolve(a), 405, 'METHOD_NOT_ALLOWED');
  const patch = await v2(c, 'PATCH', `/v2/merge-queues/${q.id}`);
  expect(patch.headers.get('allow')).toBe('GET, DELETE');
  await fails(Promise.resolve(patch), 405, 'METHOD_NOT_ALLOWED');
  const v1 = await c.request('GET', '/v1/getQueue');
  expect([v1.status, v1.type, v1.headers.get('allow')]).toEqual([405, 'text/plain; charset=utf-8', 'POST']);
  expect(v1.headers.get('x-request-id')).toBeNull();
});

it('answers a body over the limit 413 in the envelope and stays usable; v1 keeps its plain 413', async () => {
  const c = await start();
  const { q } = await setUp(c);
  await fails(v2(c, 'POST', `/v2/merge-queues/${q.id}/pull-requests`, ' '.repeat(21 * MiB)), 413, 'PAYLOAD_TOO_LARGE');
  await ok(MergeQueue, v2(c, 'GET', `/v2/merge-queues/${q.id}`));
  const v1 = await c.post('submitPullRequest', ' '.repeat(21 * MiB));
  expect([v1.status, v1.text]).toEqual([413, 'request body is larger than the 20 MiB limit']);
});

it('answers a change it cannot make durable 503 with Retry-After in the envelope; v1 keeps its plain 503', async () => {
  const engine = new QueueEngine(createState(7, T0));
  const clock: Clock = { kind: 'manual', speed: 1, now: () => engine.now, wallDelayUntil: () => 0 };
  let failing = false;
  // A store whose disk is full once `failing` is set.
  const store = {
    beginOp() {},
    endOp() {},
    recordOp: () => 1,
    recordPrune: () => undefined,
    durable: () => (failing ? Promise.reject(new DurabilityError({ code: 'ENOSPC' })) : Promise.resolve()),
  } as unknown as StateStore;
  const apiKeys = [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }];
  server = createEmulatorServer({ engine, clock, token: TOKEN, apiKeys, store, rateLimits: false });
  const s = server.server;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const c = new Client({ url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, token: TOKEN });
  const { q } = await setUp(c);
  failing = true;
  const a = await v2(c, 'POST', `/v2/merge-queues/${q.id}/pause`);
  expect(a.headers.get('retry-after')).toBe('5');
  expect(a.json().error.message).toContain('could not be made durable');
  await fails(Promise.resolve(a), 503, 'SERVICE_UNAVAILABLE');
  const v1 = await c.post('updateQueue', { ...queue, state: 'paused' });
  expect([v1.status, v1.type, v1.headers.get('retry-after')]).toEqual([503, 'text/plain; charset=utf-8', '5']);
  expect(v1.text).toContain('could not be made durable');
});
