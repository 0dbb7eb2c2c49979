/**
 * Webhook deliveries (trunk-wire §3): the engine's effects become `pull_request.*` and
 * `pull_request_batch.*` events, POSTed to each configured receiver and signed as Svix signs them,
 * so a receiver verifying with a Svix-compatible library accepts them:
 *
 *   svix-id: msg_…   svix-timestamp: <unix seconds>   svix-signature: v1,<base64 HMAC-SHA256>
 *   signed content `${id}.${timestamp}.${body}`, key = base64-decoded part of `whsec_…`.
 *
 * Delivery is I/O, so it lives here and never inside the engine: `enqueue` only builds the payload
 * and queues it; sending happens on the event loop afterwards, so a slow or dead receiver never
 * holds up a request or the queue. Failed attempts (non-2xx, network error, timeout) are retried
 * with backoff; events about the same PR are delivered strictly in order per receiver (a later one
 * waits until the earlier one is delivered or given up). A message keeps its id across attempts;
 * each attempt is signed with its own timestamp, as Svix does.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import type { Effect } from './engine/index.js';
import { BatchCollector, eventFor, prEventKey, prEventOf, prPayload, type PrEvent, type WebhookEvent } from './webhook-events.js';
import { checkWebhookUrl, secretKey, signature } from './webhook-signing.js';

/** Delays before the 2nd, 3rd, … attempt; after the last one the delivery is given up. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Finished deliveries kept for the listing; the oldest finished ones go first. */
const MAX_KEPT = 10_000;

export interface WebhookTarget {
  url: string;
  /** `whsec_` + base64 key. */
  secret: string;
}

export interface WebhookOptions {
  targets: WebhookTarget[];
  retryDelaysMs?: number[];
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface DeliveryAttempt {
  at: string;
  status?: number;
  error?: string;
}

export interface WireDelivery {
  id: string;
  eventType: string;
  prNumbers: number[];
  url: string;
  attempts: DeliveryAttempt[];
  state: 'pending' | 'delivered' | 'failed';
}

// ---- secrets and signatures ------------------------------------------------------------------------

/** Pending deliveries kept per receiver; past it the oldest is dropped (and counted). */
export const DEFAULT_QUEUE_CAP = 1_000;
/** Attempts in flight per receiver. */
const MAX_IN_FLIGHT = 8;

/** A pending delivery as it is kept in --data-dir (snapshot and journal). */
export interface PersistedDelivery {
  id: string;
  eventType: string;
  prNumbers: number[];
  url: string;
  body: string;
  /** Ordering keys without the receiver prefix. */
  keys: string[];
  attempts: DeliveryAttempt[];
}

export interface PersistedWebhooks {
  pending: PersistedDelivery[];
  /** Deliveries dropped by the queue cap, per receiver URL. */
  dropped: Record<string, number>;
}

export interface WebhookPersistence {
  /** A delivery was queued (`w+`) or left the queue (`w-`: delivered, given up or dropped). */
  record(kind: 'w+' | 'w-', data: Record<string, unknown>): void;
}

export interface WebhookOptions {
  targets: WebhookTarget[];
  retryDelaysMs?: number[];
  timeoutMs?: number;
  /** Pending deliveries per receiver before the oldest is dropped (default 1,000). */
  queueCap?: number;
  log?: (line: string) => void;
  /** Pending deliveries to resume (from --data-dir). */
  restore?: PersistedWebhooks;
}

/** Most deliveries behind a dead receiver are dropped before their first attempt: they share this. */
const NO_ATTEMPTS: DeliveryAttempt[] = Object.freeze([]) as unknown as DeliveryAttempt[];

/** Dropped deliveries kept for reuse (see `obtain`). */
const MAX_SPARE = 64;

/**
 * A queued delivery. Behind a dead receiver nearly every one is dropped by the cap before its first
 * attempt, after living for about a thousand events: long enough for V8 to promote it to the old
 * generation, where ~190,000 of them made a 20,000-PR run's heap grow by ~50 MiB. So a delivery
 * holds no per-event strings, arrays or closures for a PR event (its fields are references, see
 * PrEvent), and a dropped delivery's object (with its PrEvent) is reused for the next one.
 */
interface Delivery {
  /** The message id, or its number: the id of a delivery made here is spelled out only when needed (idOf). */
  id: string | number;
  seq: number;
  eventType: string;
  /** The PR of a pull_request.* event, or the PRs of a batch event. */
  prs: number | number[];
  target: Target;
  /** Ordering keys without the receiver prefix: the one key of a PR event, or one per PR. */
  keys: string | string[];
  /** What the body is made from until it is serialised: a PR event's fields… */
  pr: PrEvent | undefined;
  /** …or a payload builder (batch events). */
  build: (() => Record<string, unknown>) | undefined;
  /** The body once serialised (first send or persist); '' once the delivery is finished. */
  text: string | undefined;
  attempts: DeliveryAttempt[];
  state: WireDelivery['state'] | 'dropped';
  sending: boolean;
  timer: NodeJS.Timeout | undefined;
}

function bodyOf(d: Delivery): string {
  if (d.text === undefined) {
    d.text = JSON.stringify(d.pr ? prPayload(d.pr) : d.build ? d.build() : {});
    d.build = undefined;
  }
  return d.text;
}

const prNumbersOf = (d: Delivery): number[] => (typeof d.prs === 'number' ? [d.prs] : [...d.prs]);

interface Target extends WebhookTarget {
  key: Buffer;
  /** Message ids of this process: this prefix and a counter. */
  idPrefix: string;
  /** Pending deliveries, oldest first. */
  pending: Set<Delivery>;
  /** Pending deliveries at the head of all their lines and not waiting for a retry, oldest first. */
  ready: Set<Delivery>;
  /** Per PR: pending deliveries in order (the head is the only one that may be sent). */
  lines: Map<string, Delivery[]>;
  inFlight: number;
  /** After a failed attempt the receiver gets nothing new until then (wall ms). */
  pausedUntil: number;
  pauseTimer: NodeJS.Timeout | undefined;
  dropped: number;
}

export interface DeliveryPage {
  deliveries: WireDelivery[];
  total: number;
  offset: number;
  nextOffset?: number;
  /** Pending deliveries dropped by the queue cap, per receiver URL. */
  dropped: Record<string, number>;
  pending: number;
}

export class WebhookDispatcher {
  private readonly targets: Target[];
  private readonly retryDelays: number[];
  private readonly timeoutMs: number;
  private readonly cap: number;
  private readonly log: (line: string) => void;
  /** Finished deliveries kept for the listing (bodies released), oldest first. */
  private readonly finished = new Set<Delivery>();
  private readonly stop = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batches: BatchCollector;
  private persistence: WebhookPersistence | undefined;
  private seq = 0;
  private closed = false;
  /** Message ids: a random prefix per process and a counter (no allocation of random bytes per event). */
  private readonly idPrefix = `msg_${randomBytes(12).toString('base64url')}`;
  private idSeq = 0;
  /** Dropped deliveries (not in flight), reused by `obtain`. */
  private readonly spare: Delivery[] = [];

  constructor(opts: WebhookOptions) {
    this.targets = opts.targets.map((t) => ({
      url: checkWebhookUrl(t.url),
      secret: t.secret,
      key: secretKey(t.secret),
      idPrefix: this.idPrefix,
      pending: new Set(),
      ready: new Set(),
      lines: new Map(),
      inFlight: 0,
      pausedUntil: 0,
      pauseTimer: undefined,
      dropped: 0,
    }));
    this.retryDelays = [...(opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.cap = Math.max(1, opts.queueCap ?? DEFAULT_QUEUE_CAP);
    this.log = opts.log ?? (() => {});
    this.batches = new BatchCollector((e) => this.queueEvent(e));
    if (opts.restore) this.restore(opts.restore);
  }

  get active(): boolean {
    return this.targets.length > 0;
  }

  /** Where queue changes are recorded (--data-dir); set once the store is open. */
  setPersistence(p: WebhookPersistence | undefined): void {
    this.persistence = p;
  }

  /** Called synchronously from the engine: queues the event (its payload is built when first needed), nothing more. */
  enqueue(effect: Effect): void {
    if (this.closed || this.targets.length === 0) return;
    // A transition that is not part of a batch's leaving ends the step: its batch events go first.
    const collected = this.batches.note(effect);
    if (!collected) this.batches.flush();
    for (const e of this.batches.before(effect)) this.queueEvent(e);
    if (effect.type === 'pr_state') {
      if (this.closed) return;
      for (const t of this.targets) {
        const d = this.obtain();
        const ev = prEventOf(effect, d.pr);
        if (!ev) {
          this.release(d);
          return;
        }
        this.fill(d, ++this.idSeq, ev.type, ev.prNumber, prEventKey(ev), NO_ATTEMPTS);
        d.pr = ev;
        this.add(t, d);
        if (this.persistence) this.persistence.record('w+', { d: persisted(d) });
      }
      return;
    }
    const event = eventFor(effect);
    if (event) this.queueEvent(event);
  }

  private queueEvent(event: WebhookEvent): void {
    if (this.closed) return;
    for (const t of this.targets) {
      const d = this.fill(this.obtain(), ++this.idSeq, event.type, event.prNumbers, event.keys, NO_ATTEMPTS);
      d.pr = undefined;
      d.build = event.payload;
      this.add(t, d);
      if (this.persistence) this.persistence.record('w+', { d: persisted(d) });
    }
  }

  /** A delivery object: a dropped one when there is one, else a new one (all fields, one shape). */
  private obtain(): Delivery {
    return (
      this.spare.pop() ?? {
        id: 0,
        seq: 0,
        eventType: '',
        prs: 0,
        target: this.targets[0] as Target,
        keys: '',
        pr: undefined,
        build: undefined,
        text: undefined,
        attempts: NO_ATTEMPTS,
        state: 'pending',
        sending: false,
        timer: undefined,
      }
    );
  }

  private release(d: Delivery): void {
    if (this.spare.length < MAX_SPARE) this.spare.push(d);
  }

  private fill(d: Delivery, id: string | number, eventType: string, prs: number | number[], keys: string | string[], attempts: DeliveryAttempt[]): Delivery {
    d.id = id;
    d.seq = 0;
    d.eventType = eventType;
    d.prs = prs;
    d.keys = keys;
    d.build = undefined;
    d.text = undefined;
    d.attempts = attempts;
    d.state = 'pending';
    d.sending = false;
    d.timer = undefined;
    return d;
  }

  /** Queues a filled delivery for `t`: its lines, the cap, and the pump. */
  private add(t: Target, d: Delivery): Delivery {
    d.seq = ++this.seq;
    d.target = t;
    t.pending.add(d);
    const keys = d.keys;
    if (typeof keys === 'string') this.link(t, keys, d);
    else for (const k of keys) this.link(t, k, d);
    if (this.atHead(d)) t.ready.add(d);
    // Bounded backlog: the oldest pending delivery goes, in constant time.
    while (t.pending.size > this.cap) {
      const oldest = t.pending.values().next().value as Delivery;
      this.drop(oldest);
    }
    this.pump(t);
    return d;
  }

  private link(t: Target, k: string, d: Delivery): void {
    const line = t.lines.get(k);
    if (line) line.push(d);
    else t.lines.set(k, [d]);
  }

  private restore(saved: PersistedWebhooks): void {
    for (const p of saved.pending) {
      const t = this.targets.find((x) => x.url === p.url);
      if (!t) continue; // that receiver is no longer configured
      const d = this.fill(this.obtain(), p.id, p.eventType, p.prNumbers, p.keys, Array.isArray(p.attempts) ? p.attempts : []);
      d.pr = undefined;
      d.text = p.body;
      this.add(t, d);
    }
    for (const t of this.targets) t.dropped += saved.dropped?.[t.url] ?? 0;
  }

  exportState(): PersistedWebhooks {
    const pending: PersistedDelivery[] = [];
    const dropped: Record<string, number> = {};
    for (const t of this.targets) {
      for (const d of t.pending.values()) pending.push(persisted(d));
      if (t.dropped > 0) dropped[t.url] = t.dropped;
    }
    return { pending, dropped };
  }

  /** Deliveries oldest first, paged. */
  page(offset = 0, take = 100): DeliveryPage {
    const all: Delivery[] = [...this.finished.values()];
    for (const t of this.targets) all.push(...t.pending.values());
    all.sort((a, b) => a.seq - b.seq);
    const slice = all.slice(offset, offset + take);
    const dropped: Record<string, number> = {};
    let pending = 0;
    for (const t of this.targets) {
      dropped[t.url] = t.dropped;
      pending += t.pending.size;
    }
    return {
      deliveries: slice.map(wire),
      total: all.length,
      offset,
      ...(offset + slice.length < all.length ? { nextOffset: offset + slice.length } : {}),
      dropped,
      pending,
    };
  }

  list(): WireDelivery[] {
    return this.page(0, Number.MAX_SAFE_INTEGER).deliveries;
  }

  /** Stops retrying and aborts attempts in flight; queued deliveries stay pending. */
  async close(): Promise<void> {
    this.batches.flush();
    this.closed = true;
    this.stop.abort();
    for (const t of this.targets) {
      if (t.pauseTimer) clearTimeout(t.pauseTimer);
      for (const d of t.pending.values()) if (d.timer) clearTimeout(d.timer);
    }
    await Promise.allSettled([...this.inFlight]);
  }

  private atHead(d: Delivery): boolean {
    const lines = d.target.lines;
    const keys = d.keys;
    if (typeof keys === 'string') return lines.get(keys)?.[0] === d;
    return keys.every((k) => lines.get(k)?.[0] === d);
  }

  /** Starts attempts for ready deliveries while the receiver has room and is not paused. */
  private pump(t: Target): void {
    if (this.closed) return;
    const wait = t.pausedUntil - Date.now();
    if (wait > 0) {
      if (!t.pauseTimer) {
        t.pauseTimer = setTimeout(() => {
          t.pauseTimer = undefined;
          this.pump(t);
        }, wait).unref();
      }
      return;
    }
    for (const d of t.ready) {
      if (t.inFlight >= MAX_IN_FLIGHT) break;
      t.ready.delete(d);
      this.attempt(d);
    }
  }

  private attempt(d: Delivery): void {
    if (this.closed || d.sending || d.state !== 'pending') return;
    d.sending = true;
    d.timer = undefined;
    d.target.inFlight++;
    const p = this.send(d).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private async send(d: Delivery): Promise<void> {
    const target = d.target;
    const timestamp = Math.floor(Date.now() / 1000);
    const at = new Date().toISOString();
    const body = bodyOf(d);
    const id = idOf(d);
    let outcome: DeliveryAttempt;
    try {
      const status = await post(
        target.url,
        body,
        {
          'content-type': 'application/json',
          'user-agent': 'mq-emulator-webhooks',
          'svix-id': id,
          'svix-timestamp': String(timestamp),
          'svix-signature': signature(target.key, id, timestamp, body),
        },
        this.timeoutMs,
        this.stop.signal,
      );
      outcome = { at, status };
    } catch (err) {
      if (this.closed) {
        d.sending = false;
        target.inFlight--;
        return;
      }
      const e = err as Error & { code?: string };
      const why = e.name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : (e.code ?? e.message);
      outcome = { at, error: why };
    }
    d.sending = false;
    target.inFlight--;
    if (d.state !== 'pending') {
      // Dropped by the cap while in flight: nothing more to do for it.
      this.pump(target);
      return;
    }
    d.attempts = [...d.attempts, outcome];
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      target.pausedUntil = 0;
      this.finish(d, 'delivered');
      return;
    }
    const retryIn = this.retryDelays[d.attempts.length - 1];
    if (retryIn === undefined) {
      this.log(`mq emulator: webhook ${d.eventType} to ${target.url} given up after ${d.attempts.length} attempts`);
      target.pausedUntil = 0;
      this.finish(d, 'failed');
      return;
    }
    // The receiver is failing: send it nothing new until this delivery's retry is due.
    target.pausedUntil = Date.now() + retryIn;
    if (!this.closed) {
      d.timer = setTimeout(() => {
        d.timer = undefined;
        if (d.state !== 'pending') return;
        target.pausedUntil = 0;
        target.ready.add(d);
        this.pump(target);
      }, retryIn).unref();
    }
  }

  /** Removes a delivery from its receiver's queue and lines; the next in each line may go. */
  private unqueue(d: Delivery): void {
    const t = d.target;
    t.pending.delete(d);
    t.ready.delete(d);
    if (d.timer) clearTimeout(d.timer);
    d.timer = undefined;
    const keys = d.keys;
    if (typeof keys === 'string') {
      const n = this.unlink(t, keys, d);
      if (n) this.readyIfHead(n);
      return;
    }
    const next = new Set<Delivery>();
    for (const k of keys) {
      const n = this.unlink(t, k, d);
      if (n) next.add(n);
    }
    for (const n of next) this.readyIfHead(n);
  }

  /** Takes `d` out of line `k`; returns the line's new head. */
  private unlink(t: Target, k: string, d: Delivery): Delivery | undefined {
    const line = t.lines.get(k);
    if (!line) return undefined;
    const i = line.indexOf(d);
    if (i >= 0) line.splice(i, 1);
    if (line.length === 0) {
      t.lines.delete(k);
      return undefined;
    }
    return line[0];
  }

  private readyIfHead(n: Delivery): void {
    if (n.state === 'pending' && !n.sending && !n.timer && this.atHead(n)) n.target.ready.add(n);
  }

  private finish(d: Delivery, state: 'delivered' | 'failed'): void {
    d.state = state;
    this.unqueue(d);
    d.text = '';
    d.build = undefined;
    d.pr = undefined;
    this.finished.add(d);
    if (this.finished.size > MAX_KEPT) this.finished.delete(this.finished.values().next().value as Delivery);
    this.persistence?.record('w-', { id: idOf(d) });
    this.pump(d.target);
  }

  private drop(d: Delivery): void {
    d.state = 'dropped';
    d.target.dropped++;
    this.unqueue(d);
    this.persistence?.record('w-', { id: idOf(d), dropped: true });
    // Nothing refers to a dropped delivery any more unless an attempt is in flight (it then sees 'dropped').
    if (!d.sending) {
      d.build = undefined;
      d.text = undefined;
      this.release(d);
    }
  }
}

/**
 * One POST; resolves with the status once the answer has been read (and discarded). Redirects are
 * not followed. node:http rather than fetch: the server has it loaded already, while fetch brings
 * in undici, some 10 MiB of resident memory for a handful of attempts.
 */
function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    if (stop.aborted) {
      reject(new Error('stopped'));
      return;
    }
    const u = new URL(url);
    const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(u, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal: stop });
    const timer = setTimeout(() => {
      const e = new Error(`timed out after ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      req.destroy(e);
    }, timeoutMs);
    timer.unref();
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

function idOf(d: Delivery): string {
  return typeof d.id === 'string' ? d.id : [d.target.idPrefix, d.id.toString(36).padStart(8, '0')].join('');
}

function persisted(d: Delivery): PersistedDelivery {
  return {
    id: idOf(d),
    eventType: d.eventType,
    prNumbers: prNumbersOf(d),
    url: d.target.url,
    body: bodyOf(d),
    keys: typeof d.keys === 'string' ? [d.keys] : d.keys,
    attempts: d.attempts,
  };
}

function wire(d: Delivery): WireDelivery {
  return {
    id: idOf(d),
    eventType: d.eventType,
    prNumbers: prNumbersOf(d),
    url: d.target.url,
    attempts: d.attempts.map((a) => ({ ...a })),
    state: d.state === 'dropped' ? 'failed' : d.state,
  };
}
