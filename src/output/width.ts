// Terminal cells: display width (escapes 0, wide chars 2), cutting with `…` without splitting an
// escape, and which table columns shrink or drop to fit.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/y;
const COMBINING = /^[\p{Mn}\p{Me}]$/u;

/** Display cells of one code point. */
function charWidth(cp: number, ch: string): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (COMBINING.test(ch)) return 0;
  // Zero-width spaces and joiners, variation selectors, the byte order mark.
  if (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff
  )
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Splits text into escape sequences (width 0) and characters, in order. */
function* pieces(text: string): Generator<{ text: string; width: number; escape: boolean }> {
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) === 0x1b) {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(text);
      if (m) {
        yield { text: m[0], width: 0, escape: true };
        i += m[0].length;
        continue;
      }
    }
    const cp = text.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    yield { text: ch, width: charWidth(cp, ch), escape: false };
    i += ch.length;
  }
}

/** Cells `text` takes on a terminal. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const p of pieces(text)) w += p.width;
  return w;
}

/** `text` cut to `width` cells, ending in `…` if cut; escape sequences stay whole (a reset closes colour). */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  let styled = false;
  for (const p of pieces(text)) {
    if (p.escape) {
      out += p.text;
      styled = true;
      continue;
    }
    if (used + p.width > width - 1) break;
    out += p.text;
    used += p.width;
  }
  return `${out}…${styled ? '\x1b[0m' : ''}`;
}

/** How a table may give up room on a narrow terminal; column names as in the block's headers. */
export interface TableFit {
  /** Long columns (titles, branches, URLs) cut with `…` first, down to `min` cells each. */
  truncate?: string[];
  /** Low-value columns, dropped in this order when cutting is not enough. */
  drop?: string[];
  /** Cells a truncated column keeps before columns drop (default 16). */
  min?: number;
  /** Columns never cut (URLs): when the table cannot hold them whole they follow it, a line per row. */
  whole?: string[];
}

/** Cells a truncated column keeps at the very least, once nothing is left to drop. */
const FLOOR = 6;
const DEFAULT_MIN = 16;

/** Width of a cli-table3 table with these content widths: borders each side and between, a space padding each side. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + w + 3, 1);
}

/**
 * Which columns a table keeps and their widths for `width` cells: truncate widest first (not below
 * `min`), else drop the next droppable column and retry, else truncate to a few cells.
 */
export function fitColumns(
  headers: readonly string[],
  natural: readonly number[],
  fit: TableFit,
  width: number,
): { keep: number[]; widths: number[] } {
  const truncatable = new Set((fit.truncate ?? []).map((h) => headers.indexOf(h)).filter((i) => i >= 0));
  const dropOrder = (fit.drop ?? []).map((h) => headers.indexOf(h)).filter((i) => i >= 0);
  let keep = headers.map((_, i) => i);
  const attempt = (floorOf: (i: number) => number): number[] | undefined => {
    const widths = keep.map((i) => natural[i] as number);
    if (tableWidth(widths) <= width) return widths;
    const capped = (cap: number) =>
      keep.map((i) =>
        truncatable.has(i)
          ? Math.max(Math.min(floorOf(i), natural[i] as number), Math.min(natural[i] as number, cap))
          : (natural[i] as number),
      );
    // The largest cap on truncated columns that fits, if any does.
    let lo = 0;
    let hi = Math.max(0, ...natural);
    if (tableWidth(capped(lo)) > width) return undefined;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (tableWidth(capped(mid)) <= width) lo = mid;
      else hi = mid - 1;
    }
    return capped(lo);
  };
  for (;;) {
    const widths = attempt(() => fit.min ?? DEFAULT_MIN);
    if (widths) return { keep, widths };
    const next = dropOrder.shift();
    if (next === undefined) break;
    if (keep.length > 1) keep = keep.filter((i) => i !== next);
  }
  const last = attempt((i) => Math.max(FLOOR, displayWidth(headers[i] ?? '')));
  if (last) return { keep, widths: last };
  return {
    keep,
    widths: keep.map((i) =>
      truncatable.has(i)
        ? Math.min(natural[i] as number, Math.max(FLOOR, displayWidth(headers[i] ?? '')))
        : (natural[i] as number),
    ),
  };
}
