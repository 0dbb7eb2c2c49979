// The JSON string tokens of a targets file that is a JSON array, read in pieces (targets-file.ts).

/** A run of characters that stand for themselves inside a JSON string (raw control characters may not). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON's own rule
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const HEX4 = /^[0-9a-fA-F]{0,4}$/;

/**
 * The end of the JSON string token starting at `text[pos]` (a quote): the index after its closing
 * quote, 'cut' when the text ends first, 'bad' when it is not a valid token. By hand rather than
 * one regular expression: a failing `(a+|b)*` backtracks exponentially on a long unclosed string.
 */
export function stringEnd(text: string, pos: number): number | 'cut' | 'bad' {
  let i = pos + 1;
  for (;;) {
    PLAIN.lastIndex = i;
    PLAIN.exec(text);
    i = PLAIN.lastIndex;
    if (i >= text.length) return 'cut';
    const c = text[i];
    if (c === '"') return i + 1;
    if (c !== '\\') return 'bad';
    const e = text[i + 1];
    if (e === undefined) return 'cut';
    if (e === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (!HEX4.test(hex)) return 'bad';
      if (hex.length < 4) return 'cut';
      i += 6;
    } else if ('"\\/bfnrt'.includes(e)) i += 2;
    else return 'bad';
  }
}
