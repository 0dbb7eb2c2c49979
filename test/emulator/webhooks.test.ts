/**
 * Webhooks end to end: a local receiver gets the deliveries of a real emulator and checks every
 * signature with its own implementation of the Svix scheme (written here, apart from the signer),
 * including the timestamp tolerance; a tampered body must fail. Also: payload shapes, per-PR order,
 * retries with backoff, the deliveries listing, and the command-line checks.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';

import { runEmulatorStart, type RunningEmulator } from '../../src/emulator/index.js';
import { type Client, queue, repo, startTestEmulator } from './http-helpers.js';

const SECRET = 'whsec_dGVzdC1zZWNyZXQta2V5LWZvci13ZWJob29rcw==';

// ---- an independent Svix verifier -------------------------------------------------------------

const TOLERANCE_S = 5 * 60;

function verify(secret: string, headers: IncomingHttpHeaders, raw: Buffer, nowS = Date.now() / 1000): boolean {
  const id = headers['svix-id'];
  const ts = headers['svix-timestamp'];
  const sigs = headers['svix-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string') return false;
  if (!/^\d+$/.test(ts) || Math.abs(nowS - Number(ts)) > TOLERANCE_S) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`, 'utf8'), raw]))
    .digest();
  return sigs.split(' ').some((entry) => {
    const [version, b64] = entry.split(',', 2);
    if (version !== 'v1' || b64 === undefined) return false;
    const given = Buffer.from(b64, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

class Receiver {
  readonly got: Received[] = [];
  /** Answers for the next requests (status codes), then 204. */
  readonly script: number[] = [];
  server!: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const status = this.script.shift() ?? 204;
        if (status < 300) this.got.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
  }

  async until(check: (got: Received[]) => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!check(this.got)) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; got ${this.got.map((g) => g.body.type).join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

let emu: RunningEmulator | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await emu?.close();
  await receiver?.close();
  emu = undefined;
  receiver = undefined;
});

async function setup(retryDelaysMs = [20, 20, 20]): Promise<{ c: Client; r: Receiver }> {
  const r = new Receiver();
  const url = await r.start();
  const started = await startTestEmulator({ webhooks: [{ url, secret: SECRET }], webhookRetryDelaysMs: retryDelaysMs });
  emu = started.emu;
  receiver = r;
  return { c: started.client, r };
}

describe('webhook deliveries', () => {
  it('delivers pull_request.* events signed as Svix signs them; a tampered body fails verification', async () => {
    const { c, r } = await setup();
    await c.post('createQueue', { ...queue, concurrency: 5 });
    await c.post('/_emulator/pullRequests', { repo, number: 2, breaksBuild: true, author: 'mona' });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    await c.advance(10);
    await c.post('submitPullRequest', { ...queue, pr: { number: 3 } });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 3 } });
    await r.until((g) => g.length >= 13, '13 events');

    for (const g of r.got) {
      expect(verify(SECRET, g.headers, g.raw), `signature of ${g.body.type}`).toBe(true);
      expect(g.headers['svix-id']).toMatch(/^msg_/);
      expect(g.headers['content-type']).toBe('application/json');
    }
    const sample = r.got[0]!;
    // Tampering with one byte of the body, the timestamp or the secret breaks the signature.
    const tampered = Buffer.from(sample.raw.toString('utf8').replace('"pr_number":1', '"pr_number":7'));
    expect(tampered.equals(sample.raw)).toBe(false);
    expect(verify(SECRET, sample.headers, tampered)).toBe(false);
    expect(
      verify(
        SECRET,
        { ...sample.headers, 'svix-timestamp': String(Number(sample.headers['svix-timestamp']) + 1) },
        sample.raw,
      ),
    ).toBe(false);
    expect(verify('whsec_b3RoZXItc2VjcmV0LWtleS1mb3Itd2ViaG9va3M=', sample.headers, sample.raw)).toBe(false);
    // Outside the tolerance window the same delivery is refused.
    expect(verify(SECRET, sample.headers, sample.raw, Date.now() / 1000 + TOLERANCE_S + 60)).toBe(false);

    const byPr = (n: number) => r.got.filter((g) => g.body.pr_number === n).map((g) => g.body.type);
    expect(byPr(1)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.merged',
    ]);
    expect(byPr(2)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.pending_failure',
      'pull_request.failed',
    ]);
    expect(byPr(3)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
      'pull_request.canceled',
    ]);

    const body = (n: number, type: string) => r.got.find((g) => g.body.pr_number === n && g.body.type === type)!.body;
    expect(body(2, 'pull_request.failed')).toMatchObject({
      action: 'failed',
      status: 'failed',
      author: 'mona',
      http_details_url: 'https://github.com/acme/app/pull/2',
      repository: repo,
      target_branch: 'main',
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      is_bisection: false,
      batched: false,
    });
    expect(body(2, 'pull_request.failed').test_branch).toMatch(/^trunk-merge\/pr-2\//);
    expect(body(1, 'pull_request.queued')).toMatchObject({ queued_reason: 'MERGE_ITEM_NOW_READY' });
    expect(body(1, 'pull_request.merged')).toMatchObject({ merged_reason: 'MERGE_GRAPH_MERGE', status: 'merged' });
    expect(body(1, 'pull_request.testing')).toMatchObject({ is_bisection: false, batched: false });
    expect(body(3, 'pull_request.canceled')).toMatchObject({
      cancellation_reason: 'USER_REQUESTED',
      status: 'canceled',
    });
    expect(body(1, 'pull_request.submitted').timestamp).toBe('2026-01-01T09:00:00.000Z');

    const listing = (await c.get('/_emulator/webhookDeliveries')).json();
    expect(listing.deliveries).toHaveLength(13);
    expect(listing.deliveries[0]).toMatchObject({
      eventType: 'pull_request.submitted',
      prNumbers: [1],
      state: 'delivered',
      attempts: [{ status: 204 }],
    });
    expect(listing.deliveries[0].url).toMatch(/\/hooks$/);
  });

  it('sends pull_request_batch.* events when a batch starts testing and merges', async () => {
    const { c, r } = await setup();
    await c.post('createQueue', queue);
    await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 2 });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    await c.advance(10);
    await r.until((g) => g.some((x) => x.body.type === 'pull_request_batch.merged'), 'the batch merge');
    const batch = r.got.filter((g) => g.body.type.startsWith('pull_request_batch.'));
    expect(batch.map((g) => g.body.type)).toEqual([
      'pull_request_batch.submitted',
      'pull_request_batch.testing',
      'pull_request_batch.merged',
    ]);
    expect(batch[0]!.body).toMatchObject({
      pr_numbers: [1, 2],
      pr_numbers_in_batch: [1, 2],
      status: 'submitted',
      action: 'submitted',
    });
    expect(batch[1]!.body).toMatchObject({
      pr_numbers: [1, 2],
      pr_numbers_in_batch: [1, 2],
      batched: true,
      is_bisection: false,
      status: 'testing',
    });
    expect(batch[1]!.body.test_branch).toMatch(/^trunk-merge\/pr-1\//);
    expect(batch[0]!.body.test_branch).toBe(batch[1]!.body.test_branch);
    for (const g of batch) expect(verify(SECRET, g.headers, g.raw)).toBe(true);
    const testing = r.got.find((g) => g.body.type === 'pull_request.testing')!.body;
    expect(testing.batched).toBe(true);
    // The batch event comes after each of its PRs' own events.
    const at = (pred: (g: Received) => boolean) => r.got.findIndex(pred);
    expect(at((g) => g.body.type === 'pull_request_batch.merged')).toBeGreaterThan(
      at((g) => g.body.type === 'pull_request.merged' && g.body.pr_number === 2),
    );
  });

  it('retries a failed delivery with backoff, keeps the events of a PR in order, and never blocks the queue', async () => {
    const { c, r } = await setup([30, 30, 30]);
    await c.post('createQueue', queue);
    r.script.push(500, 503);
    const t0 = Date.now();
    const submit = await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    expect(submit.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((await c.pr(1)).state).toBe('testing');
    await r.until((g) => g.length >= 3, 'three events after the retries');
    expect(r.got.map((g) => g.body.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
      'pull_request.testing',
    ]);
    for (const g of r.got) expect(verify(SECRET, g.headers, g.raw)).toBe(true);
    const deliveries = (await c.get('/_emulator/webhookDeliveries')).json().deliveries;
    expect(deliveries[0].attempts.map((a: any) => a.status)).toEqual([500, 503, 204]);
    expect(deliveries[0].state).toBe('delivered');
    // The message id stays; each attempt is signed again (own timestamp).
    const ids = new Set(r.got.map((g) => g.headers['svix-id']));
    expect(ids.size).toBe(3);
  });

  it('gives a delivery up after the last retry and moves on to the next event of the PR', async () => {
    const { c, r } = await setup([10]);
    await c.post('createQueue', queue);
    r.script.push(500, 500);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await r.until((g) => g.length >= 2, 'the events after the given-up one');
    expect(r.got.map((g) => g.body.type)).toEqual(['pull_request.queued', 'pull_request.testing']);
    const deliveries = (await c.get('/_emulator/webhookDeliveries')).json().deliveries;
    expect(deliveries[0]).toMatchObject({ eventType: 'pull_request.submitted', state: 'failed' });
    expect(deliveries[0].attempts.map((a: any) => a.status)).toEqual([500, 500]);
  });

  it('records a receiver that cannot be reached as an attempt error', async () => {
    const started = await startTestEmulator({
      webhooks: [{ url: 'http://127.0.0.1:1/hooks', secret: SECRET }],
      webhookRetryDelaysMs: [10],
    });
    emu = started.emu;
    const c = started.client;
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const deadline = Date.now() + 5_000;
    let first: any;
    do {
      await new Promise((res) => setTimeout(res, 20));
      first = (await c.get('/_emulator/webhookDeliveries')).json().deliveries[0];
    } while (first.state === 'pending' && Date.now() < deadline);
    expect(first.state).toBe('failed');
    expect(first.attempts).toHaveLength(2);
    expect(first.attempts[0].error).toBeTruthy();
  });
});

describe('mq emulator start --webhook', () => {
  function capture() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
  }

  it('refuses a malformed URL or secret with exit 2', async () => {
    for (const [urls, secrets, message] of [
      [['ftp://example.test/x'], [], 'not an http or https URL'],
      [['not a url'], [], 'is not a URL'],
      [['http://example.test/x'], ['secret'], 'starts with whsec_'],
      [['http://example.test/x'], ['whsec_!!!'], 'followed by base64'],
      [['http://a.test/', 'http://b.test/', 'http://c.test/'], [SECRET, SECRET], 'one per --webhook (3), not 2'],
      [[], [SECRET], 'needs at least one --webhook'],
    ] as const) {
      const { out, err, io } = capture();
      expect(await runEmulatorStart({ port: 0, webhookUrls: [...urls], webhookSecrets: [...secrets] }, io)).toBe(2);
      expect(out).toEqual([]);
      expect(err.join('')).toContain(message);
    }
  });

  it('generates a secret when none is given and shows it on stderr only', async () => {
    const { out, err, io } = capture();
    const stop = new AbortController();
    const done = runEmulatorStart(
      { port: 0, clock: 'manual', webhookUrls: ['http://127.0.0.1:9/hooks'], signal: stop.signal },
      io,
    );
    const deadline = Date.now() + 5_000;
    while (out.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(out.join('')).toMatch(/^mq emulator listening on http:\/\//);
    expect(out.join('')).not.toContain('whsec_');
    const secret = /webhook signing secret[^:]*: (whsec_[A-Za-z0-9+/=]+)/.exec(err.join(''))?.[1];
    expect(secret).toBeDefined();
    expect(Buffer.from(secret!.slice(6), 'base64')).toHaveLength(24);
    stop.abort();
    expect(await done).toBe(0);
  });
});
