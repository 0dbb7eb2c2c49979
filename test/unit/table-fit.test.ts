/**
 * Tables fit the terminal: on a terminal of 60, 80 or 200 columns no line of a table is wider than
 * the terminal; long columns are cut with `…`, low-value columns drop in the order the view gives;
 * escape sequences are never cut and take no width; wide (CJK) characters take two cells. Piped
 * output and the other formats are the same whatever the width.
 */
import { describe, expect, it } from 'vitest';
import { runQueueShow } from '../../src/commands/queue/show.js';
import { renderFields, renderRows, type Row } from '../../src/output/render.js';
import { makeStyle } from '../../src/output/style.js';
import { displayWidth, fitColumns, tableWidth, truncateToWidth } from '../../src/output/width.js';
import { PR_FIT, PR_HEADERS, queueRows } from '../../src/views/queue.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { entry, queueRecord } from '../helpers/test-context.js';
import type { QueueEntry } from '../../src/api/schemas.js';

const LONG = 'Add a retry budget to the HTTP client so that bursts of 503s stop failing whole pipelines';
const WIDE = '日本語のタイトルはとても長いのでセルを二つずつ使います';
const entries = [
  { ...entry(101, 'testing'), prTitle: LONG, prAuthor: 'margaret-hamilton' },
  { ...entry(102, 'pending_failure'), prTitle: WIDE, prAuthor: 'grace', skipTheLine: true },
  { ...entry(103, 'pending'), prTitle: 'Short', prAuthor: 'ada' },
] as unknown as QueueEntry[];
const NOW = Date.now();
const rows = queueRows(entries, NOW, true);

const lines = (text: string) => text.replace(/\n$/, '').split('\n');
const headerCells = (text: string) =>
  (lines(text)[1] as string)
    .split('│')
    .map((c) => c.trim())
    .filter(Boolean);
// An escape sequence cut in two would leave an ESC not followed by a whole CSI sequence.
const ESCAPES = /\x1b\[[0-9;]*m/g;

describe('display width', () => {
  it('counts cells: escapes none, wide characters two, combining marks none', () => {
    expect(displayWidth('\x1b[1;31mred\x1b[0m')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('a\u200bb')).toBe(2);
  });

  it('cuts with … and never inside an escape sequence or a wide character', () => {
    expect(truncateToWidth('abcdefghij', 5)).toBe('abcd…');
    expect(truncateToWidth('abc', 5)).toBe('abc');
    expect(truncateToWidth('日本語です', 6)).toBe('日本…');
    expect(displayWidth(truncateToWidth('日本語です', 6))).toBeLessThanOrEqual(6);
    const painted = '\x1b[36mtesting the very long state\x1b[39m';
    const cut = truncateToWidth(painted, 8);
    expect(displayWidth(cut)).toBe(8);
    expect(cut.replace(ESCAPES, '')).toBe('testing…');
    expect(cut.replace(ESCAPES, '')).not.toContain('\x1b');
    for (let w = 1; w < 30; w++) expect(truncateToWidth(painted, w).replace(ESCAPES, '')).not.toContain('\x1b');
  });
});

describe('fitColumns', () => {
  const headers = ['A', 'Long', 'Low', 'Lower'];
  const natural = [5, 60, 10, 10];
  const fit = { truncate: ['Long'], drop: ['Lower', 'Low'] };

  it('keeps everything when it fits', () => {
    expect(fitColumns(headers, natural, fit, 200)).toEqual({ keep: [0, 1, 2, 3], widths: natural });
  });

  it('cuts the long column first, as little as needed', () => {
    const r = fitColumns(headers, natural, fit, 70);
    expect(r.keep).toEqual([0, 1, 2, 3]);
    expect(tableWidth(r.widths)).toBe(70);
    expect(r.widths[1]).toBe(32);
  });

  it('drops columns in the given order once cutting to the minimum is not enough', () => {
    expect(fitColumns(headers, natural, fit, 54).keep).toEqual([0, 1, 2, 3]);
    expect(fitColumns(headers, natural, fit, 53).keep).toEqual([0, 1, 2]);
    expect(fitColumns(headers, natural, fit, 41).keep).toEqual([0, 1, 2]);
    expect(fitColumns(headers, natural, fit, 40).keep).toEqual([0, 1]);
    const r = fitColumns(headers, natural, fit, 28);
    expect(tableWidth(r.widths)).toBeLessThanOrEqual(28);
    // Nothing left to drop: the long column goes below its minimum.
    const tight = fitColumns(headers, natural, fit, 18);
    expect(tight.keep).toEqual([0, 1]);
    expect(tableWidth(tight.widths)).toBeLessThanOrEqual(18);
  });
});

describe('a queue table on a terminal', () => {
  const style = makeStyle(false);
  const full = async () => renderRows(PR_HEADERS, rows, 'table', style);

  for (const width of [60, 80, 200]) {
    it(`fits ${width} columns`, async () => {
      const out = await renderRows(PR_HEADERS, rows, 'table', style, { width, fit: PR_FIT });
      for (const l of lines(out)) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    });
  }

  it('at 200 columns nothing is cut: the same table as without a width', async () => {
    expect(await renderRows(PR_HEADERS, rows, 'table', style, { width: 200, fit: PR_FIT })).toBe(await full());
    expect(displayWidth(lines(await full())[0] as string)).toBeGreaterThan(80);
  });

  it('at 80 columns the title is cut with … and the priority drops', async () => {
    const out = await renderRows(PR_HEADERS, rows, 'table', style, { width: 80, fit: PR_FIT });
    expect(headerCells(out)).toEqual(['#', 'PR', 'State', 'In state', 'Author', 'Title']);
    expect(out).toContain('Add a retry');
    expect(out).not.toContain(LONG);
    expect(out).toMatch(/Add a retry[^│]*… │/);
    expect(out).toContain('margaret-hamilton');
  });

  it('at 60 columns priority, author and position drop in that order; the title stays readable', async () => {
    const out = await renderRows(PR_HEADERS, rows, 'table', style, { width: 60, fit: PR_FIT });
    expect(headerCells(out)).toEqual(['#', 'PR', 'State', 'In state', 'Title']);
    expect(out).toMatch(/Add a retry bud[^│]*…/);
    expect(out).toContain('#102');
    expect(out).toContain('pending_failure');
    const at59 = await renderRows(PR_HEADERS, rows, 'table', style, { width: 59, fit: PR_FIT });
    expect(headerCells(at59)).toEqual(['PR', 'State', 'In state', 'Title']);
  });

  it('wide titles are measured in cells', async () => {
    const out = await renderRows(PR_HEADERS, rows, 'table', style, { width: 60, fit: PR_FIT });
    const wideRow = lines(out).find((l) => l.includes('#102')) as string;
    expect(wideRow).toContain('日本');
    expect(displayWidth(wideRow)).toBe(displayWidth(lines(out)[0] as string));
  });

  it('coloured: widths ignore the colours and no escape sequence is cut', async () => {
    const coloured = makeStyle(true);
    const out = await renderRows(PR_HEADERS, rows, 'table', coloured, { width: 60, fit: PR_FIT });
    expect(out).toContain('\x1b[');
    for (const l of lines(out)) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    expect(out.replace(ESCAPES, '')).not.toContain('\x1b');
  });

  it('other formats ignore the width and the fit', async () => {
    for (const format of ['plain', 'markdown', 'raw'] as const) {
      const base = await renderRows(PR_HEADERS, rows, format, style);
      expect(await renderRows(PR_HEADERS, rows, format, style, { width: 40, fit: PR_FIT })).toBe(base);
    }
  });

  it('a table with nothing to cut or drop is left as it is', async () => {
    const r: Row[] = [['x'.repeat(100)]];
    expect(await renderRows(['Only'], r, 'table', style, { width: 60 })).toBe(
      await renderRows(['Only'], r, 'table', style),
    );
  });
});

describe('fields on a terminal', () => {
  it('a long value wraps under itself, within the width', () => {
    const style = makeStyle(false);
    const out = renderFields(
      [{ key: 'queue', label: 'Queue', value: `release/2026-q4 · ${'word '.repeat(20)}` }],
      'table',
      style,
      undefined,
      40,
    );
    const ls = lines(out);
    expect(ls.length).toBeGreaterThan(2);
    for (const l of ls) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    for (const l of ls.slice(1)) expect(l.startsWith('       ')).toBe(true);
    // Piped and without a width: one line, as before.
    expect(lines(renderFields([{ key: 'q', label: 'Q', value: 'a '.repeat(50) }], 'table', style))).toHaveLength(1);
    expect(renderFields([{ key: 'q', label: 'Q', value: 'a '.repeat(50) }], 'plain', style, undefined, 20)).toBe(
      `q\t${'a '.repeat(50)}\n`,
    );
  });
  it('a value longer than a line breaks after a `/`, not inside a name', () => {
    const branch = 'trunk-merge/pr-1815/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';
    const out = renderFields(
      [{ key: 'b', label: 'Test branch', value: branch }],
      'table',
      makeStyle(false),
      undefined,
      60,
    );
    expect(lines(out)).toEqual([
      'Test branch  trunk-merge/pr-1815/',
      '             5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    ]);
  });
});

describe('mq queue show through the presenter', () => {
  const queue = queueRecord({}, entries as unknown as Array<Record<string, unknown>>);
  const show = async (opts: { tty: boolean; columns: number; output?: string }) => {
    const fake = fakeClient({ getQueue: [queue], listPullRequests: [{ pullRequests: [] }] });
    const { deps, io } = testDeps({
      fake,
      stdoutIsTTY: opts.tty,
      columns: opts.columns,
      options: opts.output ? { output: opts.output } : {},
    });
    await deps.out.show(await runQueueShow({}, deps));
    return io.stdout;
  };

  it('on a 60-column terminal no line is wider than 60 cells', async () => {
    const out = await show({ tty: true, columns: 60 });
    expect(out).toContain('…');
    for (const l of lines(out)) expect(displayWidth(l)).toBeLessThanOrEqual(60);
  });

  it('piped, the output does not depend on the width (plain, markdown, -o table)', async () => {
    for (const output of [undefined, 'markdown', 'table', 'json']) {
      const narrow = await show({ tty: false, columns: 40, output });
      expect(await show({ tty: false, columns: 250, output })).toBe(narrow);
    }
    expect(await show({ tty: false, columns: 40 })).toContain(LONG);
  });
});
