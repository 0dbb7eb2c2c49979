// Every string from the service is made safe here before a terminal, pipe or markdown summary:
// control, bidi and invisible characters become visible escapes (no cursor moves, OSC 52, hidden or
// reordered text); tabs and line breaks become a space. `--json` never comes here (JSON escapes).

// C0, DEL, C1, bidi controls, line/paragraph separators and invisible characters (soft hyphen, zero-width
// space, BOM, tags...). Joiners U+200C/U+200D stay: scripts and emoji need them.
const UNSAFE = new RegExp(
  String.raw`[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029` +
    String.raw`\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]`,
  'gu',
);

function escapeChar(c: string): string {
  const code = c.codePointAt(0) as number;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** One line of text: line breaks and tabs become a space, every other control a visible escape. */
export function safeLine(text: string): string {
  return text.replace(/(?:\r?\n|\t)+/g, ' ').replace(UNSAFE, escapeChar);
}

/** Inline markdown syntax: code spans, emphasis, strikethrough, links and images, table cells. */
const MD_SYNTAX = /[\\`*_~[\]|]/g;
const WORD = /[\p{L}\p{N}]/u;

/** Text as markdown that renders as that text (GFM): syntax escaped, HTML inert; `lineStart` escapes block markers. */
export function safeMarkdown(text: string, lineStart = false): string {
  const out = safeLine(text)
    .replace(MD_SYNTAX, (c: string, i: number, s: string) =>
      c === '_' && WORD.test(s[i - 1] ?? '') && WORD.test(s[i + 1] ?? '') ? c : `\\${c}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  if (!lineStart) return out;
  return out.replace(
    /^(\s*)(?:([#+=-])|(\d+)([.)]))/,
    (_m, space: string, mark?: string, digits?: string, dot?: string) =>
      mark ? `${space}\\${mark}` : `${space}${digits}\\${dot}`,
  );
}
