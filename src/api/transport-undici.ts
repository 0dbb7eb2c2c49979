// The proxy transport: undici's EnvHttpProxyAgent, loaded only when a proxy applies (or a test forces
// it). A proxy dropping the connection before the tunnel is PROXY_DROPPED (undici would reconnect in a
// tight loop); a CONNECT answered 407 is PROXY_AUTH, any other non-200 PROXY_REFUSED.
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  parserError,
  proxyLabel,
  systemCode,
  TransportError,
  type ProxySettings,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

type ConnectCallback = (err: Error | null, socket: unknown) => void;
type Connector = (options: unknown, callback: ConnectCallback) => void;

function tunnelFailure(err: Error, proxy: string): Error {
  if (err instanceof TransportError) return err;
  const label = proxyLabel(proxy);
  const status = /Proxy response \((\d+)\)/.exec(err.message)?.[1];
  if (status === '407')
    return new TransportError('PROXY_AUTH', `the proxy ${label} refused the credentials (HTTP 407)`, {
      proxy: label,
      cause: err,
    });
  if (status)
    return new TransportError('PROXY_REFUSED', `the proxy ${label} refused the tunnel (HTTP ${status})`, {
      detail: `HTTP ${status}`,
      proxy: label,
      cause: err,
    });
  const code = systemCode(err);
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
    return new TransportError('PROXY_DROPPED', `the proxy ${label} closed the connection before opening a tunnel`, {
      proxy: label,
      cause: err,
    });
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new TransportError('CONNECT_TIMEOUT', `no connection to the proxy ${label}`, { proxy: label, cause: err });
  if (code && /^E[A-Z]+$/.test(code))
    return new TransportError(code, `cannot connect to the proxy ${label}`, { proxy: label, cause: err });
  return err;
}

/** A TransportError for every network failure; anything else (a bug) goes up as it is. */
function normalise(err: unknown, signal: AbortSignal): unknown {
  if (err instanceof TransportError) return err;
  if (signal.aborted) return new TransportError('ABORTED', 'aborted', { cause: err });
  const parse = parserError(err);
  if (parse) return parse;
  const code = systemCode(err);
  const message = (err as Error)?.message ?? String(err);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TransportError('CONNECT_TIMEOUT', message, { cause: err });
  // Without a tunnel (plain http through the proxy) undici reports 407 this way.
  if (code === 'UND_ERR_INVALID_ARG' && /\(407\)/.test(message))
    return new TransportError('PROXY_AUTH', 'the proxy refused the credentials (HTTP 407)', { cause: err });
  if (
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CLOSED' ||
    code === 'UND_ERR_DESTROYED' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'EPIPE'
  ) {
    return new TransportError('ECONNRESET', message, { cause: err });
  }
  return code ? new TransportError(code, message, { cause: err }) : err;
}

async function* body(stream: AsyncIterable<Uint8Array>, signal: AbortSignal): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk;
  } catch (err) {
    throw normalise(err, signal);
  }
}

export async function undiciTransport(proxies: ProxySettings, connectTimeoutMs: number): Promise<Transport> {
  // Liftoff only: exit would wait for V8 to recompile undici's WebAssembly parser (bench/RESULTS.md).
  const { setFlagsFromString } = await import('node:v8');
  // The CLI's code cache (src/boot/bundles.ts) is written before the flag changes: V8 would make
  // caches after it that the next start, without the flag, refuses.
  (globalThis as { [key: symbol]: (() => void) | undefined })[Symbol.for('mq.beforeV8Flags')]?.();
  setFlagsFromString('--liftoff-only');
  const [
    { default: EnvHttpProxyAgent },
    { default: Agent },
    { default: Pool },
    { default: Dispatcher },
    { default: request },
    { default: connect },
  ] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/pool.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/api-request.js'),
    import('undici/lib/api/api-connect.js'),
  ]);
  // What undici's index does for its whole API, for the two methods used here: `request`, and
  // `connect` (the proxy agent opens its tunnels with it).
  Object.assign(Dispatcher.prototype, { request, connect });
  const common = { connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 10_000, connections: 64 };
  let direct: Dispatcher | undefined;
  let proxied: Dispatcher | undefined;

  const proxiedAgent = (): Dispatcher =>
    (proxied ??= new EnvHttpProxyAgent({
      ...common,
      httpProxy: proxies.httpProxy,
      httpsProxy: proxies.httpsProxy,
      noProxy: proxies.noProxy,
      // Each origin's pool connects through the tunnel function of the proxy agent; wrap it so a
      // failed tunnel is final for the queued request (see the top of this file).
      factory: (origin: string | URL, opts: object) => {
        const inner = (opts as { connect?: unknown }).connect;
        if (typeof inner !== 'function') return new Pool(origin, opts);
        const proxy = new URL(String(origin)).protocol === 'https:' ? proxies.httpsProxy : proxies.httpProxy;
        const connect: Connector = (options, callback) =>
          (inner as Connector)(options, (err, socket) =>
            callback(err ? tunnelFailure(err, proxy ?? '') : null, socket),
          );
        return new Pool(origin, { ...opts, connect } as ConstructorParameters<typeof Pool>[1]);
      },
    } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]));

  return {
    name: 'undici',
    async request(req: TransportRequest): Promise<TransportResponse> {
      const { url, signal } = req;
      if (signal.aborted) throw new TransportError('ABORTED', 'aborted');
      const dispatcher = req.proxy ? proxiedAgent() : (direct ??= new Agent(common));
      const sent = req.body;
      const sendHeaders =
        typeof sent === 'object' && sent.length !== undefined
          ? { ...req.headers, 'content-length': String(sent.length) }
          : req.headers;
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: sendHeaders,
          // undici pulls an iterable body chunk by chunk as the socket takes it (its typings omit
          // the AsyncIterable its documentation and code accept).
          body: typeof sent === 'object' ? (sent.chunks as unknown as Readable) : sent,
          signal,
        });
      } catch (err) {
        throw normalise(err, signal);
      }
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v[0] : v;
      const stream = res.body;
      // Destroying an unread body reports an abort on it; nobody is listening any more.
      const destroy = () => void stream.on('error', () => undefined).destroy();
      return { status: res.statusCode, headers, body: body(stream, signal), destroy };
    },
    async close() {
      const all = [direct, proxied];
      direct = undefined;
      proxied = undefined;
      // Every request has been answered or abandoned; close() would wait for idle keep-alive sockets.
      await Promise.all(all.map((d) => d?.destroy().catch(() => undefined)));
    },
  };
}
