/** One webhook HTTP POST: the emulator's deliveries, and `mq webhooks listen --forward` / `replay`. */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

// One POST, resolving with the status once the answer is drained; no redirects. node:http, not fetch
// (which would load undici's memory for a handful of attempts).
export function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<number> {
  return new Promise((resolve, reject) => {
    if (stop.aborted) {
      reject(new Error('stopped'));
      return;
    }
    const u = new URL(url);
    const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(u, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: stop,
    });
    const timer = setTimeout(() => {
      const e = new Error(`timed out after ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      req.destroy(e);
    }, timeoutMs);
    timer.unref();
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
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
