/**
 * Standard output and error without Node's streams when they are not a terminal
 * (src/output/fd-write.ts): which descriptors qualify, and writes that are whole, in order, and
 * hand over to the stream when the descriptor would block.
 */
import { closeSync, writeSync as fdWrite, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fdWriter, notTerminal } from '../../src/output/fd-write.js';
import { tempDir } from '../helpers/run-cli.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

function sink(): { stream: Writable; text: () => string } {
  const parts: Buffer[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      parts.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(parts).toString() };
}

describe('notTerminal', () => {
  it('a file and /dev/null are not terminals; on Windows nothing is assumed', () => {
    const file = openSync(join(tempDir('mq-fd-'), 'out.txt'), 'w');
    const devNull = openSync('/dev/null', 'w');
    try {
      expect(notTerminal(file)).toBe(true);
      expect(notTerminal(devNull)).toBe(true);
      expect(notTerminal(file, 'win32')).toBe(false);
      expect(notTerminal(987_654)).toBe(false);
    } finally {
      closeSync(file);
      closeSync(devNull);
    }
  });
});

describe('fdWriter', () => {
  it('writes every byte, in order, through partial writes', () => {
    const path = join(tempDir('mq-fd-'), 'out.txt');
    const fd = openSync(path, 'w');
    const s = sink();
    // At most 3 bytes a call, as a pipe may take.
    const w = fdWriter(
      fd,
      () => s.stream,
      () => undefined,
      (f, b) => (b.length > 3 ? fdWrite(f, b.subarray(0, 3)) : fdWrite(f, b)),
    );
    w('héllo, ');
    w('world\n');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('héllo, world\n');
    expect(s.text()).toBe('');
  });

  it('a descriptor that would block hands the rest, and every later write, to the stream', () => {
    const s = sink();
    const taken: string[] = [];
    let calls = 0;
    const w = fdWriter(
      1,
      () => s.stream,
      () => undefined,
      (_fd, b) => {
        calls++;
        if (calls === 1) {
          taken.push(Buffer.from(b.subarray(0, 2)).toString());
          return 2;
        }
        throw errno('EAGAIN');
      },
    );
    w('abcdef');
    w('gh');
    expect(taken).toEqual(['ab']);
    expect(s.text()).toBe('cdefgh');
    expect(calls).toBe(2);
  });

  it('a reader that went away (EPIPE) is reported once per write, not thrown; other errors are', () => {
    let gone = 0;
    const s = sink();
    const w = fdWriter(
      1,
      () => s.stream,
      () => gone++,
      () => {
        throw errno('EPIPE');
      },
    );
    w('x');
    expect(gone).toBe(1);
    const bad = fdWriter(
      1,
      () => s.stream,
      () => undefined,
      () => {
        throw errno('EIO');
      },
    );
    expect(() => bad('x')).toThrow('EIO');
  });
});
