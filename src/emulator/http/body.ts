/**
 * Reading a request body under the 20 MiB limit without ever holding more than the limit: a
 * declared Content-Length over it is refused before reading a byte, and a streamed (chunked) body
 * is counted as it arrives and abandoned the moment it crosses the limit.
 */
import { isAscii } from 'node:buffer';
import type { IncomingMessage } from 'node:http';

import { HttpError } from './respond.js';

export const BODY_LIMIT = 20 * 1024 * 1024;

const tooLarge = (limit: number) =>
  new HttpError(413, `request body is larger than the ${limit / (1024 * 1024)} MiB limit`);

/**
 * After a 413: the rest of the body is discarded as it arrives (never buffered). It is not closed at
 * once: closing with unread data makes the kernel send a reset, which can destroy the 413 before
 * the client reads it. A client that finishes its upload keeps its connection; one that keeps
 * streaming is cut after two seconds.
 */
export function discardRest(req: IncomingMessage): void {
  const cut = setTimeout(() => req.destroy(), 2_000).unref();
  req.once('end', () => clearTimeout(cut));
  req.resume();
}

export function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // A small body usually arrives in one chunk: no copy then.
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(new HttpError(400, 'request body was cut off'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Bodies must be declared `application/json` (any parameters, any case), as the live service
 * (Express `express.json()`) only parses that type. Anything else — `text/plain`, a form encoding,
 * or no Content-Type at all (curl -d sends a form type) — is refused with 415 before the body is
 * read, with a message naming the header to send.
 */
export function requireJsonContentType(req: IncomingMessage): void {
  const given = req.headers['content-type'];
  if (given === 'application/json') return;
  const type = given?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return;
  throw new HttpError(
    415,
    given === undefined || given.trim() === ''
      ? 'missing Content-Type: send the request body as JSON with content-type: application/json'
      : `unsupported Content-Type "${given.slice(0, 100)}": send the request body as JSON with content-type: ` +
          `application/json`,
  );
}

/** Strict: malformed bytes are an error, not U+FFFD; a BOM is kept (and JSON.parse refuses it, as before). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parses a body as JSON; an empty, malformed or non-UTF-8 body is a 400 that says what is wrong. */
export function parseJson(raw: Buffer): unknown {
  let text: string;
  if (isAscii(raw)) {
    // ASCII is UTF-8 as it stands (and has no BOM): the strict decoder has nothing to check.
    text = raw.toString('latin1');
  } else {
    try {
      text = utf8.decode(raw);
    } catch {
      throw new HttpError(400, 'request body is not valid UTF-8');
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (text.trim() === '') throw new HttpError(400, 'request body: expected a JSON object, got an empty body');
    throw new HttpError(400, `malformed JSON in request body: ${(err as Error).message}`);
  }
}
