/**
 * Webhooks beyond the happy path: the backlog of a dead receiver is capped per receiver (oldest
 * dropped and counted) and the receiver is not hammered; the deliveries listing is paged; batch
 * queued/canceled/submitted events; pending deliveries survive a restart with --data-dir.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { queue, startTestEmulator } from './http-helpers.js';

const SECRET = 'whsec_dGVzdC1zZWNyZXQta2V5LWZvci13ZWJob29rcw==';
const DEAD = 'http://127.0.0.1:1/hooks';

class Receiver {
  readonly got: Array<{ headers: IncomingHttpHeaders; body: any }> = [];
  status = 204;
  attempts = 0;
  server!: Server;

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.attempts++;
        if (this.status < 300)
          this.got.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(this.status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
  }

  async until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; got ${this.got.map((g) => g.body.type).join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function emulator(opts: Parameters<typeof startTestEmulator>[0]) {
  const started = await startTestEmulator(opts);
  cleanup.push(() => started.emu.close());
  return started;
}

/** A receiver, closed after the test. */
async function receiver(): Promise<{ r: Receiver; url: string }> {
  const r = new Receiver();
  const url = await r.start();
  cleanup.push(() => r.close());
  return { r, url };
}

describe('a dead receiver', () => {
  it('keeps at most the cap of pending deliveries, drops the oldest and counts them, and is not hammered', async () => {
    const { client: c } = await emulator({
      webhooks: [{ url: DEAD, secret: SECRET }],
      webhookRetryDelaysMs: [60_000],
      webhookQueueCap: 5,
    });
    await c.post('createQueue', queue);
    for (let n = 1; n <= 20; n++) {
      await c.post('submitPullRequest', { ...queue, pr: { number: n } });
      await c.post('cancelPullRequest', { ...queue, pr: { number: n } });
    }
    const page = (await c.get('/_emulator/webhookDeliveries?take=1000')).json();
    expect(page.pending).toBe(5);
    expect(page.total).toBe(5 + page.deliveries.filter((d: any) => d.state !== 'pending').length);
    // Every PR had at least submitted, queued and canceled: 60 events, 5 kept.
    expect(page.dropped[DEAD]).toBeGreaterThanOrEqual(55);
    // The newest events are the ones kept.
    const kept = page.deliveries.filter((d: any) => d.state === 'pending');
    expect(kept.at(-1)).toMatchObject({ eventType: 'pull_request.canceled', prNumbers: [20] });
    // After the first failure the receiver is left alone until the retry is due.
    const attempts = page.deliveries.reduce((sum: number, d: any) => sum + d.attempts.length, 0);
    expect(attempts).toBeLessThanOrEqual(1);
  });

  it('reuses dropped deliveries without mixing up their events: every body sent matches its listing entry', async () => {
    const { r, url } = await receiver();
    r.status = 503;
    const { client: c } = await emulator({
      webhooks: [{ url, secret: SECRET }],
      webhookRetryDelaysMs: [50, 50, 50, 50, 50, 50, 50, 50],
      webhookQueueCap: 4,
    });
    await c.post('createQueue', queue);
    for (let n = 1; n <= 30; n++) {
      await c.post('submitPullRequest', { ...queue, pr: { number: n } });
      await c.post('cancelPullRequest', { ...queue, pr: { number: n } });
    }
    r.status = 204;
    const deadline = Date.now() + 5_000;
    let page = (await c.get('/_emulator/webhookDeliveries?take=1000')).json();
    while (page.pending > 0 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      page = (await c.get('/_emulator/webhookDeliveries?take=1000')).json();
    }
    expect(page.pending).toBe(0);
    expect(page.dropped[url]).toBeGreaterThan(50);
    const byId = new Map(page.deliveries.map((d: any) => [d.id, d]));
    expect(r.got.length).toBeGreaterThanOrEqual(4);
    // A send still in flight when its event was dropped at the cap may be received and yet no longer
    // listed (a slow machine makes that likelier); every one still listed must be its own event, and
    // an id is never sent with two different bodies.
    let listed = 0;
    const bodies = new Map<string, string>();
    for (const g of r.got) {
      const id = String(g.headers['svix-id']);
      const body = JSON.stringify(g.body);
      expect(bodies.get(id) ?? body, id).toBe(body);
      bodies.set(id, body);
      const d: any = byId.get(id);
      if (!d) continue;
      listed += 1;
      expect(g.body.type).toBe(d.eventType);
      expect([g.body.pr_number]).toEqual(d.prNumbers);
      expect(d.state).toBe('delivered');
    }
    expect(listed).toBeGreaterThanOrEqual(4);
    // The last event of all is among those delivered, with its own payload.
    expect(r.got.at(-1)!.body).toMatchObject({
      type: 'pull_request.canceled',
      pr_number: 30,
      cancellation_reason: 'USER_REQUESTED',
    });
  });

  it('pages the deliveries listing', async () => {
    const { r, url } = await receiver();
    const { client: c } = await emulator({ webhooks: [{ url, secret: SECRET }] });
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await r.until(() => r.got.length >= 3, 'three deliveries');
    const first = (await c.get('/_emulator/webhookDeliveries?take=2')).json();
    expect(first).toMatchObject({ total: 3, offset: 0, nextOffset: 2 });
    expect(first.deliveries.map((d: any) => d.eventType)).toEqual(['pull_request.submitted', 'pull_request.queued']);
    const second = (await c.get('/_emulator/webhookDeliveries?take=2&offset=2')).json();
    expect(second.deliveries.map((d: any) => d.eventType)).toEqual(['pull_request.testing']);
    expect(second.nextOffset).toBeUndefined();
    for (const bad of ['take=0', 'take=1001', 'offset=-1', 'take=x']) {
      const a = await c.get(`/_emulator/webhookDeliveries?${bad}`);
      expect(a.status, bad).toBe(400);
    }
  });
});

describe('batch events', () => {
  it('sends pull_request_batch.canceled and .queued when a PR of a batch under test is cancelled, after the PR events', async () => {
    const { r, url } = await receiver();
    const { client: c } = await emulator({ webhooks: [{ url, secret: SECRET }] });
    await c.post('createQueue', queue);
    await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 3 });
    for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    expect((await c.pr(2)).state).toBe('testing');
    await c.post('cancelPullRequest', { ...queue, pr: { number: 2 } });
    await r.until(() => r.got.some((g) => g.body.type === 'pull_request_batch.queued'), 'the batch queued event');
    const types = r.got.map((g) => g.body.type);
    const canceled = r.got.find((g) => g.body.type === 'pull_request_batch.canceled')!.body;
    expect(canceled).toMatchObject({
      action: 'canceled',
      status: 'canceled',
      cancellation_reason: 'USER_REQUESTED',
      pr_numbers_in_batch: [1, 2, 3],
      batched: true,
      is_bisection: false,
    });
    expect([...canceled.pr_numbers].sort()).toEqual([1, 2, 3]);
    expect(canceled.test_branch).toMatch(/^trunk-merge\//);
    const queued = r.got.find((g) => g.body.type === 'pull_request_batch.queued')!.body;
    expect(queued).toMatchObject({ status: 'queued', pr_numbers: [1, 3], pr_numbers_in_batch: [1, 2, 3] });
    expect(typeof queued.queued_reason).toBe('string');
    // Each batch event comes after the PR events it sums up.
    const last = (t: string, pr: number) => types.findLastIndex((x, i) => x === t && r.got[i]!.body.pr_number === pr);
    expect(types.indexOf('pull_request_batch.canceled')).toBeGreaterThan(last('pull_request.canceled', 2));
    expect(types.indexOf('pull_request_batch.queued')).toBeGreaterThan(
      Math.max(last('pull_request.queued', 1), last('pull_request.queued', 3)),
    );
  });

  it('sends pull_request_batch.queued when a batch is restarted', async () => {
    const { r, url } = await receiver();
    const { client: c } = await emulator({ webhooks: [{ url, secret: SECRET }] });
    await c.post('createQueue', queue);
    await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 2 });
    for (const n of [1, 2]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    await c.post('restartTestsOnPullRequest', { ...queue, pr: { number: 1 } });
    await r.until(() => r.got.some((g) => g.body.type === 'pull_request_batch.queued'), 'the batch queued event');
    const queued = r.got.find((g) => g.body.type === 'pull_request_batch.queued')!.body;
    expect(queued).toMatchObject({ pr_numbers: [1, 2], queued_reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(r.got.some((g) => g.body.type === 'pull_request_batch.canceled')).toBe(false);
  });
});

describe('with --data-dir', () => {
  it('pending deliveries survive a restart and go out afterwards with their ids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mq-emu-hooks-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const { r, url } = await receiver();
    r.status = 503;
    const first = await startTestEmulator({
      dataDir: dir,
      webhooks: [{ url, secret: SECRET }],
      webhookRetryDelaysMs: [60_000],
    });
    await first.client.post('createQueue', queue);
    await first.client.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await r.until(() => r.attempts >= 1, 'the first (failed) attempt');
    const before = (await first.client.get('/_emulator/webhookDeliveries')).json().deliveries;
    expect(before.map((d: any) => d.state)).toEqual(['pending', 'pending', 'pending']);
    await first.emu.close();

    r.status = 204;
    const second = await emulator({
      dataDir: dir,
      webhooks: [{ url, secret: SECRET }],
      webhookRetryDelaysMs: [60_000],
    });
    await r.until(() => r.got.length >= 3, 'the pending deliveries after the restart');
    expect(r.got.map((g) => g.body.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
    ]);
    expect(r.got.map((g) => g.headers['svix-id'])).toEqual(before.map((d: any) => d.id));
    const after = (await second.client.get('/_emulator/webhookDeliveries')).json().deliveries;
    expect(after[0].attempts.map((a: any) => a.status)).toEqual([503, 204]);
  });
});
