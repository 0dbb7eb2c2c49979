/** A local receiver that keeps what it gets, and Svix signing written here with node:crypto. */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'utf8');
export const SECRET = `whsec_${KEY.toString('base64')}`;

export function sign(body: string | Buffer, id: string, ts: number, key = KEY): Record<string, string> {
  const mac = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), Buffer.from(body)]));
  return { 'svix-id': id, 'svix-timestamp': String(ts), 'svix-signature': `v1,${mac.digest('base64')}` };
}

export interface Got {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

export class Receiver {
  readonly got: Got[] = [];
  /** Status answered to each request (default 204). */
  status = 204;
  private server?: Server;

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(this.status).end();
      });
    });
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** Waits (10 s at most: the machine is loaded) until check() holds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function postTo(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}
