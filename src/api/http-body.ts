// Bodies for the HTTP layer: request bodies (streams reopened per attempt, shown by size only in
// --debug/--dry-run) and answers read as text up to the size cap.
import { ExitCode, MqError } from '../errors.js';
import { formatBytes } from './http-errors.js';
import type { StreamBody, TransportBody, TransportResponse } from './transport.js';

export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** --debug's line for a streamed body: its size, never its bytes. */
export function streamSummary(body: StreamBody): string {
  return `(a streamed body${body.length === undefined ? '' : ` of ${body.length} bytes`})`;
}

/** The body for one attempt: a string as is, a StreamBody opened anew. */
export function sendable(body: string | StreamBody | undefined): TransportBody | undefined {
  return typeof body === 'object' ? { length: body.length, chunks: body.open() } : body;
}

/** The answer as UTF-8 text, up to `max` bytes (larger: the response is destroyed and an MqError thrown). */
export async function readText(res: TransportResponse, max: number, what: string): Promise<string> {
  const tooLarge = () => {
    res.destroy();
    return new MqError(
      ExitCode.unexpected,
      what,
      `the answer is larger than ${formatBytes(max)}; mq stopped reading it`,
      {
        hints: ['check that the API URL (--api-url, MQ_API_URL or the profile) points at the merge queue service'],
      },
    );
  };
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
