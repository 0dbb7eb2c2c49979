// The one HTTP layer every command goes through, over a transport (transport.ts).
// - Each attempt is bounded by the request timeout and the call's/command's deadline; signals stop it.
// - Retries 429/5xx/network with backoff (Retry-After ≤ 60 s); a non-idempotent write only when it
//   never reached the server, else the outcome is "unknown". A one-shot stream body is never retried.
// - No redirects (the token must not reach another host); the token is redacted from all it receives.
// - Answers over 64 MiB are not read; the Date header gives serviceNow().
import { ConfigError, ExitCode, MqError } from '../errors.js';
import {
  isLoopback,
  PRE_SEND_CODES,
  proxyFor,
  proxyLabel,
  type ProxySettings,
  proxySettings,
  type Transport,
  type TransportName,
} from './transport.js';
import type { CallOptions, CallSpec, HttpResponse, HttpSettings, RequestDescription } from './http-types.js';
import { checkWriteAnswer, networkError, statusError, truncate, type Attempt } from './http-errors.js';
import { exchange } from './http-exchange.js';
import { abortableWait, backoffDelay, MAX_RETRY_AFTER_MS, MIN_RETRY_WINDOW_MS, parseRetryAfter } from './http-retry.js';
import { MAX_RESPONSE_BYTES, streamSummary } from './http-body.js';
import { clockWarning, saneServiceTime } from './service-clock.js';

export { checkWriteAnswer, MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_MS, MIN_RETRY_WINDOW_MS, parseRetryAfter, truncate };
export type { CallOptions, CallSpec, HttpResponse, HttpSettings, RequestDescription };

const REDACTED = '***';
/** The one endpoint a fork PR's workflow run id authenticates. */
const FORKED_ENDPOINT = 'setImpactedTargets';

const transports = new Map<string, Promise<Transport>>();

function transportFor(name: TransportName, settings: HttpSettings, proxies: ProxySettings): Promise<Transport> {
  const key = name === 'node' ? 'node' : `undici ${JSON.stringify(proxies)}`;
  let t = transports.get(key);
  if (!t) {
    t =
      name === 'node'
        ? import('./transport-node.js').then((m) => m.nodeTransport())
        : import('./transport-undici.js').then((m) => m.undiciTransport(proxies, settings.connectTimeoutMs ?? 10_000));
    t.catch(() => transports.delete(key));
    transports.set(key, t);
  }
  return t;
}

/** Drops every connection so the process can exit without waiting for idle sockets. */
export async function closeHttp(): Promise<void> {
  const all = [...transports.values()];
  transports.clear();
  await Promise.all(all.map((t) => t.then((x) => x.close()).catch(() => undefined)));
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

function interrupted(): MqError {
  return new MqError(ExitCode.interrupted, 'interrupted', 'stopped by Ctrl-C');
}

export class HttpClient {
  readonly settings: HttpSettings;
  private readonly sleep: ((ms: number) => Promise<void>) | undefined;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly env: NodeJS.ProcessEnv;
  private clockOffsetMs: number | undefined;
  /** The last Date header read and its time: a bulk run gets the same second many times over. */
  private lastDate: { header: string; at: number } | undefined;
  private clockWarned = false;
  /** The proxy variables, read once (a bulk run would read six variables a request). */
  private proxySettings: ProxySettings | undefined;
  /** The token's forms that redact() replaces (as is, and JSON-escaped). */
  private readonly tokenForms: readonly string[];

  constructor(settings: HttpSettings) {
    this.settings = settings;
    this.sleep = settings.sleep;
    this.random = settings.random ?? Math.random;
    this.now = settings.now ?? Date.now;
    this.env = settings.env ?? process.env;
    const token = settings.token;
    this.tokenForms = token.length < 4 ? [] : [...new Set([token, JSON.stringify(token).slice(1, -1)])];
  }

  serviceNow(): number {
    return this.now() + (this.clockOffsetMs ?? 0);
  }

  get serviceClockOffsetMs(): number | undefined {
    return this.clockOffsetMs;
  }

  url(spec: Pick<CallSpec, 'endpoint' | 'query'>): string {
    const base = this.settings.baseUrl.replace(/\/+$/, '');
    const qs = spec.query && Object.keys(spec.query).length > 0 ? `?${new URLSearchParams(spec.query).toString()}` : '';
    return `${base}/${spec.endpoint}${qs}`;
  }

  headers(spec: Pick<CallSpec, 'body' | 'endpoint'>, redact: boolean): Record<string, string> {
    const forked = this.forkedRunFor(spec);
    const h: Record<string, string> = {
      'user-agent': this.settings.userAgent,
      accept: 'application/json, text/plain;q=0.9',
    };
    const token = redact ? REDACTED : this.settings.token;
    if (this.settings.api === 'v2') h.authorization = `Bearer ${token}`;
    else h['x-api-token'] = forked !== undefined ? '' : token;
    if (forked !== undefined) h['x-forked-workflow-run-id'] = forked;
    if (spec.body !== undefined) h['content-type'] = 'application/json';
    return h;
  }

  /** The fork's run id when it authenticates this call (setImpactedTargets only). */
  private forkedRunFor(spec: Pick<CallSpec, 'endpoint'>): string | undefined {
    return spec.endpoint === FORKED_ENDPOINT ? this.settings.forkedWorkflowRunId || undefined : undefined;
  }

  describe(spec: CallSpec): RequestDescription {
    const body = typeof spec.body === 'object' ? (spec.body.text?.() ?? streamSummary(spec.body)) : spec.body;
    return { method: spec.method, url: this.url(spec), headers: this.headers(spec, true), body };
  }

  private proxies(): ProxySettings {
    this.proxySettings ??= proxySettings(this.env);
    return this.proxySettings;
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.tokenForms) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  }

  async call(spec: CallSpec, own: CallOptions = {}): Promise<HttpResponse> {
    // A dry run without a token may still try a read; never send one with an empty token.
    if (!this.settings.token && this.forkedRunFor(spec) === undefined) {
      throw new ConfigError('no API token to read with', { hints: ['run `mq auth login`, or set MQ_TOKEN'] });
    }
    const maxRetries = this.settings.maxRetries ?? 3;
    // The command's deadline bounds every call; a call may bring an earlier one.
    const deadline = earliest(own.deadline, this.settings.deadline);
    const call: CallOptions = { signal: own.signal, deadline };
    const oneShot = typeof spec.body === 'object' && !spec.body.replayable;
    for (let attempt = 0; ; attempt++) {
      this.throwIfAborted(call);
      let limit = this.settings.timeoutMs;
      if (deadline !== undefined) {
        const left = deadline - this.now();
        if (left <= 0)
          throw new MqError(
            ExitCode.unavailable,
            spec.what,
            'no time left before the deadline (--timeout) to send the request',
          );
        limit = Math.min(limit, left);
      }
      const outcome = await this.attempt(spec, call, limit);
      // A body that cannot be replayed has been used up by this attempt.
      const canRetry = attempt < maxRetries && !oneShot;
      if (outcome.kind === 'response') {
        const { response, retryAfterMs } = outcome;
        if (response.status >= 200 && response.status < 300) return response;
        const transient = response.status === 429 || response.status >= 500;
        // A 429 means the server refused before acting, so even a non-idempotent write may repeat.
        const safe = spec.idempotent || response.status === 429;
        if (
          transient &&
          safe &&
          canRetry &&
          (await this.backoff(attempt, retryAfterMs, spec, call, `HTTP ${response.status}`))
        )
          continue;
        throw statusError(
          spec,
          response,
          transient && attempt > 0,
          this.settings.api === 'v2' ? undefined : this.settings.baseUrl,
        );
      }
      const { code } = outcome;
      const preSend = PRE_SEND_CODES.has(code);
      // A proxy refusing the credentials will refuse them again.
      const retryable = code !== 'PROXY_AUTH' && (spec.idempotent || preSend);
      if (retryable && canRetry && (await this.backoff(attempt, undefined, spec, call, code))) continue;
      throw networkError(
        spec,
        outcome,
        { baseUrl: this.settings.baseUrl, timeoutSource: this.settings.timeoutSource, redact: (t) => this.redact(t) },
        preSend,
        attempt,
        deadline !== undefined && (outcome.timedOutMs ?? Infinity) < this.settings.timeoutMs,
      );
    }
  }

  private throwIfAborted(call: CallOptions): void {
    if (this.settings.signal?.aborted) throw interrupted();
    if (call.signal?.aborted) throw call.signal.reason instanceof MqError ? call.signal.reason : interrupted();
  }

  /** Waits before the next try; false (and no wait, no message) when the deadline leaves no room for one. */
  private async backoff(
    attempt: number,
    retryAfterMs: number | undefined,
    spec: CallSpec,
    call: CallOptions,
    reason: string,
  ): Promise<boolean> {
    const delay = backoffDelay(attempt, retryAfterMs, this.settings.backoffMs ?? 500, this.random);
    if (call.deadline !== undefined && this.now() + delay + MIN_RETRY_WINDOW_MS > call.deadline) {
      this.settings.debug?.(`no retry of ${spec.endpoint} after ${reason}: the deadline is too close`);
      return false;
    }
    this.settings.debug?.(`retry ${attempt + 1} of ${spec.endpoint} after ${reason}, waiting ${delay} ms`);
    await this.pause(delay, call);
    return true;
  }

  private pause(ms: number, call: CallOptions): Promise<void> {
    return abortableWait(ms, this.signals(call), () => this.throwIfAborted(call), this.sleep);
  }

  /** Ctrl-C's and the call's signals. */
  private signals(call: CallOptions): AbortSignal[] {
    return [this.settings.signal, call.signal].filter((s): s is AbortSignal => s !== undefined);
  }

  private pickTransport(url: URL): { name: TransportName; proxy?: string } {
    const proxy = proxyFor(url, this.proxies());
    if (proxy) {
      if (!/^(https?|socks5?):\/\/[^/]/i.test(proxy) || !URL.canParse(proxy)) {
        // Not echoed: a proxy URL may carry a password.
        throw new ConfigError(`the proxy for ${url.protocol}// URLs (HTTPS_PROXY / HTTP_PROXY) is not a URL`, {
          hints: ['expected http://[user:password@]host:port', 'or list this host in NO_PROXY'],
        });
      }
      return { name: 'undici', proxy };
    }
    const forced = this.settings.transport ?? this.env.MQ_TEST_TRANSPORT;
    return { name: forced === 'undici' ? 'undici' : 'node' };
  }

  private async attempt(spec: CallSpec, call: CallOptions, limit: number): Promise<Attempt> {
    const url = new URL(this.url(spec));
    const debug = this.settings.debug;
    const started = this.now();
    const route = this.pickTransport(url);
    if (debug) {
      debug(
        `> ${spec.method} ${url.href} ` +
          `(${route.name}${route.proxy ? `, through the proxy ${proxyLabel(route.proxy)}` : ''})`,
      );
      for (const [k, v] of Object.entries(this.headers(spec, true))) debug(`> ${k}: ${v}`);
      if (typeof spec.body === 'object') debug(`> ${streamSummary(spec.body)}`);
      else if (spec.body !== undefined) debug(`> ${truncate(spec.body)}`);
    }
    const transport = await transportFor(route.name, this.settings, this.proxies());
    this.throwIfAborted(call);
    return exchange({
      transport,
      url,
      spec,
      headers: this.headers(spec, false),
      proxy: route.proxy,
      limit,
      connectTimeoutMs: Math.min(this.settings.connectTimeoutMs ?? 10_000, limit),
      maxResponseBytes: this.settings.maxResponseBytes ?? MAX_RESPONSE_BYTES,
      started,
      signals: this.signals(call),
      throwIfAborted: () => this.throwIfAborted(call),
      now: this.now,
      serviceNow: () => this.serviceNow(),
      redact: (t) => this.redact(t),
      noteDate: (date) => this.noteServiceClock(date),
      debug,
    });
  }

  private noteServiceClock(date: string | undefined): void {
    if (!date) return;
    if (this.lastDate?.header !== date) this.lastDate = { header: date, at: Date.parse(date) };
    const at = this.lastDate.at;
    if (Number.isNaN(at)) return;
    // The header has whole seconds: the service's time was somewhere in the second it names.
    const offset = at + 500 - this.now();
    if (!this.clockWarned && this.settings.warn) {
      const warning = clockWarning(at, offset, isLoopback(new URL(this.settings.baseUrl).hostname));
      this.clockWarned = warning !== undefined;
      if (warning) this.settings.warn(warning);
    }
    if (saneServiceTime(at)) this.clockOffsetMs = offset;
  }
}
