// The interface under the HTTP layer (http.ts): a transport moves one request and streams the answer.
// node:http(s) by default, undici only when a proxy applies; both fail with one TransportError vocabulary.

/** A request body in pieces; one that is not `replayable` is never retried once opened. */
export interface StreamBody {
  /** Total bytes when known: sent as content-length; otherwise chunked transfer encoding. */
  readonly length?: number;
  readonly replayable: boolean;
  open(): AsyncIterable<Uint8Array>;
  /** The whole body as text, for --dry-run (which shows what would be sent). */
  text?(): string;
}

export type TransportBody = string | { length?: number; chunks: AsyncIterable<Uint8Array> };

export interface TransportRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: TransportBody;
  /** Aborts every phase: connecting, the proxy tunnel, waiting for headers, reading the body. */
  signal: AbortSignal;
  connectTimeoutMs: number;
  /** The proxy to go through (only the undici transport takes one). */
  proxy?: string;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | undefined>;
  /** The body as it arrives; errors while reading it are TransportErrors too. */
  body: AsyncIterable<Uint8Array>;
  destroy(): void;
}

export interface Transport {
  readonly name: TransportName;
  request(req: TransportRequest): Promise<TransportResponse>;
  /** Ends what would keep the process alive (before mq exits). */
  close(): Promise<void>;
}

export type TransportName = 'node' | 'undici';

/**
 * Failure codes of both transports: system codes as is, plus CONNECT_TIMEOUT (nothing sent), ECONNRESET
 * (may have been sent), PARSE, PROXY_AUTH (407), PROXY_REFUSED, PROXY_DROPPED and ABORTED.
 */
export class TransportError extends Error {
  readonly code: string;
  readonly detail: string | undefined;
  /** Set when the failure happened on the way to the proxy or inside it: the proxy's host. */
  readonly proxy: string | undefined;
  constructor(code: string, message: string, options: { detail?: string; proxy?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
    this.code = code;
    this.detail = options.detail;
    this.proxy = options.proxy;
  }
}

/** Codes raised before a single byte of the request left this machine (safe to repeat any call). */
export const PRE_SEND_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'CONNECT_TIMEOUT',
  'PROXY_DROPPED',
  'PROXY_REFUSED',
  'PROXY_AUTH',
]);

/** The code of a system error, looking through wrappers (`cause`, AggregateError). */
export function systemCode(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string') return e.code;
  if (Array.isArray(e.errors) && e.errors.length > 0) return systemCode(e.errors[0]);
  if (e.cause) return systemCode(e.cause);
  return undefined;
}

/** An HTTP parser complaint (`HPE_…`) from either transport, as `HPE_X: reason`. */
export function parserError(err: unknown): TransportError | undefined {
  const code = systemCode(err);
  const e = err as { name?: unknown; reason?: unknown; message?: unknown };
  // undici's parser errors do not always carry their code; their name is reliable.
  if (!code?.startsWith('HPE_') && e?.name !== 'HTTPParserError') return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const reason =
    typeof e.reason === 'string'
      ? e.reason
      : (/^Response does not match the HTTP\/1\.1 protocol \((.*)\)$/.exec(message)?.[1] ??
        message.replace(/^Parse Error:\s*/, ''));
  const detail =
    [code?.startsWith('HPE_') ? code : undefined, reason || undefined].filter(Boolean).join(': ').slice(0, 200) ||
    'parser error';
  return new TransportError('PARSE', `not a valid HTTP answer (${detail})`, { detail, cause: err });
}

// URL host names arrive normalised: `127.1` and `2130706433` are already `127.0.0.1`, an
// IPv4-mapped `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`.
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/i;

/** localhost, 127.0.0.0/8 and ::1: always reached directly, whatever the proxy settings say. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname.replace(/\.$/, ''));
}

function envValue(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const httpProxy = envValue(env, 'http_proxy', 'HTTP_PROXY');
  // As curl and undici do: an https URL falls back to the http proxy when HTTPS_PROXY is unset.
  const httpsProxy = envValue(env, 'https_proxy', 'HTTPS_PROXY') ?? httpProxy;
  return { httpProxy, httpsProxy, noProxy: envValue(env, 'no_proxy', 'NO_PROXY') ?? '' };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** The proxy for `url`, or undefined: never for loopback; NO_PROXY matches host or subdomains, `*` = none. */
export function proxyFor(url: URL, settings: ProxySettings): string | undefined {
  const hostname = url.hostname.toLowerCase();
  if (isLoopback(hostname)) return undefined;
  const proxy = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!proxy) return undefined;
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  for (const raw of settings.noProxy.split(/[,\s]+/)) {
    if (!raw) continue;
    if (raw === '*') return undefined;
    const m = /^(.+):(\d+)$/.exec(raw);
    const entryPort = m ? Number(m[2]) : 0;
    const entryHost = (m ? (m[1] as string) : raw)
      .replace(/^\*?\./, '')
      .replace(/^\[(.*)\]$/, '$1')
      .toLowerCase();
    if (entryPort && entryPort !== port) continue;
    if (host === entryHost || host.endsWith(`.${entryHost}`)) return undefined;
  }
  return proxy;
}

/** A proxy URL fit for messages: no credentials. */
export function proxyLabel(proxy: string): string {
  try {
    return new URL(proxy).host;
  } catch {
    return 'the proxy';
  }
}
