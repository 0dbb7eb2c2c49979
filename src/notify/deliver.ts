// Sending a notification: one request over the node transport, retried on 429, 5xx and network
// failures with backoff (bounded), never following a redirect; secrets never reach --debug. The proxy
// variables apply as for the service (undici through a proxy, never for loopback).
import { backoffDelay, parseRetryAfter } from '../api/http-retry.js';
import { proxyFor, proxySettings, type Transport } from '../api/transport.js';
import { ExitCode, MqError } from '../errors.js';
import { type Clock, interrupted } from '../util/clock.js';

export interface SendContext {
  clock: Clock;
  signal: AbortSignal;
  debug?: (line: string) => void;
  /** Tests: a smaller first backoff step (default 1 s). */
  backoffMs?: number;
  random?: () => number;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read. */
  env: NodeJS.ProcessEnv;
}

export interface SendRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  /** What --debug shows for the URL (a webhook URL is the secret: only its origin). */
  shownUrl: string;
  headers?: Record<string, string>;
  body?: string;
  /** Named in messages: `Slack`, `GitHub`. */
  what: string;
}

export interface SendAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
  attempts: number;
}

/** Retries after the first try. */
export const MAX_RETRIES = 3;
const ATTEMPT_TIMEOUT_MS = 15_000;
/** Answers are small (an ack, a comment list page): more is not read. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

const transports = new Map<string, Promise<Transport>>();

/** Drops the transports' idle connections (a long-running watch keeps them between posts). */
export async function closeDelivery(): Promise<void> {
  const all = [...transports.values()];
  transports.clear();
  await Promise.all(all.map((t) => t.then((x) => x.close()).catch(() => undefined)));
}

function transportFor(url: URL, env: NodeJS.ProcessEnv): { transport: Promise<Transport>; proxy?: string } {
  const settings = proxySettings(env);
  const proxy = proxyFor(url, settings);
  const key = proxy ? `undici ${JSON.stringify(settings)}` : 'node';
  let transport = transports.get(key);
  if (!transport) {
    transport = proxy
      ? import('../api/transport-undici.js').then((m) => m.undiciTransport(settings, 10_000))
      : import('../api/transport-node.js').then((m) => m.nodeTransport());
    transports.set(key, transport);
  }
  return { transport, proxy };
}

/** Sends `req`; a 2xx answer is returned, anything else thrown as an MqError after the retries (exit 6 or 5). */
export async function send(req: SendRequest, ctx: SendContext): Promise<SendAnswer> {
  const route = transportFor(new URL(req.url), ctx.env);
  const transport = await route.transport;
  const random = ctx.random ?? Math.random;
  let last = '';
  for (let attempt = 0; ; attempt++) {
    ctx.debug?.(`> ${req.method} ${req.shownUrl}${attempt > 0 ? ` (retry ${attempt})` : ''}`);
    let retryAfter: number | undefined;
    let status = 0;
    try {
      const answer = await once(transport, route.proxy, req, ctx.signal);
      ctx.debug?.(`< ${answer.status} (${answer.body.length} characters)`);
      status = answer.status;
      if (status >= 200 && status < 300) return { ...answer, attempts: attempt + 1 };
      // Slack and Teams say why in a short text body (`invalid_payload`): kept, one line, bounded.
      const why = answer.body.replace(/\s+/g, ' ').trim().slice(0, 80);
      last = `answered HTTP ${status}${why && !why.startsWith('<') ? ` (${why})` : ''}`;
      retryAfter = parseRetryAfter(answer.headers['retry-after'], ctx.clock.now());
    } catch (err) {
      if (err instanceof MqError) throw err;
      if (ctx.signal.aborted) throw interrupted();
      const code = (err as { code?: string }).code;
      last =
        code === 'ABORTED'
          ? `gave no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
          : `could not be reached (${code ?? (err as Error).message})`;
    }
    const transient = status === 0 || status === 429 || status >= 500;
    if (!transient || attempt >= MAX_RETRIES) {
      const tries = attempt + 1;
      const why = `${req.what} ${last}${tries > 1 ? ` after ${tries} attempts` : ''}`;
      throw new MqError(transient ? ExitCode.unavailable : ExitCode.rejected, `post to ${req.what}`, why);
    }
    const delay = backoffDelay(attempt, retryAfter, ctx.backoffMs ?? 1000, random);
    ctx.debug?.(`${req.what} ${last}: retrying in ${delay} ms`);
    await ctx.clock.sleep(delay, ctx.signal);
  }
}

async function once(
  transport: Transport,
  proxy: string | undefined,
  req: SendRequest,
  signal: AbortSignal,
): Promise<Omit<SendAnswer, 'attempts'>> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, ATTEMPT_TIMEOUT_MS);
  try {
    const headers: Record<string, string> = {
      'user-agent': 'mq-notify',
      accept: 'application/json',
      ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...req.headers,
    };
    const res = await transport.request({
      url: new URL(req.url),
      method: req.method,
      headers,
      body: req.body,
      signal: controller.signal,
      connectTimeoutMs: 10_000,
      proxy,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        res.destroy();
        break;
      }
      chunks.push(Buffer.from(chunk));
    }
    return { status: res.status, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}
