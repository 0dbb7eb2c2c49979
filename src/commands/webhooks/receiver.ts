// The HTTP side of `mq webhooks listen`: reads each delivery's raw body (bounded), verifies it, answers,
// and hands it on; a delivery whose svix-id was already accepted is answered 200 and marked a duplicate.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeWebhookEvent, type WebhookEvent } from '../../webhooks/events.js';
import { DEFAULT_MAX_BODY_BYTES, headerValue, verifyDelivery, type VerifyFailure } from '../../webhooks/signature.js';

/** Headers kept (recorded, forwarded): the signature's and the body's description. */
const KEPT = /^(?:svix-|webhook-)(?:id|timestamp|signature)$|^content-type$|^user-agent$/;
/** Accepted svix-ids remembered for duplicates (the oldest forgotten first). */
const MAX_SEEN = 100_000;

export type DeliveryResult = 'valid' | 'unverified' | 'duplicate' | 'not-post' | VerifyFailure;

export interface ReceivedDelivery {
  seq: number;
  /** Epoch ms it arrived. */
  at: number;
  id: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The HTTP status answered. */
  status: number;
  result: DeliveryResult;
  message?: string;
  event?: WebhookEvent;
  /** Verified (or accepted unverified) and new: to forward, record and act on. */
  accepted: boolean;
}

export interface ReceiverOptions {
  host: string;
  port: number;
  /** undefined: deliveries are accepted unverified (--no-verify). */
  secrets?: string[];
  now: () => number;
  maxBodyBytes?: number;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

function keptHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (KEPT.test(k) && typeof v === 'string') out[k] = v.slice(0, 4096);
  }
  return out;
}

function unverifiedEvent(body: Buffer): WebhookEvent | undefined {
  try {
    return decodeWebhookEvent(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)));
  } catch {
    return undefined;
  }
}

export async function startReceiver(
  opts: ReceiverOptions,
  onDelivery: (d: ReceivedDelivery) => void,
): Promise<Receiver> {
  const max = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const seen = new Set<string>();
  let seq = 0;

  const settle = (req: IncomingMessage, res: ServerResponse, received: Buffer | null) => {
    const body = received ?? Buffer.alloc(0);
    const headers = keptHeaders(req);
    const id = (headerValue(headers, 'svix-id') ?? headerValue(headers, 'webhook-id') ?? '').slice(0, 256);
    const d: ReceivedDelivery = {
      seq: ++seq,
      at: opts.now(),
      id,
      headers,
      body,
      status: 200,
      result: 'valid',
      accepted: false,
    };
    if (req.method !== 'POST') {
      Object.assign(d, { status: 405, result: 'not-post', message: `${req.method} is not a delivery` });
    } else if (received === null) {
      Object.assign(d, { status: 413, result: 'too-large', message: `over the limit of ${max} bytes` });
    } else if (opts.secrets === undefined) {
      Object.assign(d, { result: 'unverified', event: unverifiedEvent(body) });
    } else {
      const r = verifyDelivery(body, headers, opts.secrets, { now: opts.now, maxBodyBytes: max });
      if (r.ok) d.event = r.event;
      else Object.assign(d, { status: 401, result: r.reason, message: r.message });
    }
    if (d.status === 200 && d.id !== '' && seen.has(d.id)) d.result = 'duplicate';
    else if (d.status === 200) {
      d.accepted = true;
      if (d.id !== '') {
        seen.add(d.id);
        if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value as string);
      }
    }
    const text = d.status === 200 ? d.result : `${d.result}: ${d.message ?? ''}`;
    res.writeHead(d.status, {
      'content-type': 'text/plain; charset=utf-8',
      ...(d.status === 413 ? { connection: 'close' } : {}),
    });
    res.end(`${text}\n`);
    onDelivery(d);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        if (!over) settle(req, res, null);
        over = true;
        req.pause();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) settle(req, res, Buffer.concat(chunks));
    });
    req.on('error', () => res.destroy());
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
