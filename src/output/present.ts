// The presenter: the one writer of a command's result (stdout) and notes (stderr). It picks the format
// once (--json, -o, else table on a terminal, plain in a pipe); errors: present-error.ts.
import type { RequestDescription } from '../api/http.js';
import { DEFAULT_COLUMNS, DEFAULT_ROWS, type IO } from './io.js';
import {
  FORMATS,
  type Field,
  type Format,
  json,
  jsonText,
  type Line,
  renderFields,
  renderLine,
  renderRows,
  type Row,
  wrapLine,
} from './render.js';
import { makeStyle, type Style } from './style.js';
import { type TableFit, truncateToWidth } from './width.js';

export type Block =
  | { fields: Field[]; title?: string }
  /** `fit` names the columns a terminal table may cut or drop to fit its width (other formats ignore it). */
  | { headers: string[]; rows: Row[]; fit?: TableFit }
  /** `wrap`: prose; on a terminal each line wraps at spaces to its width, continuations indented `wrap` cells. */
  | { lines: Line[]; wrap?: number }
  /** Text printed exactly as is: mq's own (help, scripts) or a passthrough the user asked for (-o raw). */
  | { text: string };

export type View = Block[] | Partial<Record<Exclude<Format, 'json'>, Block[]>>;

export interface DryRun {
  requests: RequestDescription[];
  doc?: Record<string, unknown>;
  /** Several requests: the document lists `requests`, not one `request`. */
  bulk?: boolean;
  /** What a dry run shows after the requests in the other formats. */
  view?: View;
}

export interface Result {
  /** The --json document; undefined prints nothing under --json. */
  data?: unknown;
  /** What stdout shows in the other formats; undefined shows nothing. */
  view?: View;
  exitCode: number;
  /** Lines for stderr in some formats only (a piped queue's state, an empty table's note). */
  notes?: Partial<Record<Format, Line[]>>;
  /** Text printed as is whatever the format (a completion script, a help topic). */
  text?: string;
  /** Set by dry runs: the requests are the output. */
  dryRun?: DryRun;
}

export interface FormatChoice {
  json?: boolean;
  output?: string;
}

/** The output format: --json, else -o, else `piped` (default plain) off a terminal and a table on one. */
export function formatOf(choice: FormatChoice, stdoutIsTTY: boolean, piped: Format = 'plain'): Format {
  if (choice.json) return 'json';
  if (choice.output && (FORMATS as readonly string[]).includes(choice.output)) return choice.output as Format;
  return stdoutIsTTY ? 'table' : piped;
}

/** Text from the service shown as it was sent: exact with -o raw, made safe line by line elsewhere. */
export function asSent(text: string): View {
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map((l): Line => [{ text: l }]);
  const safe: Block[] = text === '' ? [] : [{ lines }];
  return { raw: [{ text }], plain: safe, table: safe, markdown: safe };
}

export function blocksFor(view: View | undefined, format: Format): Block[] {
  if (!view || format === 'json') return [];
  if (Array.isArray(view)) return view;
  return view[format] ?? (format === 'raw' ? view.plain : undefined) ?? [];
}

/** The blocks as text; `width` (a terminal's, tables only) makes tables fit it. */
export async function renderBlocks(
  blocks: readonly Block[],
  format: Format,
  style: Style,
  width?: number,
): Promise<string> {
  let out = '';
  for (const b of blocks) {
    if ('fields' in b) out += renderFields(b.fields, format, style, b.title, format === 'table' ? width : undefined);
    else if ('rows' in b)
      out += await renderRows(b.headers, b.rows, format, style, {
        width: format === 'table' ? width : undefined,
        fit: b.fit,
      });
    else if ('lines' in b) {
      const wrap = b.wrap;
      const lines =
        wrap !== undefined && format === 'table' && width !== undefined
          ? b.lines.flatMap((l) => wrapLine(l, width, wrap))
          : b.lines;
      out += lines.map((l) => `${renderLine(l, style, format === 'markdown')}\n`).join('');
    } else out += b.text;
  }
  return out;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const CURL_INLINE_MAX = 4096;

export function curlCommand(req: RequestDescription): string {
  const parts = ['curl', '-sS', '-X', req.method, shellQuote(req.url)];
  for (const [k, val] of Object.entries(req.headers)) {
    if (k === 'x-api-token') parts.push('-H', `"x-api-token: $MQ_TOKEN"`);
    else if (k !== 'user-agent' && k !== 'accept') parts.push('-H', shellQuote(`${k}: ${val}`));
  }
  if (req.body !== undefined)
    parts.push('--data-binary', req.body.length > CURL_INLINE_MAX ? '@body.json' : shellQuote(req.body));
  return parts.join(' ');
}

/** A request a dry run would send, and the curl command that sends it. */
export function requestText(req: RequestDescription): string {
  const lines = [`${req.method} ${req.url}`, ...Object.entries(req.headers).map(([k, val]) => `${k}: ${val}`)];
  if (req.body !== undefined) lines.push('', req.body);
  const saveBody =
    req.body !== undefined && req.body.length > CURL_INLINE_MAX ? ' and save the body above as body.json' : '';
  lines.push('', `# equivalent curl command (set MQ_TOKEN first${saveBody}):`, curlCommand(req), '');
  return `${lines.join('\n')}\n`;
}

const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';
const CURSOR_HIDE = '\x1b[?25l';
const CURSOR_SHOW = '\x1b[?25h';
const HOME = '\x1b[H';
const CLEAR_LINE = '\x1b[K';
const CLEAR_DOWN = '\x1b[J';

/** Writes results and notes for one run; built once per process by the deps. */
export class Presenter {
  constructor(
    private readonly io: IO,
    private readonly choice: () => FormatChoice,
  ) {}

  format(piped?: Format): Format {
    return formatOf(this.choice(), this.io.stdoutIsTTY, piped);
  }

  get style(): Style {
    return makeStyle(this.io.color);
  }

  get styleErr(): Style {
    return makeStyle(this.io.colorErr);
  }

  /** The width tables fit on a terminal; none when stdout is not one (piped output never depends on it). */
  get width(): number | undefined {
    return this.io.stdoutIsTTY ? this.io.columns || DEFAULT_COLUMNS : undefined;
  }

  /** A progress or status line on stderr (✓ lines, wait transitions, warnings); `wrap`: prose, as a lines block's. */
  note(line: Line, wrap?: number): void {
    const width = this.io.errColumns ?? this.io.columns ?? DEFAULT_COLUMNS;
    const lines = wrap !== undefined && this.io.stderrIsTTY ? wrapLine(line, width, wrap) : [line];
    this.io.err(lines.map((l) => `${renderLine(l, this.styleErr)}\n`).join(''));
  }

  notes(lines: readonly Line[]): void {
    if (lines.length > 0) this.io.err(lines.map((line) => `${renderLine(line, this.styleErr)}\n`).join(''));
  }

  async show(result: Result, piped?: Format): Promise<number> {
    const format = this.format(piped);
    if (result.dryRun) {
      const d = result.dryRun;
      if (format === 'json') {
        const requests = d.bulk ? { requests: d.requests } : { request: d.requests[0] ?? null };
        this.io.out(json({ dryRun: true, ...requests, ...d.doc }));
      } else {
        this.io.out(
          d.requests.map(requestText).join('') +
            (await renderBlocks(blocksFor(d.view, format), format, this.style, this.width)),
        );
      }
      this.io.err('dry run: nothing was sent\n');
      return result.exitCode;
    }
    // Notes are prose (a banner, a warning): wrapped on a terminal, continuations indented.
    for (const line of result.notes?.[format] ?? []) this.note(line, 2);
    if (result.text !== undefined) this.io.out(result.text);
    else if (format === 'json') {
      if (result.data !== undefined) this.io.out(json(result.data));
    } else {
      const text = await renderBlocks(blocksFor(result.view, format), format, this.style, this.width);
      if (text) this.io.out(text);
    }
    return result.exitCode;
  }

  /** One item of a stream (`queue watch`): a JSON line under --json, else the blocks. */
  async stream(data: unknown, view: View, piped?: Format): Promise<void> {
    const format = this.format(piped);
    if (format === 'json') this.io.out(`${jsonText(data)}\n`);
    else this.io.out(await renderBlocks(blocksFor(view, format), format, this.style, this.width));
  }

  private live?: { blocks: Block[]; drawing: Promise<void>; unsubscribe: () => void; withdraw: () => void };

  /** Draws one frame of a live view: alternate screen, fitted and clipped, redrawn on resize; off a TTY, printed. */
  async redraw(blocks: Block[]): Promise<void> {
    if (!this.io.stdoutIsTTY) {
      this.io.out(await renderBlocks(blocks, 'table', this.style));
      return;
    }
    if (!this.live) {
      this.io.out(`${ALT_SCREEN_ON}${CURSOR_HIDE}`);
      const live = {
        blocks,
        drawing: Promise.resolve(),
        unsubscribe: this.io.onResize?.(() => void this.queueDraw(true)) ?? (() => {}),
        withdraw: this.io.atExit?.(`${ALT_SCREEN_OFF}${CURSOR_SHOW}`) ?? (() => {}),
      };
      this.live = live;
    }
    this.live.blocks = blocks;
    await this.queueDraw();
  }

  /** Draws the live frame after any draw under way; clears first after a resize (the terminal may reflow). */
  private queueDraw(clear = false): Promise<void> {
    const live = this.live;
    if (!live) return Promise.resolve();
    live.drawing = live.drawing.then(async () => {
      if (this.live !== live) return;
      const width = this.io.columns || DEFAULT_COLUMNS;
      const height = Math.max(2, this.io.rows || DEFAULT_ROWS);
      const lines = (await renderBlocks(live.blocks, 'table', this.style, width)).replace(/\n$/, '').split('\n');
      // The last row stays free: writing into it could scroll the screen.
      const room = height - 1;
      const shown =
        lines.length > room
          ? [...lines.slice(0, room - 1), this.style.dim(`… ${lines.length - room + 1} more`)]
          : lines;
      const body = shown.map((l) => `${truncateToWidth(l, width)}${CLEAR_LINE}`).join('\n');
      this.io.out(`${HOME}${clear ? CLEAR_DOWN : ''}${body}\n${CLEAR_DOWN}`);
    });
    return live.drawing;
  }

  /** Ends a live view: back to the normal screen, cursor shown, last frame printed once. Safe when none is live. */
  async endLive(): Promise<void> {
    const live = this.live;
    if (!live) return;
    await live.drawing.catch(() => {});
    this.live = undefined;
    live.unsubscribe();
    const width = this.io.columns || DEFAULT_COLUMNS;
    const text = await renderBlocks(live.blocks, 'table', this.style, width);
    const fitted = text
      .split('\n')
      .map((l) => truncateToWidth(l, width))
      .join('\n');
    this.io.out(`${ALT_SCREEN_OFF}${CURSOR_SHOW}${fitted}`);
    live.withdraw();
  }

  /** Text of mq's own written as is by a long-running command (the emulator's banner, a live view's cursor moves). */
  raw(text: string): void {
    this.io.out(text);
  }
}
