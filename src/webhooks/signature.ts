/**
 * Svix webhook signatures (trunk-wire §3.1), shared by the emulator (signing) and mq (verifying):
 * `svix-signature` is a space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.rawBody">`,
 * keyed with the base64 part of a `whsec_…` secret.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { VerifyFailure, VerifyOptions, VerifyResult, WebhookHeaders } from '../lib/webhook-types.js';
import { decodeWebhookEvent } from './events.js';

export type { VerifyFailure, VerifyOptions, VerifyResult, WebhookHeaders };

const SECRET_PREFIX = 'whsec_';
/** Deliveries older or newer than this are refused (replay protection). */
export const DEFAULT_TOLERANCE_S = 5 * 60;
/** The largest body verified (Svix payloads are small). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Why a secret is malformed, or undefined when it is `whsec_` + base64 of a 16 to 64-byte key. */
export function secretProblem(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return `a webhook secret starts with ${SECRET_PREFIX}`;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    return `a webhook secret is ${SECRET_PREFIX} followed by base64`;
  }
  const n = Buffer.from(b64, 'base64').length;
  if (n < 16 || n > 64) return 'a webhook secret key must be 16 to 64 bytes long';
  return undefined;
}

/** The HMAC key of a `whsec_…` secret; throws a message fit for the command line when malformed. */
export function secretKey(secret: string): Buffer {
  const problem = secretProblem(secret);
  if (problem !== undefined) throw new Error(problem);
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

function digest(key: Buffer, id: string, timestamp: number | string, body: string | Uint8Array): string {
  const hmac = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8');
  return (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('base64');
}

/** The `svix-signature` header value for one attempt (the body's raw bytes are signed). */
export function signature(key: Buffer, id: string, timestamp: number, body: string | Uint8Array): string {
  return `v1,${digest(key, id, timestamp, body)}`;
}

/** One header's value, by lower-case name, from either form. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() !== name) continue;
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  }
  return undefined;
}

/** Svix's header, or its white-labelled `webhook-*` twin. */
const svixHeader = (h: WebhookHeaders, part: string) =>
  headerValue(h, `svix-${part}`) ?? headerValue(h, `webhook-${part}`);

const fail = (reason: VerifyFailure, message: string): VerifyResult => ({ ok: false, reason, message });

/** Whether any `v1,` entry of the header is the signature under one of the keys (constant-time compare). */
function signatureMatches(keys: Buffer[], id: string, ts: string, body: string | Uint8Array, header: string): boolean {
  const given = header
    .split(' ')
    .filter((e) => e.startsWith('v1,'))
    .map((e) => Buffer.from(e.slice(3), 'utf8'));
  let match = false;
  for (const key of keys) {
    const expected = Buffer.from(digest(key, id, ts, body), 'utf8');
    for (const g of given) if (g.length === expected.length && timingSafeEqual(g, expected)) match = true;
  }
  return match;
}

/**
 * Checks one delivery: every secret of a rotation list is tried; the raw body's bytes are what is
 * signed (never a re-serialised body); the timestamp must be within the tolerance of now.
 */
export function verifyDelivery(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) return fail('secret-format', 'no webhook secret given');
  const keys: Buffer[] = [];
  for (const [i, s] of list.entries()) {
    const problem = secretProblem(s);
    if (problem !== undefined) return fail('secret-format', list.length > 1 ? `secret ${i + 1}: ${problem}` : problem);
    keys.push(secretKey(s));
  }
  const id = svixHeader(headers, 'id');
  const ts = svixHeader(headers, 'timestamp');
  const sig = svixHeader(headers, 'signature');
  for (const [name, value] of [
    ['svix-id', id],
    ['svix-timestamp', ts],
    ['svix-signature', sig],
  ] as const) {
    if (value === undefined || value === '') return fail('missing-header', `the ${name} header is missing`);
  }
  if (!/^\d{1,12}$/.test(ts as string)) return fail('bad-timestamp', 'svix-timestamp is not a number of seconds');
  const size = typeof rawBody === 'string' ? Buffer.byteLength(rawBody) : rawBody.byteLength;
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (size > max) return fail('too-large', `the body is ${size} bytes, over the limit of ${max}`);
  const nowS = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_S;
  const timestamp = Number(ts);
  if (timestamp < nowS - tolerance) {
    return fail('timestamp-too-old', `the timestamp is ${nowS - timestamp} s old (tolerance ${tolerance} s)`);
  }
  if (timestamp > nowS + tolerance) {
    return fail('timestamp-in-future', `the timestamp is ${timestamp - nowS} s ahead (tolerance ${tolerance} s)`);
  }
  if (!signatureMatches(keys, id as string, ts as string, rawBody, sig as string)) {
    const tried = keys.length > 1 ? ` under any of the ${keys.length} secrets` : '';
    return fail('bad-signature', `no v1 signature matches the raw body${tried}`);
  }
  let payload: unknown;
  try {
    const text = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
    payload = JSON.parse(text);
  } catch {
    return fail('not-json', 'the body is signed but is not JSON');
  }
  return { ok: true, id: id as string, timestamp, event: decodeWebhookEvent(payload) };
}
