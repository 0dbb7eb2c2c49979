// The webhook dispatcher's records: options, wire shapes, the reusable Delivery and a receiver's
// backlog, with helpers to fill, line up and serialise one. Sending: webhooks.ts.
import { type PrEvent, prPayload } from './webhook-events.js';

/** Delays before the 2nd, 3rd, … attempt; after the last one the delivery is given up. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
export const DEFAULT_TIMEOUT_MS = 10_000;

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

/** Pending deliveries kept per receiver; past it the oldest is dropped (and counted). */
export const DEFAULT_QUEUE_CAP = 1_000;

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
export const NO_ATTEMPTS: DeliveryAttempt[] = Object.freeze([]) as unknown as DeliveryAttempt[];

/** A queued delivery: most reach V8's old generation before the cap drops them, so it is reused. */
export interface Delivery {
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

export function bodyOf(d: Delivery): string {
  if (d.text === undefined) {
    d.text = JSON.stringify(d.pr ? prPayload(d.pr) : d.build ? d.build() : {});
    d.build = undefined;
  }
  return d.text;
}

export const prNumbersOf = (d: Delivery): number[] => (typeof d.prs === 'number' ? [d.prs] : [...d.prs]);

export interface Target extends WebhookTarget {
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

export function fill(
  d: Delivery,
  id: string | number,
  eventType: string,
  prs: number | number[],
  keys: string | string[],
  attempts: DeliveryAttempt[],
): Delivery {
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

export function link(t: Target, k: string, d: Delivery): void {
  const line = t.lines.get(k);
  if (line) line.push(d);
  else t.lines.set(k, [d]);
}

export function atHead(d: Delivery): boolean {
  const lines = d.target.lines;
  const keys = d.keys;
  if (typeof keys === 'string') return lines.get(keys)?.[0] === d;
  return keys.every((k) => lines.get(k)?.[0] === d);
}

/** Takes `d` out of line `k`; returns the line's new head. */
export function unlink(t: Target, k: string, d: Delivery): Delivery | undefined {
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

export function readyIfHead(n: Delivery): void {
  if (n.state === 'pending' && !n.sending && !n.timer && atHead(n)) n.target.ready.add(n);
}

/** Removes a delivery from its receiver's queue and lines; the next in each line may go. */
export function unqueue(d: Delivery): void {
  const t = d.target;
  t.pending.delete(d);
  t.ready.delete(d);
  if (d.timer) clearTimeout(d.timer);
  d.timer = undefined;
  const keys = d.keys;
  if (typeof keys === 'string') {
    const n = unlink(t, keys, d);
    if (n) readyIfHead(n);
    return;
  }
  const next = new Set<Delivery>();
  for (const k of keys) {
    const n = unlink(t, k, d);
    if (n) next.add(n);
  }
  for (const n of next) readyIfHead(n);
}

export function idOf(d: Delivery): string {
  return typeof d.id === 'string' ? d.id : [d.target.idPrefix, d.id.toString(36).padStart(8, '0')].join('');
}

export function persisted(d: Delivery): PersistedDelivery {
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

export function wire(d: Delivery): WireDelivery {
  return {
    id: idOf(d),
    eventType: d.eventType,
    prNumbers: prNumbersOf(d),
    url: d.target.url,
    attempts: d.attempts.map((a) => ({ ...a })),
    state: d.state === 'dropped' ? 'failed' : d.state,
  };
}

export function newDelivery(target: Target): Delivery {
  return {
    id: 0,
    seq: 0,
    eventType: '',
    prs: 0,
    target: target,
    keys: '',
    pr: undefined,
    build: undefined,
    text: undefined,
    attempts: NO_ATTEMPTS,
    state: 'pending',
    sending: false,
    timer: undefined,
  };
}

/** The pending deliveries of all receivers and their dropped counts, as --data-dir keeps them. */
export function exportOf(targets: Target[]): PersistedWebhooks {
  const pending: PersistedDelivery[] = [];
  const dropped: Record<string, number> = {};
  for (const t of targets) {
    for (const d of t.pending.values()) pending.push(persisted(d));
    if (t.dropped > 0) dropped[t.url] = t.dropped;
  }
  return { pending, dropped };
}

/** Finished and pending deliveries oldest first, paged. */
export function pageOf(finished: Set<Delivery>, targets: Target[], offset: number, take: number): DeliveryPage {
  const all: Delivery[] = [...finished.values()];
  for (const t of targets) all.push(...t.pending.values());
  all.sort((a, b) => a.seq - b.seq);
  const slice = all.slice(offset, offset + take);
  const dropped: Record<string, number> = {};
  let pending = 0;
  for (const t of targets) {
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
