/**
 * The kept answers of getSubmittedPullRequest (src/emulator/http/read-cache.ts): the same request
 * body is answered again without asking the engine, and never once anything changed: a request
 * that changes state, a clock tick (the control API's or the running clock's timer), a time step a
 * read applies itself, a retention prune, a rolled-back write, or a change made on the engine directly.
 * v2's GET /v2/pull-requests/{id} keeps its answers the same way.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import type { Clock } from '../../src/emulator/clock.js';
import { createState, QueueEngine, validateState } from '../../src/emulator/engine/index.js';
import { ReadCache } from '../../src/emulator/http/read-cache.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { createEmulatorServer, type EmulatorServer } from '../../src/emulator/server.js';
import { PERMISSIONS } from '../../src/emulator/http/v2/auth.js';
import { Client, queue, startTestEmulator, T0, TOKEN } from './http-helpers.js';
import { KEY, v2 } from './v2-helpers.js';

let emu: RunningEmulator | undefined;
let server: EmulatorServer | undefined;
afterEach(async () => {
  await emu?.close();
  await server?.close();
  emu = undefined;
  server = undefined;
});

/** An emulator (closed after the test) with the queue created. */
async function withQueue(options: Parameters<typeof startTestEmulator>[0] = {}) {
  const started = await startTestEmulator(options);
  emu = started.emu;
  await started.client.post('createQueue', queue);
  return { c: started.client, emu: started.emu };
}

/** The engine served on a free port (closed after the test): a client of it. */
async function serve(engine: QueueEngine, clock: Clock): Promise<Client> {
  server = createEmulatorServer({ engine, clock, token: TOKEN });
  const s = server.server;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return new Client({ url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, token: TOKEN });
}

/** Counts the engine's answers to getSubmittedPullRequest: a kept answer does not ask it. */
function countLookups(engine: QueueEngine): { count: number } {
  const counter = { count: 0 };
  const original = engine.getSubmittedPullRequest.bind(engine);
  engine.getSubmittedPullRequest = (req, now) => {
    counter.count++;
    return original(req, now);
  };
  return counter;
}

const read = (c: Client, body: unknown) => c.post('getSubmittedPullRequest', body);

describe('kept answers of getSubmittedPullRequest', () => {
  it('the same body is answered again without the engine, byte for byte; another body is asked anew', async () => {
    const { c, emu } = await withQueue();
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const lookups = countLookups(emu.engine);
    const body = { ...queue, pr: { number: 1 } };
    const first = await read(c, body);
    const again = [await read(c, body), await read(c, body)];
    expect(first.status).toBe(200);
    expect(again.map((a) => [a.status, a.text, a.type])).toEqual([
      [200, first.text, first.type],
      [200, first.text, first.type],
    ]);
    expect(lookups.count).toBe(1);
    // Another body (the timeline asked for; the same request spelled otherwise) is its own answer.
    const timeline = await read(c, { ...body, includeTimeline: true });
    expect(timeline.json().timeline.length).toBeGreaterThan(0);
    const spelled = await c.post(
      'getSubmittedPullRequest',
      `{ "pr": {"number": 1}, "targetBranch": "main", "repo": ${JSON.stringify(queue.repo)} }`,
    );
    expect(spelled.text).toBe(first.text);
    expect(lookups.count).toBe(3);
  });

  it('a request that changes state drops them: the next read shows the change', async () => {
    const { c } = await withQueue();
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const body = { ...queue, pr: { number: 1 } };
    expect((await read(c, body)).json().state).toBe('testing');
    expect((await read(c, body)).json().state).toBe('testing');
    expect((await c.post('cancelPullRequest', body)).status).toBe(200);
    expect((await read(c, body)).json().state).toBe('cancelled');
  });

  it('a change made on the engine itself, not through a request, is seen too', async () => {
    const { c, emu } = await withQueue();
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    const body = { ...queue, pr: { number: 2 } };
    expect((await read(c, body)).json().state).toBe('testing');
    emu.engine.cancel(body, emu.engine.now);
    expect((await read(c, body)).json().state).toBe('cancelled');
  });

  it('an error is not kept: an unknown PR is looked up every time', async () => {
    const { c, emu } = await withQueue();
    const lookups = countLookups(emu.engine);
    const body = { ...queue, pr: { number: 404 } };
    expect((await read(c, body)).status).toBe(404);
    expect((await read(c, body)).status).toBe(404);
    expect(lookups.count).toBe(2);
  });

  it('events a read applies itself (time has passed, no request changed anything) make a new answer', async () => {
    // A clock that moves only when the test says, with no timer of its own: the reads apply what is due.
    let now = T0;
    const clock: Clock = { kind: 'manual', speed: 1, now: () => now, wallDelayUntil: () => 0 };
    const engine = new QueueEngine(createState(7, T0));
    const c = await serve(engine, clock);
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 3 } });
    const body = { ...queue, pr: { number: 3 } };
    expect((await read(c, body)).json().state).toBe('testing');
    expect((await read(c, body)).json().state).toBe('testing');
    // A day later the run has finished (passed or timed out): the PR is no longer testing.
    now += 24 * 3600_000;
    expect((await read(c, body)).json().state).not.toBe('testing');
  });
});

/** Reads PR `n` twice (the second answer kept: the engine is asked once) and returns its state. */
async function keptState(c: Client, engine: QueueEngine, n: number): Promise<string> {
  const lookups = countLookups(engine);
  const body = { ...queue, pr: { number: n } };
  const first = await read(c, body);
  expect((await read(c, body)).text).toBe(first.text);
  expect(lookups.count).toBe(1);
  return first.json().state;
}

describe('kept answers go on every kind of change', () => {
  it('a manual clock advanced through the control API', async () => {
    const { c, emu } = await withQueue();
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    expect(await keptState(c, emu.engine, 1)).toBe('testing');
    expect((await c.advance(24 * 60)).status).toBe(200);
    expect((await c.pr(1)).state).not.toBe('testing');
  });

  it("the running clock's timer applying due events, with no request in between", async () => {
    // 10 engine minutes (a run) take 2 s of wall time: the two reads come well before.
    const { c, emu } = await withQueue({ clock: 'real', speed: 300 });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    expect(await keptState(c, emu.engine, 1)).toBe('testing');
    const engine = emu.engine;
    const merged = () => Object.values(engine.state.queues)[0]?.entries['1']?.state === 'merged';
    const deadline = Date.now() + 30_000;
    while (!merged()) {
      if (Date.now() > deadline) throw new Error('the run did not complete on the real clock');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await c.pr(1)).state).toBe('merged');
  }, 40_000);

  it('a retention prune: a pruned PR is no longer answered', async () => {
    const { c, emu } = await withQueue({ retentionMs: 60_000 });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 1 } });
    expect(await keptState(c, emu.engine, 1)).toBe('cancelled');
    // Retention looks once an engine hour: past it, the concluded PR is dropped.
    expect((await c.advance(61)).status).toBe(200);
    expect((await read(c, { ...queue, pr: { number: 1 } })).status).toBe(404);
  });

  it('a rolled-back write: the state rebuilt from disk is answered, not the undone change', async () => {
    const engine = new QueueEngine(createState(7, T0));
    const clock: Clock = { kind: 'manual', speed: 1, now: () => engine.now, wallDelayUntil: () => 0 };
    const c = await serve(engine, clock);
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const durable = JSON.stringify(engine.state);
    await c.post('cancelPullRequest', { ...queue, pr: { number: 1 } });
    expect(await keptState(c, engine, 1)).toBe('cancelled');
    // What StateStore does when the cancel cannot be made durable: the state is loaded again (the
    // engine counts no change) and the server is told (start-emulator.ts wires onRollback to it).
    engine.state = validateState(JSON.parse(durable));
    (server as EmulatorServer).changed();
    expect((await c.pr(1)).state).toBe('testing');
  });
});

describe('ReadCache', () => {
  it('keeps an answer while nothing changed, and never one computed from a state that is gone', () => {
    const engine = { changes: 0 };
    const cache = new ReadCache(engine, 3);
    let stamp = cache.stamp();
    cache.set('a', 'A', stamp);
    expect(cache.get('a')).toBe('A');
    engine.changes++;
    expect(cache.get('a')).toBeUndefined();
    // Computed before a change, kept after it: refused.
    stamp = cache.stamp();
    cache.invalidate();
    cache.set('a', 'A1', stamp);
    expect(cache.get('a')).toBeUndefined();
    stamp = cache.stamp();
    engine.changes++;
    cache.set('a', 'A2', stamp);
    expect(cache.get('a')).toBeUndefined();
    // At most `max` answers: a full cache starts over.
    stamp = cache.stamp();
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, k.toUpperCase(), stamp);
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([undefined, undefined, undefined, 'D']);
  });
});

describe('kept answers of GET /v2/pull-requests/{id}', () => {
  it('answers the same read again without the engine, until a change or a time step', async () => {
    const started = await startTestEmulator({
      apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }],
      rateLimits: false,
    });
    emu = started.emu;
    const c = started.client;
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const repo = (await v2(c, 'GET', '/v2/repositories?providerUrl=https://github.com/acme/app')).json().data[0];
    const found = (await v2(c, 'GET', `/v2/pull-requests?repositoryId=${repo.id}&number=1`)).json();
    const path = `/v2/pull-requests/${found.data[0].id}`;
    const lookups = countLookups(emu.engine);
    const answers = [await v2(c, 'GET', path), await v2(c, 'GET', path), await v2(c, 'GET', path)];
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(new Set(answers.map((a) => a.headers.get('x-request-id'))).size).toBe(3);
    expect(answers[2]?.type).toBe('application/json; charset=utf-8');
    expect(lookups.count).toBe(1);
    expect(JSON.parse(answers[0]?.text ?? '').queueEntry.state).toBe('testing');
    // A time step (the run finishes) and a change (a v1 resubmit) each make a new answer.
    await c.advance(60);
    expect((await v2(c, 'GET', path)).json().queueEntry.state).toBe('merged');
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    expect((await v2(c, 'GET', path)).json().queueEntry.state).toBe('testing');
    expect(lookups.count).toBe(3);
  });
});
