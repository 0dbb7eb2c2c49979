/**
 * A real forward proxy for tests, on 127.0.0.1: it records every request line it is asked for and
 * relays absolute-form requests and CONNECT tunnels. Names in `hosts` are sent to 127.0.0.1 (the
 * CLI uses them as non-loopback names, see fake-dns.mjs). Misbehaving modes:
 * - `auth`    answers every request and CONNECT with 407
 * - `drop`    closes the connection as soon as a CONNECT arrives, without a word
 * - `silent`  accepts everything and never answers
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export type ProxyMode = 'relay' | 'auth' | 'drop' | 'silent';

export interface ForwardProxy {
  url: string;
  /** `CONNECT host:port` or `POST http://host:port/path`, in order. */
  seen: string[];
  /** The Proxy-Authorization header of each request, if any. */
  auth: Array<string | undefined>;
  mode: ProxyMode;
  close(): Promise<void>;
}

export async function startForwardProxy(hosts: string[] = []): Promise<ForwardProxy> {
  const mapped = new Set(hosts.map((h) => h.toLowerCase()));
  const target = (host: string) => (mapped.has(host.toLowerCase()) ? '127.0.0.1' : host);
  const sockets = new Set<Socket>();
  const state: ForwardProxy = { url: '', seen: [], auth: [], mode: 'relay', close: async () => undefined };
  const server: Server = createServer((req, res) => {
    state.seen.push(`${req.method} ${req.url}`);
    state.auth.push(req.headers['proxy-authorization']);
    if (state.mode === 'silent') return;
    if (state.mode === 'drop') return void req.socket.destroy();
    if (state.mode === 'auth') {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' });
      return void res.end();
    }
    const url = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(
      { host: target(url.hostname), port: url.port, path: url.pathname + url.search, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head) => {
    state.seen.push(`CONNECT ${req.url}`);
    state.auth.push(req.headers['proxy-authorization']);
    client.on('error', () => undefined);
    if (state.mode === 'silent') return;
    if (state.mode === 'drop') return void client.destroy();
    if (state.mode === 'auth')
      return void client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
    const [host = '', port = ''] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), target(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}
