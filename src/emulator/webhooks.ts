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
import { createHmac, randomBytes } from 'node:crypto';

import type { Effect, PrStateEffect, BatchEffect, RepoRef } from './engine/index.js';

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

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_…` secret; throws a message fit for the command line when malformed. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`a webhook secret starts with ${SECRET_PREFIX}`);
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new Error(`a webhook secret is ${SECRET_PREFIX} followed by base64`);
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length < 16 || key.length > 64) throw new Error('a webhook secret key must be 16 to 64 bytes long');
  return key;
}

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The `svix-signature` header value for one attempt. */
export function signature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** A webhook URL must be absolute http(s) with a host (receivers are the user's own). */
export function checkWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${raw}" is not an http or https URL`);
  if (url.hostname === '') throw new Error(`"${raw}" has no host`);
  return url.href;
}

// ---- payloads ----------------------------------------------------------------------------------------

const PR_EVENTS: Partial<Record<PrStateEffect['to'], { status: string; reasonField: string }>> = {
  not_ready: { status: 'submitted', reasonField: 'submitted_reason' },
  pending: { status: 'queued', reasonField: 'queued_reason' },
  testing: { status: 'testing', reasonField: '' },
  pending_failure: { status: 'pending_failure', reasonField: 'failure_reason' },
  failed: { status: 'failed', reasonField: 'failure_reason' },
  // One L in webhooks, unlike the API's state.
  cancelled: { status: 'canceled', reasonField: 'cancellation_reason' },
  merged: { status: 'merged', reasonField: 'merged_reason' },
};

const BATCH_REASON: Record<BatchEffect['event'], string> = {
  testing: '',
  pending_failure: 'failure_reason',
  failed: 'failure_reason',
  merged: 'merged_reason',
};

export interface WebhookEvent {
  type: string;
  prNumbers: number[];
  /** Ordering keys: one per PR the event is about. */
  keys: string[];
  payload: Record<string, unknown>;
}

const repository = (r: RepoRef) => ({ host: r.host, owner: r.owner, name: r.name });
const orderKey = (r: RepoRef, branch: string, pr: number) => `${r.host}/${r.owner}/${r.name}:${branch}#${pr}`;

/** The event an engine effect becomes, or null (tests_passed has no webhook). */
export function eventFor(effect: Effect): WebhookEvent | null {
  const timestamp = new Date(effect.at).toISOString();
  if (effect.type === 'batch') {
    const status = effect.event;
    const reasonField = BATCH_REASON[status];
    return {
      type: `pull_request_batch.${status}`,
      prNumbers: [...effect.prNumbers],
      keys: effect.prNumbers.map((n) => orderKey(effect.repo, effect.branch, n)),
      payload: {
        type: `pull_request_batch.${status}`,
        action: status,
        status,
        pr_numbers: [...effect.prNumbers],
        pr_numbers_in_batch: [...effect.run.prNumbers],
        repository: repository(effect.repo),
        target_branch: effect.branch,
        timestamp,
        test_branch: effect.run.testBranch,
        test_branch_sha: effect.run.testBranchSha,
        batched: true,
        is_bisection: effect.run.isBisection,
        ...(reasonField ? { [reasonField]: effect.reason } : {}),
      },
    };
  }
  const kind = PR_EVENTS[effect.to];
  if (!kind) return null;
  const { repo, prNumber: n } = effect;
  const run = effect.run;
  const withRun = kind.status !== 'submitted' && kind.status !== 'queued' && run !== null;
  return {
    type: `pull_request.${kind.status}`,
    prNumbers: [n],
    keys: [orderKey(repo, effect.branch, n)],
    payload: {
      type: `pull_request.${kind.status}`,
      action: kind.status,
      status: kind.status,
      author: effect.author,
      http_details_url: `https://${repo.host}/${repo.owner}/${repo.name}/pull/${n}`,
      pr_number: n,
      repository: repository(repo),
      target_branch: effect.branch,
      timestamp,
      ...(withRun ? { test_branch: run.testBranch, test_branch_sha: run.testBranchSha, batched: run.prNumbers.length > 1 } : {}),
      ...(['testing', 'failed', 'canceled'].includes(kind.status)
        ? { is_bisection: run?.isBisection ?? false }
        : {}),
      ...(kind.reasonField ? { [kind.reasonField]: effect.reason } : {}),
    },
  };
}

// ---- delivery ----------------------------------------------------------------------------------------

interface Delivery {
  id: string;
  eventType: string;
  prNumbers: number[];
  target: number;
  url: string;
  body: string;
  keys: string[];
  attempts: DeliveryAttempt[];
  state: WireDelivery['state'];
  sending: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class WebhookDispatcher {
  private readonly targets: Array<WebhookTarget & { key: Buffer }>;
  private readonly retryDelays: number[];
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly deliveries = new Map<string, Delivery>();
  /** Per receiver and PR: ids of deliveries not yet finished, oldest first. */
  private readonly lines = new Map<string, string[]>();
  private readonly stop = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(opts: WebhookOptions) {
    this.targets = opts.targets.map((t) => ({ url: checkWebhookUrl(t.url), secret: t.secret, key: secretKey(t.secret) }));
    this.retryDelays = [...(opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.log = opts.log ?? (() => {});
  }

  get active(): boolean {
    return this.targets.length > 0;
  }

  /** Called synchronously from the engine: builds the payload and queues it, nothing more. */
  enqueue(effect: Effect): void {
    if (this.closed || this.targets.length === 0) return;
    const event = eventFor(effect);
    if (!event) return;
    const body = JSON.stringify(event.payload);
    this.targets.forEach((t, target) => {
      const d: Delivery = {
        id: `msg_${randomBytes(18).toString('base64url')}`,
        eventType: event.type,
        prNumbers: event.prNumbers,
        target,
        url: t.url,
        body,
        keys: event.keys.map((k) => `${target}|${k}`),
        attempts: [],
        state: 'pending',
        sending: false,
        timer: undefined,
      };
      this.deliveries.set(d.id, d);
      for (const k of d.keys) {
        const line = this.lines.get(k);
        if (line) line.push(d.id);
        else this.lines.set(k, [d.id]);
      }
      this.prune();
      if (this.atHead(d)) setImmediate(() => this.attempt(d));
    });
  }

  list(): WireDelivery[] {
    return [...this.deliveries.values()].map((d) => ({
      id: d.id,
      eventType: d.eventType,
      prNumbers: [...d.prNumbers],
      url: d.url,
      attempts: d.attempts.map((a) => ({ ...a })),
      state: d.state,
    }));
  }

  /** Stops retrying and aborts attempts in flight; queued deliveries stay pending. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    for (const d of this.deliveries.values()) if (d.timer) clearTimeout(d.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private atHead(d: Delivery): boolean {
    return d.keys.every((k) => this.lines.get(k)?.[0] === d.id);
  }

  private attempt(d: Delivery): void {
    if (this.closed || d.sending || d.state !== 'pending') return;
    d.sending = true;
    d.timer = undefined;
    const p = this.send(d).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private async send(d: Delivery): Promise<void> {
    const target = this.targets[d.target];
    if (!target) return;
    const timestamp = Math.floor(Date.now() / 1000);
    const at = new Date().toISOString();
    let outcome: DeliveryAttempt;
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'mq-emulator-webhooks',
          'svix-id': d.id,
          'svix-timestamp': String(timestamp),
          'svix-signature': signature(target.key, d.id, timestamp, d.body),
        },
        body: d.body,
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stop.signal]),
      });
      await res.body?.cancel().catch(() => {});
      outcome = { at, status: res.status };
    } catch (err) {
      if (this.closed) {
        d.sending = false;
        return;
      }
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      outcome = { at, error: why };
    }
    d.sending = false;
    d.attempts.push(outcome);
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    if (ok) return this.finish(d, 'delivered');
    const retryIn = this.retryDelays[d.attempts.length - 1];
    if (retryIn === undefined) {
      this.log(`mq emulator: webhook ${d.eventType} to ${d.url} given up after ${d.attempts.length} attempts`);
      return this.finish(d, 'failed');
    }
    if (!this.closed) d.timer = setTimeout(() => this.attempt(d), retryIn).unref();
  }

  private finish(d: Delivery, state: 'delivered' | 'failed'): void {
    d.state = state;
    const next = new Set<string>();
    for (const k of d.keys) {
      const line = this.lines.get(k);
      if (!line) continue;
      line.shift();
      if (line.length === 0) this.lines.delete(k);
      else if (line[0] !== undefined) next.add(line[0]);
    }
    for (const id of next) {
      const n = this.deliveries.get(id);
      if (n && this.atHead(n)) this.attempt(n);
    }
  }

  private prune(): void {
    if (this.deliveries.size <= MAX_KEPT) return;
    for (const [id, d] of this.deliveries) {
      if (this.deliveries.size <= MAX_KEPT) break;
      if (d.state !== 'pending') this.deliveries.delete(id);
    }
  }
}
