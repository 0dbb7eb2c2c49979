/** Webhook secrets and Svix-style signatures (trunk-wire §3.1), and the check of a receiver URL. */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_…` secret; throws a message fit for the command line when malformed. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`a webhook secret starts with ${SECRET_PREFIX}`);
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new Error(`a webhook secret is ${SECRET_PREFIX} followed by base64`);
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length < 16 || key.length > 64) throw new Error('a webhook secret key must be 16 to 64 bytes long');
  return key;
}

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The `svix-signature` header value for one attempt. */
export function signature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
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
