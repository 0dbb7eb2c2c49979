/**
 * Markdown output (`-o markdown`, and the Action's job summary, which shares safeMarkdown) rendered
 * by a CommonMark + GFM renderer: service text comes out as the same text, with no link, image,
 * code span, emphasis, HTML element or table cell of its own, wherever it stands in a line.
 */
import { describe, expect, it } from 'vitest';

import { runStatus } from '../../src/commands/status.js';
import { renderLine } from '../../src/output/render.js';
import { safeLine, safeMarkdown } from '../../src/output/sanitize.js';
import { makeStyle } from '../../src/output/style.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { foreignElements, HOSTILE_LINE_STARTS, HOSTILE_MD, renderMarkdown } from '../helpers/markdown.js';
import { entry } from '../helpers/test-context.js';

const TABLE = ['table', 'thead', 'tbody', 'tr', 'th', 'td'];

/** The text a reader sees in rendered HTML. */
function shown(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

describe('safeMarkdown renders as the text it was given', () => {
  for (const [name, text] of Object.entries(HOSTILE_MD)) {
    it(`${name}: in a table cell and in a paragraph`, () => {
      const cell = renderMarkdown(`| A | B |\n| --- | --- |\n| x | ${safeMarkdown(text)} |\n`);
      expect(foreignElements(cell, TABLE)).toEqual([]);
      expect(cell).toContain(`<td>x</td>\n<td>`);
      expect(shown(/<td>x<\/td>\n<td>([\s\S]*?)<\/td>/.exec(cell)?.[1] ?? '')).toBe(text);
      const para = renderMarkdown(`before ${safeMarkdown(text)} after\n`);
      expect(foreignElements(para, ['p'])).toEqual([]);
      expect(shown(para)).toBe(`before ${text} after`);
    });
  }

  it('at the start of a line: no heading, list, quote, rule, fence or table', () => {
    for (const text of HOSTILE_LINE_STARTS) {
      const html = renderMarkdown(`${safeMarkdown(text, true)}\n`);
      expect(foreignElements(html, ['p']), text).toEqual([]);
      expect(shown(html), text).toBe(text);
    }
  });

  it('keeps words with inner underscores as they are (pending_failure, tests_passed)', () => {
    expect(safeMarkdown('pending_failure tests_passed _x_ a_')).toBe('pending_failure tests_passed \\_x\\_ a\\_');
  });

  it('line breaks and controls are made safe first: the reader sees what a terminal shows', () => {
    const text = 'a\n# b\x1b[2J\u202e';
    expect(shown(renderMarkdown(safeMarkdown(text, true)))).toBe(safeLine(text));
  });
});

describe('the CLI markdown output', () => {
  it('a line that starts with a value cannot become a heading or a list', () => {
    const style = makeStyle(false);
    const html = renderMarkdown(
      HOSTILE_LINE_STARTS.map((t) => `${renderLine([{ text: t }], style, true)}\n\n`).join(''),
    );
    expect(foreignElements(html, ['p'])).toEqual([]);
  });

  it('mq status -o markdown: hostile title, author and timeline reason render inert', async () => {
    const timeline = [
      { timestamp: '2026-11-22T11:00:00.000Z', state: 'failed', reason: HOSTILE_MD.backtick, testRunId: 'r-1' },
    ];
    const record = {
      ...entry(42, 'failed'),
      prTitle: Object.values(HOSTILE_MD).join(' '),
      prAuthor: HOSTILE_MD.image,
      timeline,
    };
    const fake = fakeClient({ getSubmittedPullRequestWithTimeline: [record], getMergeQueueTestingDetails: [{}] });
    const { deps, io } = testDeps({ fake, options: { output: 'markdown' } });
    await deps.out.show(await runStatus({ pr: 42 }, deps));
    const html = renderMarkdown(io.stdout);
    // mq's own markup: the heading, the tables, the trip in bold, its steps as a list with the state as code.
    const own = foreignElements(html, [...TABLE, 'h3', 'p', 'ul', 'li']);
    expect(
      own.every((e) => /^<(strong>trip 1|code>failed$)/.test(e)),
      own.join('\n'),
    ).toBe(true);
    expect(html).not.toContain('evil.example/rerun"');
    expect(html).toContain('[Click to re-run](https://evil.example/rerun)');
  });
});
