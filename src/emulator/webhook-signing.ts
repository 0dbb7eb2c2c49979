/** The check of a webhook receiver URL (signing is in src/webhooks/signature.ts, shared with mq's verifier). */
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
