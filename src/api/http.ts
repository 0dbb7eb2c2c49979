/**
 * The one HTTP layer every command goes through.
 *
 * - One undici dispatcher per process (keep-alive, HTTP(S)_PROXY/NO_PROXY honoured through
 *   EnvHttpProxyAgent, connect and request timeouts).
 * - Redirects are never followed: the token must not reach another host.
 * - Any 2xx is success; everything else becomes an ApiError whose exit code comes from the status.
 * - Retries (429, 5xx, network) with exponential backoff and jitter, honouring Retry-After (capped at
 *   60 s). An idempotent call is retried on any of these; a non-idempotent one only when the request
 *   provably never reached the server (connection refused, 429), so a write is never doubled. When a
 *   non-idempotent write fails after it was sent, the outcome is reported as unknown.
 * - --debug logs each request and response with the token redacted.
 */
import type { Dispatcher } from 'undici';
import { ApiError, ConfigError, ExitCode, MqError, exitCodeForStatus } from '../errors.js';

export interface HttpSettings {
  baseUrl: string;
  token: string;
  userAgent: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  maxRetries?: number;
  debug?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Base of the exponential backoff, in ms. */
  backoffMs?: number;
  /** Ctrl-C: stops a request in flight and any backoff; the call then fails as interrupted. */
  signal?: AbortSignal;
}

/** Per-call bounds: a deadline is an argument of a call, never state in the client. */
export interface CallOptions {
  deadline?: number /* epoch ms */;
  signal?: AbortSignal;
}

export interface CallSpec {
  /** Endpoint name, e.g. `submitPullRequest`. */
  endpoint: string;
  method: 'GET' | 'POST';
  query?: Record<string, string>;
  /** Serialised JSON body. */
  body?: string;
  /** True when repeating the call cannot change the outcome (reads, set-style writes). */
  idempotent: boolean;
  /** What the user asked for, used in messages: `submit PR #42`. */
  what: string;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface RequestDescription {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export const MAX_RETRY_AFTER_MS = 60_000;
const ERROR_BODY_CAP = 2048;
const REDACTED = '***';

// Errors raised before a single byte of the request left this machine.
const PRE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

let sharedDispatcher: Dispatcher | undefined;

async function dispatcherFor(settings: HttpSettings): Promise<Dispatcher> {
  if (!sharedDispatcher) {
    // undici parses HTTP with a WebAssembly module. V8 would also recompile it with TurboFan on
    // background threads, and process exit waits for that work (~100 ms here); a CLI making a
    // handful of requests is well served by Liftoff's baseline code.
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--liftoff-only');
    // undici is CommonJS; through the bundle its exports sit on `default`.
    const undici = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
    const { EnvHttpProxyAgent } = undici.default ?? undici;
    sharedDispatcher = new EnvHttpProxyAgent({
      connect: { timeout: settings.connectTimeoutMs ?? 10_000 },
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 64,
    });
  }
  return sharedDispatcher;
}

/** Closes the shared pool so the process can exit without waiting for idle sockets. */
export async function closeHttp(): Promise<void> {
  const d = sharedDispatcher;
  sharedDispatcher = undefined;
  // Every request has been answered or abandoned by now; close() would linger over idle
  // keep-alive sockets, so tear the pool down at once.
  if (d) await d.destroy().catch(() => undefined);
}

export function truncate(text: string, cap = ERROR_BODY_CAP): string {
  return text.length > cap ? `${text.slice(0, cap)}… (${text.length - cap} more characters)` : text;
}

function errorCode(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string') return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  if (e.cause) return errorCode(e.cause);
  return undefined;
}

/** Retry-After as seconds or an HTTP date, in ms, capped. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

function interrupted(): MqError {
  return new MqError(ExitCode.interrupted, 'interrupted', 'stopped by Ctrl-C');
}

export class HttpClient {
  readonly settings: HttpSettings;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(settings: HttpSettings) {
    this.settings = settings;
    this.sleep = settings.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = settings.random ?? Math.random;
  }

  url(spec: Pick<CallSpec, 'endpoint' | 'query'>): string {
    const base = this.settings.baseUrl.replace(/\/+$/, '');
    const qs = spec.query && Object.keys(spec.query).length > 0 ? `?${new URLSearchParams(spec.query).toString()}` : '';
    return `${base}/${spec.endpoint}${qs}`;
  }

  headers(spec: Pick<CallSpec, 'body'>, redact: boolean): Record<string, string> {
    const h: Record<string, string> = {
      'user-agent': this.settings.userAgent,
      accept: 'application/json, text/plain;q=0.9',
      'x-api-token': redact ? REDACTED : this.settings.token,
    };
    if (spec.body !== undefined) h['content-type'] = 'application/json';
    return h;
  }

  /** What would be sent, with the token redacted (for --dry-run and --debug). */
  describe(spec: CallSpec): RequestDescription {
    return { method: spec.method, url: this.url(spec), headers: this.headers(spec, true), body: spec.body };
  }

  /**
   * Sends `spec`, retrying as the header says. With `call.deadline` (epoch ms) each attempt's
   * timeout shrinks to what is left and no retry starts past it; `call.signal` stops it too.
   */
  async request(spec: CallSpec, call: CallOptions = {}): Promise<HttpResponse> {
    // A dry run without a token may still try a read; never send one with an empty token.
    if (!this.settings.token) {
      throw new ConfigError('no API token to read with', { hints: ['run `mq auth login`, or set MQ_TOKEN'] });
    }
    const maxRetries = this.settings.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(spec, call);
      const canRetry = attempt < maxRetries;
      if (outcome.kind === 'response') {
        const { response, retryAfterMs } = outcome;
        if (response.status >= 200 && response.status < 300) return response;
        const transient = response.status === 429 || response.status >= 500;
        // A 429 means the server refused before acting, so even a non-idempotent write may repeat.
        const safe = spec.idempotent || response.status === 429;
        if (transient && safe && canRetry) {
          await this.backoff(attempt, retryAfterMs, spec, `HTTP ${response.status}`, call);
          continue;
        }
        throw this.statusError(spec, response, transient && attempt > 0);
      }
      const code = errorCode(outcome.error) ?? 'unknown';
      const preSend = PRE_SEND_CODES.has(code);
      if ((spec.idempotent || preSend) && canRetry) {
        await this.backoff(attempt, undefined, spec, code, call);
        continue;
      }
      throw this.networkError(spec, outcome.error, code, preSend, attempt);
    }
  }

  private signalFor(call: CallOptions): AbortSignal | undefined {
    const own = this.settings.signal;
    if (own && call.signal) return AbortSignal.any([own, call.signal]);
    return call.signal ?? own;
  }

  private async backoff(attempt: number, retryAfterMs: number | undefined, spec: CallSpec, reason: string, call: CallOptions): Promise<void> {
    const base = this.settings.backoffMs ?? 500;
    const exp = Math.min(base * 2 ** attempt, MAX_RETRY_AFTER_MS);
    const delay = retryAfterMs ?? Math.round(exp / 2 + (this.random() * exp) / 2);
    if (call.deadline !== undefined && Date.now() + delay >= call.deadline) {
      throw new MqError(ExitCode.unavailable, spec.what, `${reason}, and no time is left to retry before --timeout`);
    }
    this.settings.debug?.(`retry ${attempt + 1} of ${spec.endpoint} after ${reason}, waiting ${delay} ms`);
    const signal = this.signalFor(call);
    if (!signal) return this.sleep(delay);
    if (signal.aborted) throw interrupted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(interrupted());
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, delay);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async attempt(
    spec: CallSpec,
    call: CallOptions,
  ): Promise<{ kind: 'response'; response: HttpResponse; retryAfterMs?: number } | { kind: 'error'; error: unknown }> {
    const url = new URL(this.url(spec));
    const debug = this.settings.debug;
    const started = Date.now();
    if (debug) {
      debug(`> ${spec.method} ${url.href}`);
      for (const [k, v] of Object.entries(this.headers(spec, true))) debug(`> ${k}: ${v}`);
      if (spec.body !== undefined) debug(`> ${truncate(spec.body)}`);
    }
    const dispatcher = await dispatcherFor(this.settings);
    const userSignal = this.signalFor(call);
    if (userSignal?.aborted) throw interrupted();
    const limit = call.deadline === undefined ? this.settings.timeoutMs : Math.min(this.settings.timeoutMs, Math.max(1, call.deadline - Date.now()));
    // The signal stops the exchange; the race also bounds phases a signal does not reach (a proxy
    // that accepts CONNECT and then stays silent), so no request outlives its limit or Ctrl-C.
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onUserAbort: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = Object.assign(new Error(`no answer within ${limit} ms`), { name: 'TimeoutError', code: 'UND_ERR_HEADERS_TIMEOUT' });
        controller.abort(err);
        reject(err);
      }, limit);
      onUserAbort = () => {
        controller.abort();
        reject(interrupted());
      };
      userSignal?.addEventListener('abort', onUserAbort, { once: true });
    });
    try {
      const exchange = (async () => {
        const res = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: spec.method,
          headers: this.headers(spec, false),
          body: spec.body,
          signal: controller.signal,
        });
        return { res, body: await res.body.text() };
      })();
      exchange.catch(() => undefined);
      const { res, body } = await Promise.race([exchange, deadline]);
      const header = (name: string): string | undefined => {
        const v = res.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const response: HttpResponse = { status: res.statusCode, contentType: header('content-type') ?? '', body };
      if (res.statusCode >= 300 && res.statusCode < 400) {
        response.body = header('location') ?? '';
      }
      if (debug) {
        debug(`< ${res.statusCode} in ${Date.now() - started} ms (${body.length} bytes)`);
        if (body.length > 0) debug(`< ${truncate(body)}`);
      }
      return { kind: 'response', response, retryAfterMs: parseRetryAfter(header('retry-after'), Date.now()) };
    } catch (error) {
      if (error instanceof MqError) throw error;
      if (debug) debug(`! ${spec.endpoint}: ${errorCode(error) ?? ''} ${(error as Error)?.message ?? error}`);
      return { kind: 'error', error };
    } finally {
      clearTimeout(timer);
      if (onUserAbort) userSignal?.removeEventListener('abort', onUserAbort);
    }
  }

  private statusError(spec: CallSpec, res: HttpResponse, retried: boolean): MqError {
    if (res.status >= 300 && res.status < 400) {
      const where = res.body ? ` to ${res.body}` : '';
      return new ApiError(ExitCode.unexpected, spec.what, `the service answered HTTP ${res.status}, a redirect${where}; mq never follows redirects`, res.status, res.body, {
        hints: ['check the API URL (--api-url, MQ_API_URL or the profile); it must point at the service itself'],
      });
    }
    const text = describeBody(res);
    const why = `the service answered HTTP ${res.status}${text ? `: ${text}` : ''}`;
    const hints: string[] = [];
    if (res.status === 401 || res.status === 403) hints.push('check the token with `mq auth status`; log in again with `mq auth login` or set MQ_TOKEN');
    if (res.status === 413) hints.push('the request body is over the service limit (20 MiB)');
    if (res.status >= 500 && !spec.idempotent) {
      hints.push('the service failed while handling this change, so it may or may not have taken effect: check (e.g. `mq status <pr>`) before trying again');
    } else if (res.status === 429 || res.status >= 500) {
      hints.push(retried ? 'the service kept failing after retries; try again later' : 'the service is unavailable; try again later');
    }
    return new ApiError(exitCodeForStatus(res.status), spec.what, why, res.status, res.body, { hints });
  }

  private networkError(spec: CallSpec, error: unknown, code: string, preSend: boolean, attempt: number): MqError {
    const host = new URL(this.settings.baseUrl).host;
    const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (error as Error)?.name === 'TimeoutError';
    const reason = timedOut
      ? `no answer from ${host} within ${this.settings.timeoutMs < 1000 ? `${this.settings.timeoutMs} ms` : `${Math.round(this.settings.timeoutMs / 1000)} s`}`
      : preSend
        ? `cannot connect to ${host} (${code})`
        : `the connection to ${host} failed (${code})`;
    if (!spec.idempotent && !preSend) {
      return new MqError(ExitCode.unavailable, spec.what, `outcome unknown: ${reason} after the request was sent, so it may or may not have taken effect`, {
        hints: ['check the result before trying again (for a PR: `mq status <pr>`)'],
        cause: error,
      });
    }
    const tries = attempt + 1;
    return new MqError(ExitCode.unavailable, spec.what, `${reason}${tries > 1 ? ` (${tries} attempts)` : ''}`, {
      hints: timedOut ? ['raise the limit with --timeout or MQ_TIMEOUT, or try again later'] : ['check the API URL and your network or proxy settings (HTTPS_PROXY, NO_PROXY)'],
      cause: error,
    });
  }
}

function describeBody(res: HttpResponse): string {
  const body = res.body.trim();
  if (body === '') return '';
  if (/^\s*<(!doctype|html)/i.test(body) || res.contentType.includes('text/html')) return '(an HTML page, not an API answer)';
  return truncate(body.replace(/\s+/g, ' '));
}
