// One attempt at a webhook delivery: its body POSTed with Svix's headers (id, timestamp, HMAC
// signature) and how it went, or undefined once the dispatcher closed. Queueing, retries: webhooks.ts.
import { bodyOf, type Delivery, type DeliveryAttempt, idOf } from './webhook-deliveries.js';
import { post } from '../webhooks/post.js';
import { signature } from '../webhooks/signature.js';

export async function postDelivery(
  d: Delivery,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<DeliveryAttempt | undefined> {
  const target = d.target;
  const timestamp = Math.floor(Date.now() / 1000);
  const at = new Date().toISOString();
  const body = bodyOf(d);
  const id = idOf(d);
  try {
    const status = await post(
      target.url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'mq-emulator-webhooks',
        'svix-id': id,
        'svix-timestamp': String(timestamp),
        'svix-signature': signature(target.key, id, timestamp, body),
      },
      timeoutMs,
      signal,
    );
    return { at, status };
  } catch (err) {
    if (signal.aborted) return undefined;
    const e = err as Error & { code?: string };
    const why = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (e.code ?? e.message);
    return { at, error: why };
  }
}
