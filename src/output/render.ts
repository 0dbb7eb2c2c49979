// View data to text: coloured on a terminal, tab-separated in a pipe, pipe tables in markdown. Every
// string is made safe (sanitize.ts) before mq's own colours, so only mq's escapes reach a terminal.
import { safeLine, safeMarkdown } from './sanitize.js';
import type { Style } from './style.js';
import { displayWidth, fitColumns, type TableFit, tableWidth, truncateToWidth } from './width.js';

export const FORMATS = ['table', 'plain', 'json', 'markdown', 'raw'] as const;
export type Format = (typeof FORMATS)[number];

/** How mq colours a (made-safe) string on a terminal, e.g. `stateColor` or `(s, t) => s.dim(t)`. */
export type Paint = (style: Style, text: string) => string;

export interface Field {
  key: string;
  label: string;
  value: string;
  paint?: Paint;
}

export interface Cell {
  value: string;
  paint?: Paint;
}
export type Row = Array<string | Cell>;

/** A line piece: a string is mq's own text, an object a value (made inert in markdown too). */
export type Span = string | { text: string; paint?: Paint };
export type Line = Span | Span[];

export const paints = {
  dim: ((s, t) => s.dim(t)) as Paint,
  bold: ((s, t) => s.bold(t)) as Paint,
  red: ((s, t) => s.red(t)) as Paint,
  green: ((s, t) => s.green(t)) as Paint,
  yellow: ((s, t) => s.yellow(t)) as Paint,
  banner: ((s, t) => s.bold.inverse.yellow(t)) as Paint,
};

export function v(text: string, paint?: Paint): Span {
  return { text, paint };
}

export function own(paint: Paint, text: string): Span {
  return { text, paint, own: true } as Span;
}

export function json(data: unknown): string {
  return `${jsonText(data, 2)}\n`;
}

/** Levels kept of a value nested deeper than JSON.stringify's stack allows (only the service nests that deep). */
const MAX_JSON_DEPTH = 64;
export const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels: not shown]`;

/** JSON text of any data; a value too deep for the stack is cut to MAX_JSON_DEPTH levels with a marker. */
export function jsonText(data: unknown, indent?: number): string {
  try {
    return JSON.stringify(data, null, indent);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return JSON.stringify(bounded(data, MAX_JSON_DEPTH), null, indent);
  }
}

function bounded(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  const toJSON = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function') return bounded(toJSON.call(value), depth);
  if (depth === 0) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => bounded(item, depth - 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = bounded(item, depth - 1);
  return out;
}

/** One line of text from spans, for a terminal (styled) or a pipe; markdown makes values inert. */
export function renderLine(line: Line, style: Style, markdown = false): string {
  const spans = Array.isArray(line) ? line : [line];
  let out = '';
  for (const [i, s] of spans.entries()) {
    if (typeof s === 'string') out += safeLine(s);
    else {
      const isOwn = (s as { own?: boolean }).own === true;
      // A value that begins the line cannot make it a heading, a list or a quote either.
      const text = markdown && !isOwn ? safeMarkdown(s.text, i === 0) : safeLine(s.text);
      out += s.paint ? s.paint(style, text) : text;
    }
  }
  return out;
}

/** Cells a continuation line keeps for text; past a deeper indent it starts nearer the margin. */
const MIN_ROOM = 24;

type Piece = { span: Span; text: string };

/**
 * Prose in terminal lines of at most `width` cells, broken at spaces, continuations indented; a word
 * wider than the room (a URL) goes whole on its own line. Spans keep their colour; text is made safe.
 */
export function wrapLine(line: Line, width: number, indent = 0): Line[] {
  const spans = Array.isArray(line) ? line : [line];
  const safe = spans.map((s) => safeLine(typeof s === 'string' ? s : s.text));
  if (displayWidth(safe.join('')) <= width) return [line];
  const hang = width - indent >= MIN_ROOM ? indent : Math.min(indent, 2);
  // Words and the runs of spaces between them, each as pieces of the spans it comes from.
  const tokens: Array<{ space: boolean; pieces: Piece[]; width: number }> = [];
  for (const [i, span] of spans.entries()) {
    for (const text of (safe[i] as string).split(/( +)/)) {
      if (text === '') continue;
      const space = text.startsWith(' ');
      let token = tokens[tokens.length - 1];
      if (token?.space !== space) tokens.push((token = { space, pieces: [], width: 0 }));
      token.pieces.push({ span, text });
      token.width += displayWidth(text);
    }
  }
  const lines: Piece[][] = [[]];
  let used = 0;
  let gap: (typeof tokens)[number] | undefined;
  for (const token of tokens.flatMap((t) => (t.space || t.width <= width - hang ? [t] : atSlashes(t)))) {
    if (token.space) {
      gap = token;
      continue;
    }
    let current = lines[lines.length - 1] as Piece[];
    const at = used + (gap?.width ?? 0);
    // No break where the continuation would not start further left (after a field's label).
    if (current.length === 0 || at + token.width <= width || at <= hang) {
      if (gap) current.push(...gap.pieces);
      used = at;
    } else {
      current = [{ span: ' '.repeat(hang), text: ' '.repeat(hang) }];
      lines.push(current);
      used = hang;
    }
    current.push(...token.pieces);
    used += token.width;
    gap = undefined;
  }
  // Trailing spaces (a banner's padding) stay when they fit.
  if (gap && used + gap.width <= width) (lines[lines.length - 1] as Piece[]).push(...gap.pieces);
  return lines.map(joinPieces);
}

/** Plain text in lines of at most `width` cells, broken after a space, comma or slash; never cut. */
export function wrapToWidth(text: string, width: number): string[] {
  if (width < 1 || displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const piece of text.split(/(?<=[ ,/])/)) {
    if (line !== '' && displayWidth((line + piece).trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += piece;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines.length > 0 ? lines : [''];
}

/** A word too wide for a line, cut after each `/` (a path or a branch); a URL stays whole. */
function atSlashes(token: { space: boolean; pieces: Piece[]; width: number }): Array<typeof token> {
  if (token.pieces.some((p) => p.text.includes('://'))) return [token];
  const out: Array<typeof token> = [];
  let cur: typeof token = { space: false, pieces: [], width: 0 };
  for (const p of token.pieces) {
    for (const text of p.text.split(/(?<=\/)/)) {
      cur.pieces.push({ span: p.span, text });
      cur.width += displayWidth(text);
      if (text.endsWith('/')) {
        out.push(cur);
        cur = { space: false, pieces: [], width: 0 };
      }
    }
  }
  if (cur.pieces.length > 0) out.push(cur);
  return out;
}

function joinPieces(pieces: Piece[]): Span[] {
  const out: Span[] = [];
  let prev: Piece | undefined;
  for (const p of pieces) {
    if (prev && prev.span === p.span) {
      const last = out.pop() as Span;
      out.push(typeof last === 'string' ? last + p.text : { ...last, text: last.text + p.text });
    } else out.push(typeof p.span === 'string' ? p.text : { ...p.span, text: p.text });
    prev = p;
  }
  return out;
}

export function renderFields(
  fields: Field[],
  format: Format,
  style: Style,
  title?: string,
  termWidth?: number,
): string {
  if (format === 'plain' || format === 'raw') {
    return fields.map((f) => `${safeLine(f.key)}\t${safeLine(f.value)}\n`).join('');
  }
  if (format === 'markdown') {
    const head = title ? `### ${safeMarkdown(title)}\n\n` : '';
    const rows = fields.map((f) => `| ${safeMarkdown(f.label)} | ${safeMarkdown(f.value)} |\n`).join('');
    return `${head}| Field | Value |\n| --- | --- |\n${rows}`;
  }
  const width = Math.max(0, ...fields.map((f) => f.label.length));
  const head = title ? `${style.bold(safeLine(title))}\n` : '';
  if (termWidth !== undefined && format === 'table') {
    // On a terminal a long value wraps under itself, not under the labels.
    const wrapped = (f: Field) =>
      wrapLine([own(paints.dim, f.label.padEnd(width)), '  ', v(f.value, f.paint)], termWidth, width + 2);
    return (
      head +
      fields
        .flatMap(wrapped)
        .map((l) => `${renderLine(l, style)}\n`)
        .join('')
    );
  }
  return (
    head + fields.map((f) => `${style.dim(`${safeLine(f.label).padEnd(width)}`)}  ${paintCell(f, style)}\n`).join('')
  );
}

const plainOf = (c: string | Cell): string => (typeof c === 'string' ? c : c.value);

function paintCell(c: string | Cell, style: Style): string {
  if (typeof c === 'string') return safeLine(c);
  const text = safeLine(c.value);
  return c.paint ? c.paint(style, text) : text;
}

/** A terminal table longer than this shows its first rows and a line pointing at --json. */
export const MAX_TABLE_ROWS = 1000;

/** How a terminal table fits: the terminal's width (none when piped) and what the block allows to shrink or drop. */
export interface FitOptions {
  width?: number;
  fit?: TableFit;
}

export async function renderRows(
  headers: string[],
  rows: Row[],
  format: Format,
  style: Style,
  options: FitOptions = {},
): Promise<string> {
  if (format === 'plain' || format === 'raw') {
    return rows.map((r) => `${r.map((c) => safeLine(plainOf(c))).join('\t')}\n`).join('');
  }
  if (format === 'markdown') {
    const lines = [
      `| ${headers.map((h) => safeMarkdown(h)).join(' | ')} |`,
      `| ${headers.map(() => '---').join(' | ')} |`,
    ];
    for (const r of rows) lines.push(`| ${r.map((c) => safeMarkdown(plainOf(c))).join(' | ')} |`);
    return `${lines.join('\n')}\n`;
  }
  // cli-table3 is only needed on a terminal; load it then.
  const { default: Table } = await import('cli-table3');
  const shown = rows.length > MAX_TABLE_ROWS ? rows.slice(0, MAX_TABLE_ROWS) : rows;
  let head = headers.map((h) => style.bold(h));
  let body = shown.map((r) => r.map((c) => paintCell(c, style)));
  if (options.width !== undefined && options.fit && headers.length > 0) {
    const natural = headers.map((h, i) =>
      Math.max(displayWidth(safeLine(h)), ...shown.map((r) => displayWidth(safeLine(plainOf(r[i] ?? ''))))),
    );
    const { keep, widths } = fitColumns(headers, natural, options.fit, options.width);
    const whole = (options.fit.whole ?? []).map((h) => headers.indexOf(h)).filter((i) => i >= 0);
    if (whole.length > 0 && (whole.some((i) => !keep.includes(i)) || tableWidth(widths) > options.width)) {
      return wholeAfter(headers, rows, whole, style, { width: options.width, fit: { ...options.fit, whole: [] } });
    }
    // Cut before colouring: `…` never lands inside an escape sequence of mq's own.
    const cut = (text: string, k: number) => truncateToWidth(safeLine(text), widths[k] as number);
    head = keep.map((i, k) => style.bold(cut(headers[i] as string, k)));
    body = shown.map((r) =>
      keep.map((i, k) => {
        const c = r[i] ?? '';
        return paintCell(typeof c === 'string' ? cut(c, k) : { ...c, value: cut(c.value, k) }, style);
      }),
    );
  }
  const table = new Table({
    head,
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of body) table.push(r);
  const more = rows.length - shown.length;
  return `${table.toString()}\n${more > 0 ? `${style.dim(`… ${more} more, use --json`)}\n` : ''}`;
}

/** The table without the `whole` columns, then `<first cell>  <value>` per row, wrapped: the values stay whole. */
async function wholeAfter(
  headers: string[],
  rows: Row[],
  whole: number[],
  style: Style,
  options: Required<FitOptions>,
): Promise<string> {
  const rest = (r: readonly (string | Cell)[]) => r.filter((_, i) => !whole.includes(i));
  const table = await renderRows(rest(headers) as string[], rows.map(rest), 'table', style, options);
  const lines = rows.slice(0, MAX_TABLE_ROWS).flatMap((r) =>
    whole
      .map((i) => plainOf(r[i] ?? ''))
      .filter((text) => text !== '')
      .map((text): Line => ['  ', v(plainOf(r[0] ?? '')), '  ', v(text)]),
  );
  return (
    table +
    lines
      .flatMap((l) => wrapLine(l, options.width, 4))
      .map((l) => `${renderLine(l, style)}\n`)
      .join('')
  );
}
