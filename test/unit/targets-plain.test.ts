/**
 * The WebAssembly fast path of `mq targets --file` (src/commands/targets-plain.ts and .wat): it
 * takes a segment only when every line is a target as it stands, and then writes exactly what the
 * per-line rules would; the committed bytes are the assembled text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TargetsBodyWriter } from '../../src/commands/targets-file.js';
import { PlainLines } from '../../src/commands/targets-plain.js';
import { assemble, OUT, source } from '../../scripts/wasm.mjs';

/** The rule the kernel implements, one byte at a time: a line is plain when every byte is. */
const plainByte = (b: number) => b >= 0x21 && b < 0x80 && b !== 0x22 && b !== 0x23 && b !== 0x5c;

/** The lines of a segment, each without one carriage return at its end (a Windows line end). */
const linesOf = (bytes: Uint8Array) =>
  Buffer.from(bytes)
    .toString('latin1')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));

/** Whether the per-line rules would leave every line as it stands but its line end (and none is empty). */
function allPlain(bytes: Uint8Array): boolean {
  return linesOf(bytes).every((line) => line !== '' && [...line].every((c) => plainByte(c.charCodeAt(0))));
}

function expectedPiece(bytes: Uint8Array, after: boolean): string {
  return (
    (after ? ',' : '') +
    linesOf(bytes)
      .map((l) => JSON.stringify(l))
      .join(',')
  );
}

let shared: PlainLines | undefined;

function run(bytes: Uint8Array, after = false, max?: number) {
  const plain = max === undefined ? (shared ??= PlainLines.open(16 << 20)) : PlainLines.open(max);
  if (!plain) throw new Error('WebAssembly is not available');
  const added = plain.add(bytes, after);
  return { added, text: plain.take()?.toString('latin1') };
}

describe('targets fast path (WebAssembly)', () => {
  it('the committed module is the assembled targets-plain.wat', async () => {
    expect(readFileSync(OUT, 'utf8')).toBe(source(await assemble()));
  });

  it('every byte value, at every place in a vector and in the tail: taken exactly when plain', () => {
    for (let b = 0; b < 256; b++) {
      for (const at of [0, 1, 7, 15, 16, 17, 31, 33, 40]) {
        const line = Buffer.alloc(41, 0x61);
        line[at] = b;
        const { added, text } = run(line);
        if (plainByte(b)) {
          expect(added, `byte ${b} at ${at}`).toEqual({ targets: 1, bytes: 43 });
          expect(text).toBe(JSON.stringify(line.toString('latin1')));
        } else if (b === 0x0a && at !== 0 && at !== 40) {
          // A line feed inside splits the line in two.
          expect(added?.targets, `line feed at ${at}`).toBe(2);
          expect(text).toBe(expectedPiece(line, false));
        } else if (b === 0x0d && at === 40) {
          // A carriage return at the end is the line's (Windows) line end.
          expect(added).toEqual({ targets: 1, bytes: 42 });
          expect(text).toBe(JSON.stringify('a'.repeat(40)));
        } else {
          expect(added, `byte ${b} at ${at}`).toBeUndefined();
          expect(text).toBeUndefined();
        }
      }
    }
  });

  it('Windows line ends, a carriage return at every place around a vector edge', () => {
    for (let at = 1; at <= 45; at++) {
      const line = Buffer.alloc(48, 0x62);
      line[at] = 0x0d;
      line[at + 1] = 0x0a;
      const { added, text } = run(line);
      expect(text, `CR LF at ${at}`).toBe(expectedPiece(line, false));
      expect(added?.targets).toBe(2);
      // A carriage return not before a line feed is a control character to escape.
      line[at + 1] = 0x63;
      expect(run(line).added, `lone CR at ${at}`).toBeUndefined();
      // An empty line with a Windows line end.
      if (at >= 2) {
        line[at - 1] = 0x0a;
        line[at + 1] = 0x0a;
        expect(run(line).added, `LF CR LF at ${at - 1}`).toBeUndefined();
      }
    }
    expect(run(Buffer.from('\r\nabc')).added).toBeUndefined();
    expect(run(Buffer.from('abc\n\r')).added).toBeUndefined();
    expect(run(Buffer.from('\r')).added).toBeUndefined();
    expect(run(Buffer.from('abc\r\r\ndef')).added).toBeUndefined();
    expect(run(Buffer.from('abc\r')).text).toBe('"abc"');
  });

  it('an empty line anywhere (two line feeds, or one at either end) is left to the per-line rules', () => {
    for (let at = 0; at <= 48; at++) {
      const line = Buffer.alloc(50, 0x62);
      line[at] = 0x0a;
      line[at + 1] = 0x0a;
      expect(run(line).added, `blank line at ${at}`).toBeUndefined();
    }
    expect(run(Buffer.from('\nabc')).added).toBeUndefined();
    expect(run(Buffer.from('abc\n')).added).toBeUndefined();
    expect(run(Buffer.from('\n')).added).toBeUndefined();
  });

  it('random plain and not-so-plain segments: same bytes as the per-line rules, or nothing', () => {
    let seed = 11;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = 'abcxyz/:._-0189'.split('').map((c) => c.charCodeAt(0));
    let taken = 0;
    for (let round = 0; round < 400; round++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + rnd(60) }, () => (rnd(10) === 0 ? 0x0a : rnd(150) === 0 ? rnd(256) : alphabet[rnd(alphabet.length)]!)).flatMap((b) =>
          // Half the line ends Windows ones; now and then a carriage return alone.
          b === 0x0a && rnd(2) === 0 ? [0x0d, b] : rnd(100) === 0 ? [0x0d, b] : [b],
        ),
      );
      const after = rnd(2) === 0;
      const { added, text } = run(bytes, after);
      if (allPlain(bytes)) {
        taken++;
        expect(text).toBe(expectedPiece(bytes, after));
        expect(added).toEqual({ targets: Buffer.from(bytes).toString('latin1').split('\n').length, bytes: text?.length });
      } else expect(added).toBeUndefined();
    }
    expect(taken).toBeGreaterThan(50);
  });

  it('a segment longer than its window goes in parts cut at line feeds', () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `//services/team-${i % 7}/package-${i}:target`);
    const bytes = Buffer.from(lines.join('\n'));
    expect(bytes.length).toBeGreaterThan(2 << 20);
    const { added, text } = run(bytes, true, 4 << 20);
    expect(added?.targets).toBe(60_000);
    expect(text).toBe(`,${lines.map((l) => JSON.stringify(l)).join(',')}`);
    // An empty line where a part would be cut or end, and one line longer than the window.
    expect(run(Buffer.from(`${'a'.repeat(1 << 20)}\n\nb`), false, 4 << 20).added).toBeUndefined();
    expect(run(Buffer.from(`${'a\n'.repeat(1 << 19)}`), false, 4 << 20).added).toBeUndefined();
    expect(run(Buffer.from(`b\n${'a'.repeat((1 << 20) + 5)}`), false, 4 << 20).added).toBeUndefined();
  });

  it('nothing is written when the output would pass its room (the per-line path counts instead)', () => {
    const plain = PlainLines.open(1000);
    expect(plain).toBeDefined();
    const big = Buffer.from(`${'//a:b\n'.repeat(1 << 19)}c`);
    expect(plain?.add(big, false)).toBeUndefined();
    expect(plain?.add(Buffer.from('//a'), false)).toEqual({ targets: 1, bytes: 5 });
    expect(plain?.take()?.toString()).toBe('"//a"');
  });

  it('the writer sends a plain file as one view of the kernel output, not a piece per chunk', async () => {
    const text = Array.from({ length: 40_000 }, (_, i) => `//svc/p${i}:t\n`).join('');
    const bytes = Buffer.from(`# head\n${text}//odd "one"\n${text}`);
    const pieces = async (kernel: boolean) => {
      const w = new TargetsBodyWriter('t.txt', 20 << 20, kernel);
      for (let at = 0; at < bytes.length; at += 65536) w.write(bytes.subarray(at, at + 65536));
      w.end();
      const parts: Buffer[] = [];
      for await (const p of w.body('{"pr":1}').open()) parts.push(Buffer.from(p));
      return parts;
    };
    const fast = await pieces(true);
    const slow = await pieces(false);
    expect(Buffer.concat(fast).equals(Buffer.concat(slow))).toBe(true);
    expect(JSON.parse(Buffer.concat(fast).toString()).impactedTargets).toHaveLength(80_001);
    // The chunk holding the comment and the one holding the quoted target take the per-line path.
    expect(slow.length).toBeGreaterThan(fast.length * 3);
    expect(fast.length).toBeLessThanOrEqual(8);
  });
});
