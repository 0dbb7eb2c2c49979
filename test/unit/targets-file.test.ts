/**
 * The targets file read chunk by chunk (src/commands/targets-file.ts) against the whole-file
 * parser it replaced (kept here as the oracle): same targets, same messages, however the file is
 * cut into chunks, including cuts inside a UTF-8 character, an escape or a string.
 */
import { describe, expect, it } from 'vitest';
import { TargetsBodyWriter } from '../../src/commands/targets-file.js';

/** The parser `mq targets --file` used before streaming: the whole text at once. */
function oracle(text: string, source: string): string[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new Error(`--file: ${source} starts with [ but is not a valid JSON array`);
    }
    if (!Array.isArray(parsed) || parsed.some((t) => typeof t !== 'string' || t === '')) {
      throw new Error(`--file: ${source} must be a JSON array of non-empty strings`);
    }
    return parsed as string[];
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t !== '' && !t.startsWith('#')) out.push(t);
  }
  return out;
}

const HEAD = {
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  targetBranch: 'main',
  pr: { number: 42, sha: 'abc' },
};

/** Feeds `bytes` cut at `cuts`; the parsed body's targets, or the error message. */
function streamed(bytes: Buffer, cuts: number[], max = 20 * 1024 * 1024): string[] | string {
  const w = new TargetsBodyWriter('t.txt', max);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    w.write(bytes.subarray(at, cut));
    at = cut;
  }
  try {
    w.end();
    const body = w.body(JSON.stringify(HEAD));
    const text = body.text?.() ?? '';
    expect(Buffer.byteLength(text)).toBe(body.length);
    const parsed = JSON.parse(text);
    expect(parsed).toMatchObject(HEAD);
    expect(Object.keys(parsed)).toEqual(['repo', 'targetBranch', 'pr', 'impactedTargets']);
    expect(body.count).toBe(parsed.impactedTargets.length);
    return parsed.impactedTargets;
  } catch (err) {
    return (err as { why?: string }).why ?? (err as Error).message;
  }
}

function expected(text: string): string[] | string {
  try {
    const targets = oracle(text, 't.txt');
    return targets.length === 0 ? '--file: t.txt lists no targets; nothing was sent' : targets;
  } catch (err) {
    return (err as Error).message;
  }
}

const CASES = [
  '//a\n//b\n',
  '# generated\n//a\r\n\n   //b  \n#//c\n//d',
  '  \n\t\n',
  '',
  '//ünïcödé:tärget\n//emoji:🎯\n//quote:"x"\n//back\\slash\n//tab\tinside\n',
  '["//a", "//b"]',
  ' \n [ "//a" ,\n"//b" ]\n\n',
  '\ufeff["//bom"]',
  '[]',
  '[ ]',
  '["//a",]',
  '["//a" "//b"]',
  '["//a", 1]',
  '[1, 2',
  '["//a", ""]',
  '[""]',
  '["//a", ["//b"]]',
  '["//a", {"b": 1}]',
  '["//a", null]',
  '["//a"] x',
  '["//a"] ]',
  '["//a"]\n',
  '["//a"',
  '["//a",',
  '["\\u00e9\\n\\"q\\" \\\\ \\/ 🎯", "\\ud83c\\udfaf"]',
  '["bad escape \\x"]',
  '["raw\ttab"]',
  '[',
  '[,]',
  '["//a",,"//b"]',
  '  [ "//a" , "//b" , "//c" ]  ',
  // ASCII lines that need only quoting: quotes, control characters, DEL, a literal `n` after a quote.
  '//a"q"\n//b\u0001c\n//d\u007f\n"n\n//e\u001f\b',
  '//a\n//b\n\n//c',
  '//a\n\n//b\n//c\n',
  'C:\\new\n//b\\n\n//c\n',
  '\n//a\n//b\n',
  '//a\r\n//b\r\n',
  '   \n\t//a\n',
  '\u3000\n//a',
  '//a\n\u00a0//b\u00a0\n',
];

describe('TargetsBodyWriter gives what reading the whole file gave', () => {
  it.each(CASES)('%j, cut at every byte and whole', (text) => {
    const bytes = Buffer.from(text);
    const want = expected(text);
    expect(streamed(bytes, [])).toEqual(want);
    for (let i = 0; i <= bytes.length; i++) expect(streamed(bytes, [i]), `cut at ${i}`).toEqual(want);
    // One byte at a time.
    expect(
      streamed(
        bytes,
        Array.from({ length: bytes.length }, (_, i) => i),
      ),
    ).toEqual(want);
  });

  it('random files in both formats, cut at random places', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ['//svc/a:b', 'é', '🎯', '"', '\\', ' ', '\t', '#', 'x'.repeat(40)];
    for (let round = 0; round < 200; round++) {
      const targets = Array.from({ length: 1 + rnd(30) }, () =>
        Array.from({ length: 1 + rnd(4) }, () => pieces[rnd(pieces.length)]).join(''),
      );
      const text =
        round % 2 ? JSON.stringify(targets, null, rnd(2) ? 2 : undefined) : targets.join(rnd(2) ? '\n' : '\r\n');
      const bytes = Buffer.from(text);
      const cuts = Array.from({ length: rnd(6) }, () => rnd(bytes.length + 1)).sort((a, b) => a - b);
      expect(streamed(bytes, cuts), text).toEqual(expected(text));
    }
  });

  it('keeps no reference to a chunk: the reader may fill the same buffer again', () => {
    const text = '//a/b:c\n//d "q"\n# note\n  //e  \n//ünï\n//f\n'.repeat(50);
    const bytes = Buffer.from(text);
    for (const size of [1, 3, 7, 64, 1000]) {
      const w = new TargetsBodyWriter('t.txt', 1 << 20);
      const scratch = Buffer.alloc(size);
      for (let at = 0; at < bytes.length; at += size) {
        const n = bytes.copy(scratch, 0, at, at + size);
        w.write(scratch.subarray(0, n));
        scratch.fill(0x41);
      }
      w.end();
      expect(JSON.parse(w.body(JSON.stringify(HEAD)).text?.() ?? '').impactedTargets).toEqual(oracle(text, 't.txt'));
    }
  });

  it('a request over the limit is refused with its full size, counted past the limit', () => {
    const text = '//t\n'.repeat(100_000);
    const message = streamed(Buffer.from(text), [1000, 50_000], 300_000);
    expect(message).toMatch(/^the target list makes a 0\.6 MiB request; the service accepts at most 20 MiB$/);
  });

  it('finds a byte to escape or trim at any place in a word (a line is then read by the per-line rules)', () => {
    for (const special of ['"', '#', '\\', ' ', '\t', '\r', '\u0001', '\u001f', '\n', 'é', '\u007f', '!', '$', '~']) {
      for (let at = 0; at < 9; at++) {
        const line = `//svc/p:t_${'x'.repeat(at)}${special}y`;
        const text = `//a:b\n${line}\n//c:d`;
        for (let offset = 0; offset < 4; offset++) {
          const bytes = Buffer.alloc(offset + Buffer.byteLength(text)).subarray(offset);
          bytes.write(text);
          expect(streamed(bytes, []), `${JSON.stringify(text)} at ${offset}`).toEqual(expected(text));
        }
      }
    }
    // Bytes that are not UTF-8 (read as U+FFFD, as reading the whole file as text did).
    for (const raw of [0x80, 0x85, 0xa0, 0xff]) {
      for (let at = 0; at < 4; at++) {
        const bytes = Buffer.concat([
          Buffer.from(`//a:b\n//p:${'x'.repeat(at)}`),
          Buffer.from([raw]),
          Buffer.from('y'),
        ]);
        expect(streamed(bytes, [])).toEqual(expected(bytes.toString('utf8')));
      }
    }
  });

  it('a body just under the limit is whole, though a chunk could have doubled in size', () => {
    const text = Array.from({ length: 40 }, (_, i) => `//services/team/package-${i}:target`).join('\n');
    const size = Buffer.byteLength(JSON.stringify({ ...HEAD, impactedTargets: oracle(text, 't.txt') }));
    expect(streamed(Buffer.from(text), [], size)).toEqual(expected(text));
    expect(streamed(Buffer.from(text), [700], size)).toEqual(expected(text));
    expect(streamed(Buffer.from(text), [], size - 1)).toMatch(/^the target list makes a /);
  });

  it('writes the body byte for byte as serialising the whole list did', () => {
    for (const text of ['["//x", "\\u00e9\\/", "\\"q\\"", "plain é"]', '//a\n  //b é\n//c"q"\n']) {
      const w = new TargetsBodyWriter('t.txt', 1 << 20);
      w.write(Buffer.from(text));
      w.end();
      expect(w.body(JSON.stringify(HEAD)).text?.()).toBe(
        JSON.stringify({ ...HEAD, impactedTargets: oracle(text, 't.txt') }),
      );
    }
  });

  it('sends what serialising the whole list sent: CRLF, comments, quotes, unicode, long lines', async () => {
    const plainBlock = Array.from({ length: 30_000 }, (_, i) => `//services/p${i}:target_${i}`).join('\n');
    const text = [
      '# generated',
      plainBlock,
      ...Array.from({ length: 2000 }, (_, i) => `//crlf/${i}:t\r`),
      '',
      '  //indented/é:ü  ',
      '//quote:"q"',
      '//back\\slash',
      '//emoji:🎯',
      '//tab\tinside',
      '#//commented',
      `//long/${'x'.repeat(1_500_000)}`,
      plainBlock,
      `//long/é${'y'.repeat(1_200_000)}é`,
      '//last',
    ].join('\n');
    const bytes = Buffer.from(text);
    const w = new TargetsBodyWriter('t.txt', 20 * 1024 * 1024);
    for (let at = 0; at < bytes.length; at += 1 << 20) w.write(bytes.subarray(at, at + (1 << 20)));
    w.end();
    const body = w.body(JSON.stringify(HEAD));
    const parts: Buffer[] = [];
    for await (const c of body.open()) parts.push(Buffer.from(c));
    const sent = Buffer.concat(parts);
    const want = Buffer.from(JSON.stringify({ ...HEAD, impactedTargets: oracle(text, 't.txt') }));
    expect(sent.length).toBe(want.length);
    expect(body.length).toBe(want.length);
    expect(sent.equals(want)).toBe(true);
    expect(body.count).toBe(oracle(text, 't.txt').length);
    // Whole, as standard input comes.
    const whole = new TargetsBodyWriter('-', 20 * 1024 * 1024);
    whole.write(bytes);
    whole.end();
    expect(whole.body(JSON.stringify(HEAD)).text?.()).toBe(want.toString('utf8'));
  });

  it('plain lines of any length, at any byte offset, cut anywhere (the copy goes a word at a time)', () => {
    const lines = ['//a', 'bc', 'd', '//svc/api:target_1', 'x'.repeat(13), '//e:f'];
    for (let n = 1; n <= lines.length; n++) {
      const text = lines.slice(0, n).join('\n');
      for (let offset = 0; offset < 8; offset++) {
        const bytes = Buffer.alloc(offset + text.length + 8, 0x23).subarray(offset, offset + text.length);
        bytes.write(text);
        for (let cut = 0; cut <= bytes.length; cut += 3) {
          expect(streamed(bytes, [cut]), `${JSON.stringify(text)} at ${offset}, cut at ${cut}`).toEqual(expected(text));
        }
      }
    }
  });

  it('replays the same bytes on every open (a retry sends the body again)', async () => {
    const w = new TargetsBodyWriter('t.txt', 1 << 20);
    for (let i = 0; i < 50; i++) w.write(Buffer.from(`//target/${i}\n`));
    w.end();
    const body = w.body(JSON.stringify(HEAD));
    const read = async () => {
      const parts: Buffer[] = [];
      for await (const c of body.open()) parts.push(Buffer.from(c));
      return Buffer.concat(parts).toString('utf8');
    };
    const first = await read();
    expect(await read()).toBe(first);
    expect(JSON.parse(first).impactedTargets).toHaveLength(50);
    expect(body.replayable).toBe(true);
  });
});
