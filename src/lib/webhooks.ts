import { verifyDelivery } from '../webhooks/signature.js';
import type { VerifyOptions, VerifyResult, WebhookHeaders } from './webhook-types.js';

/**
 * Verifies one webhook delivery of the merge queue (Svix scheme) and decodes its event.
 *
 * @param rawBody - the request body exactly as received (never a re-serialised object).
 * @param headers - the request headers: a plain object in any case (Node's `req.headers`) or a `Headers`;
 *   `svix-id`, `svix-timestamp` and `svix-signature` (or their `webhook-*` twins) are read.
 * @param secret - the endpoint's `whsec_…` secret, or several during a rotation (each is tried).
 * @param options - `now` (epoch ms), `toleranceSeconds` (default 300), `maxBodyBytes` (default 1 MiB).
 * @returns `{ ok: true, id, timestamp, event }`, the event typed by family (`pull_request`,
 *   `pull_request_batch`, or `unknown` for a type mq does not know); or `{ ok: false, reason, message }`
 *   with `reason` one of `secret-format`, `missing-header`, `bad-timestamp`, `timestamp-too-old`,
 *   `timestamp-in-future`, `bad-signature`, `too-large`, `not-json`. It never throws.
 *
 * @example
 * ```ts
 * const result = verifyWebhook(rawBody, req.headers, process.env.MQ_WEBHOOK_SECRET ?? '');
 * if (!result.ok) return res.writeHead(401).end(result.reason);
 * if (result.event.type === 'pull_request.failed') console.log(result.event.pr_number, result.event.reason);
 * ```
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options?: VerifyOptions,
): VerifyResult {
  return verifyDelivery(rawBody, headers, secret, options);
}
