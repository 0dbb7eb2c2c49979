// One exchange: a request sent and its answer read, within a time limit and stopped by Ctrl-C or the
// call's signal. A network failure or timeout comes back as an outcome for the call loop (http.ts) to judge.
import { MqError } from '../errors.js';
import { readText, sendable } from './http-body.js';
import { type Attempt, truncate } from './http-errors.js';
import { parseRetryAfter } from './http-retry.js';
import type { CallSpec, HttpResponse } from './http-types.js';
import { systemCode, type Transport, TransportError, type TransportResponse } from './transport.js';

export interface Exchange {
  transport: Transport;
  url: URL;
  spec: CallSpec;
  /** The headers as sent (the token in clear). */
  headers: Record<string, string>;
  proxy: string | undefined;
  /** How long the exchange may take, in ms. */
  limit: number;
  connectTimeoutMs: number;
  maxResponseBytes: number;
  /** When the attempt started (for --debug). */
  started: number;
  /** The signals that stop the exchange. */
  signals: AbortSignal[];
  /** Throws what an aborted signal stands for (else nothing). */
  throwIfAborted(): void;
  now(): number;
  serviceNow(): number;
  redact(text: string): string;
  /** Sees each answer's Date header. */
  noteDate(date: string | undefined): void;
  debug: ((line: string) => void) | undefined;
}

/** X-Request-Id as sent, if it is a short plain word (it is printed in errors). */
function plainRequestId(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}

export async function exchange(x: Exchange): Promise<Attempt> {
  const { spec, limit, signals, debug } = x;
  // One controller stops the exchange, whatever phase it is in: the timer, Ctrl-C or the call's
  // signal abort it. The race also bounds phases a transport might not see the signal in.
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      reject(new TransportError('TIMEOUT', `no answer within ${limit} ms`));
    }, limit);
    onAbort = () => {
      controller.abort();
      try {
        x.throwIfAborted();
      } catch (err) {
        reject(err);
      }
    };
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  });
  let res: TransportResponse | undefined;
  try {
    const reading = (async () => {
      res = await x.transport.request({
        url: x.url,
        method: spec.method,
        headers: x.headers,
        body: sendable(spec.body),
        signal: controller.signal,
        connectTimeoutMs: x.connectTimeoutMs,
        proxy: x.proxy,
      });
      x.noteDate(res.headers.date);
      // A redirect's body is of no interest; where it points is.
      if (res.status >= 300 && res.status < 400) {
        res.destroy();
        return x.redact(res.headers.location ?? '');
      }
      return x.redact(await readText(res, x.maxResponseBytes, spec.what));
    })();
    reading.catch(() => undefined);
    const body = await Promise.race([reading, stopped]);
    const r = res as unknown as TransportResponse;
    if (debug) {
      debug(`< ${r.status} in ${x.now() - x.started} ms (${body.length} characters)`);
      if (body.length > 0) debug(`< ${truncate(body)}`);
    }
    const response: HttpResponse = { status: r.status, contentType: r.headers['content-type'] ?? '', body };
    const requestId = plainRequestId(r.headers['x-request-id']);
    if (requestId !== undefined) {
      response.requestId = requestId;
      debug?.(`< x-request-id: ${requestId}`);
    }
    return { kind: 'response', response, retryAfterMs: parseRetryAfter(r.headers['retry-after'], x.serviceNow()) };
  } catch (error) {
    (res as TransportResponse | undefined)?.destroy();
    if (error instanceof MqError) throw error;
    x.throwIfAborted();
    // Not a network failure but a bug: let it surface as one.
    if (!timedOut && !(error instanceof TransportError) && systemCode(error) === undefined) throw error;
    const code = timedOut ? 'TIMEOUT' : error instanceof TransportError ? error.code : (systemCode(error) ?? 'unknown');
    if (debug) debug(`! ${spec.endpoint}: ${code} ${x.redact(String((error as Error)?.message ?? error))}`);
    return { kind: 'error', error, code, timedOutMs: timedOut ? limit : undefined };
  } finally {
    clearTimeout(timer);
    for (const s of signals) s.removeEventListener('abort', onAbort as () => void);
  }
}
