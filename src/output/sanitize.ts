/**
 * Every string that came from the service is made safe here before it reaches a terminal, a pipe
 * or a markdown step summary. Control characters (C0, DEL, C1: ESC, CSI/OSC sequences, bare CR,
 * backspace), Unicode bidi controls and invisible characters become visible escapes (`\x1b`,
 * `\u202e`, `\u200b`), so a title cannot move the cursor, write the clipboard (OSC 52), clear the
 * screen, reorder what is shown or hide text. Tabs and line breaks become one space: they never
 * break a table cell, a plain row or a message line.
 * `--json` never comes here: JSON escaping keeps the exact string and makes it inert.
 */

// C0 (but tab, LF, CR handled first), DEL, C1, bidi embeddings/overrides/isolates, line/paragraph separators,
// and characters that show nothing: soft hyphen, zero-width space, word joiner and invisible operators, BOM,
// Hangul fillers, tag characters. Joiners (U+200C, U+200D) stay: scripts and emoji need them.
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point of this module
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;

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

/**
 * Text from the service as markdown that renders as that text (CommonMark and GitHub's GFM): safe,
 * every inline syntax character escaped (`_` only where it could open or close emphasis), HTML and
 * entities made inert. `lineStart`: the text begins a line, so a heading, list or quote marker is
 * escaped too. Bare URLs stay as text, which GitHub shows as links to themselves.
 */
export function safeMarkdown(text: string, lineStart = false): string {
  const out = safeLine(text)
    .replace(MD_SYNTAX, (c: string, i: number, s: string) => (c === '_' && WORD.test(s[i - 1] ?? '') && WORD.test(s[i + 1] ?? '') ? c : `\\${c}`))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  if (!lineStart) return out;
  return out.replace(/^(\s*)(?:([#+=-])|(\d+)([.)]))/, (_m, space: string, mark?: string, digits?: string, dot?: string) =>
    mark ? `${space}\\${mark}` : `${space}${digits}\\${dot}`,
  );
}
