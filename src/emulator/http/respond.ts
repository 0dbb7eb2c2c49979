/**
 * Responses as the live service sends them: JSON for reads, a plain `OK` for mutations (Express's
 * `res.sendStatus(200)`), plain-text bodies for every error.
 */
import type { ServerResponse } from 'node:http';

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** An error the adapter answers with its status and message (the engine has its own EngineError). */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  contentType?: string;
}

export const OK: Reply = { text: 'OK' };

export function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
  const type = reply.contentType ?? (reply.json !== undefined ? JSON_TYPE : TEXT);
  res.writeHead(reply.status ?? 200, {
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
    ...extraHeaders,
  });
  res.end(body);
}

/**
 * The hot path's send: the same answer as `send` with the emulator's `Date` and, while closing,
 * `Connection: close`, without building a merged header object per request.
 */
export function sendWithDate(res: ServerResponse, reply: Reply, date: string | undefined, closing: boolean): void {
  if (res.headersSent) return;
  const json = reply.json !== undefined;
  const body = json ? JSON.stringify(reply.json) : (reply.text ?? '');
  const headers: Record<string, string> = {
    'content-type': reply.contentType ?? (json ? JSON_TYPE : TEXT),
    'content-length': String(Buffer.byteLength(body)),
  };
  if (date !== undefined) headers.date = date;
  if (closing) headers.connection = 'close';
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  send(res, { status, text: message }, headers);
}
