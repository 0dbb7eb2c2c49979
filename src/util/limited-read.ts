// Reading stdin or a file with a ceiling: stops once past it (`/dev/zero` never fills memory).
import { createReadStream } from 'node:fs';

export class InputTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limitText(limit)}`);
    this.name = 'InputTooLarge';
  }
}

export function limitText(bytes: number): string {
  if (bytes % 1048576 === 0) return `${bytes / 1048576} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The stream's bytes as UTF-8, or InputTooLarge once more than `limit` bytes arrived. */
export async function readLimited(
  stream: AsyncIterable<Buffer | string> & { destroy?: () => void },
  limit: number,
): Promise<string> {
  return (await readLimitedBytes(stream, limit)).toString('utf8');
}

/** The stream's bytes as they are, or InputTooLarge once more than `limit` bytes arrived. */
export async function readLimitedBytes(
  stream: AsyncIterable<Buffer | string> & { destroy?: () => void },
  limit: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > limit) {
      stream.destroy?.();
      throw new InputTooLarge(limit);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

export function readFileLimited(path: string, limit: number): Promise<string> {
  return readLimited(createReadStream(path, { highWaterMark: 1 << 20 }), limit);
}

export function readFileBytesLimited(path: string, limit: number): Promise<Buffer> {
  return readLimitedBytes(createReadStream(path, { highWaterMark: 1 << 20 }), limit);
}
