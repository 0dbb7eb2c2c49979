// Webhook deliveries (trunk-wire §3): engine effects POSTed to each receiver, signed as Svix signs
// (svix-id, svix-timestamp, svix-signature v1 HMAC-SHA256 of `${id}.${timestamp}.${body}`, key from
// `whsec_…`). I/O stays out of the engine: `enqueue` only queues, sending runs later, with retries and
// per-PR order per receiver; a message keeps its id, each attempt gets a fresh timestamp.
import { randomBytes } from 'node:crypto';

import type { Effect } from './engine/index.js';
import {
  atHead,
  exportOf,
  newDelivery,
  pageOf,
  DEFAULT_QUEUE_CAP,
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_TIMEOUT_MS,
  type Delivery,
  type DeliveryPage,
  fill,
  idOf,
  link,
  NO_ATTEMPTS,
  type PersistedWebhooks,
  persisted,
  type Target,
  unqueue,
  type WebhookOptions,
  type WebhookPersistence,
  type WireDelivery,
} from './webhook-deliveries.js';
import { BatchCollector, eventFor, prEventKey, prEventOf, type WebhookEvent } from './webhook-events.js';
import { postDelivery } from './webhook-attempt.js';
import { checkWebhookUrl } from '../webhooks/post.js';
import { secretKey } from '../webhooks/signature.js';

export {
  DEFAULT_QUEUE_CAP,
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_TIMEOUT_MS,
  type DeliveryAttempt,
  type DeliveryPage,
  type PersistedDelivery,
  type PersistedWebhooks,
  type WebhookOptions,
  type WebhookPersistence,
  type WebhookTarget,
  type WireDelivery,
} from './webhook-deliveries.js';

/** Finished deliveries kept for the listing; the oldest finished ones go first. */
const MAX_KEPT = 10_000;
/** Attempts in flight per receiver. */
const MAX_IN_FLIGHT = 8;
/** Dropped deliveries kept for reuse (see `obtain`). */
const MAX_SPARE = 64;

export class WebhookDispatcher {
  private readonly targets: Target[];
  private readonly retryDelays: number[];
  private readonly timeoutMs: number;
  private readonly cap: number;
  private readonly log: (line: string) => void;
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
        fill(d, ++this.idSeq, ev.type, ev.prNumber, prEventKey(ev), NO_ATTEMPTS);
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
      const d = fill(this.obtain(), ++this.idSeq, event.type, event.prNumbers, event.keys, NO_ATTEMPTS);
      d.pr = undefined;
      d.build = event.payload;
      this.add(t, d);
      if (this.persistence) this.persistence.record('w+', { d: persisted(d) });
    }
  }

  /** A delivery object: a dropped one when there is one, else a new one (all fields, one shape). */
  private obtain(): Delivery {
    return this.spare.pop() ?? newDelivery(this.targets[0] as Target);
  }

  private release(d: Delivery): void {
    if (this.spare.length < MAX_SPARE) this.spare.push(d);
  }

  /** Queues a filled delivery for `t`: its lines, the cap, and the pump. */
  private add(t: Target, d: Delivery): Delivery {
    d.seq = ++this.seq;
    d.target = t;
    t.pending.add(d);
    const keys = d.keys;
    if (typeof keys === 'string') link(t, keys, d);
    else for (const k of keys) link(t, k, d);
    if (atHead(d)) t.ready.add(d);
    // Bounded backlog: the oldest pending delivery goes, in constant time.
    while (t.pending.size > this.cap) {
      const oldest = t.pending.values().next().value as Delivery;
      this.drop(oldest);
    }
    this.pump(t);
    return d;
  }

  private restore(saved: PersistedWebhooks): void {
    for (const p of saved.pending) {
      const t = this.targets.find((x) => x.url === p.url);
      if (!t) continue; // that receiver is no longer configured
      const d = fill(
        this.obtain(),
        p.id,
        p.eventType,
        p.prNumbers,
        p.keys,
        Array.isArray(p.attempts) ? p.attempts : [],
      );
      d.pr = undefined;
      d.text = p.body;
      this.add(t, d);
    }
    for (const t of this.targets) t.dropped += saved.dropped?.[t.url] ?? 0;
  }

  exportState(): PersistedWebhooks {
    return exportOf(this.targets);
  }

  page(offset = 0, take = 100): DeliveryPage {
    return pageOf(this.finished, this.targets, offset, take);
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
    const outcome = await postDelivery(d, this.timeoutMs, this.stop.signal);
    d.sending = false;
    target.inFlight--;
    if (outcome === undefined) return;
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

  private finish(d: Delivery, state: 'delivered' | 'failed'): void {
    d.state = state;
    unqueue(d);
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
    unqueue(d);
    this.persistence?.record('w-', { id: idOf(d), dropped: true });
    // Nothing refers to a dropped delivery any more unless an attempt is in flight (it then sees 'dropped').
    if (!d.sending) {
      d.build = undefined;
      d.text = undefined;
      this.release(d);
    }
  }
}
