/**
 * Prose on a terminal wraps at spaces to its width (`wrapLine`, a `lines` block's `wrap`): no word
 * is split, continuations are indented, colours stay on their words and a URL wider than the line
 * gets a line of its own, whole. A PR's story reads at any width: times before the service's clock,
 * short run ids, reasons wrapped under themselves; plain, markdown and --json do not change.
 */
import { describe, expect, it } from 'vitest';
import { renderBlocks } from '../../src/output/present.js';
import { own, paints, renderLine, v, wrapLine, type Line } from '../../src/output/render.js';
import { makeStyle } from '../../src/output/style.js';
import { displayWidth } from '../../src/output/width.js';
import { storyJson } from '../../src/stats/status-rows.js';
import { buildStory, failingChecksOf } from '../../src/stats/story.js';
import { storyView } from '../../src/views/story.js';

const plainStyle = makeStyle(false);
const text = (lines: Line[], style = plainStyle) => lines.map((l) => renderLine(l, style));
const URL = 'https://ci.example.com/acme/widgets/actions/runs/9876543210/job/1234567890';

describe('wrapLine', () => {
  const PROSE = 'QUEUE PAUSED — no PRs are tested or merged until it is resumed (order is kept)';

  it('a line that fits is left as it is', () => {
    const line: Line = ['a ', v('short line')];
    expect(wrapLine(line, 40)).toEqual([line]);
  });

  it('breaks at spaces within the width, continuations indented, every word whole', () => {
    const out = text(wrapLine(['  ', v(PROSE)], 30, 4));
    expect(out).toEqual(['  QUEUE PAUSED — no PRs are', '    tested or merged until it', '    is resumed (order is kept)']);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(out.join(' ').replace(/ +/g, ' ').trim()).toBe(PROSE);
  });

  it('a URL wider than the line gets a line of its own, whole', () => {
    const out = text(wrapLine(['  test  failure  ', v(URL)], 60, 4));
    expect(out).toEqual(['  test  failure', `    ${URL}`]);
  });

  it('colours stay on their words and are closed on every line', () => {
    const colour = makeStyle(true);
    const out = text(wrapLine([own(paints.banner, ` ⚠ ${PROSE} `)], 40, 3), colour);
    expect(out.length).toBe(3);
    for (const l of out) {
      expect(displayWidth(l)).toBeLessThanOrEqual(40);
      expect(l).toMatch(/\x1b\[0m$|\x1b\[\d+m$/);
    }
    expect(out[1]).toMatch(/^ {3}\x1b\[/);
  });

  it('service text is made safe before it is measured and wrapped', () => {
    const out = text(wrapLine([v('evil\x1b[2J title with\ttabs and more words')], 16));
    expect(out.join('\n')).not.toContain('\x1b');
    expect(out[0]).toBe('evil\\x1b[2J');
  });

  it('a deep indent leaves room for text: continuations start nearer the margin', () => {
    const out = text(wrapLine(['x'.repeat(30), ' ', v('one two three four five six')], 40, 32));
    expect(out.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   '))).toBe(true);
  });
});

describe('a story on a terminal', () => {
  const T0 = Date.parse('2026-11-20T00:00:00Z');
  const MIN = 60_000;
  const RUN1 = 'ab0fddff-8349-43c9-96b4-598ad00dc268';
  const RUN2 = 'd8de4105-f822-46a1-85fa-6e95cef4cb94';
  const timeline = [
    { at: T0, state: 'not_ready', reason: 'USER_REQUESTED', runId: null },
    { at: T0 + MIN, state: 'pending', reason: 'MERGE_ITEM_NOW_READY', runId: null },
    { at: T0 + 2 * MIN, state: 'testing', reason: 'TEST_RUN_STARTED', runId: RUN1 },
    { at: T0 + 12 * MIN, state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: RUN1 },
    { at: T0 + 60 * MIN, state: 'pending', reason: 'MERGE_ITEM_NOW_READY', runId: null },
    { at: T0 + 61 * MIN, state: 'testing', reason: 'TEST_RUN_STARTED', runId: RUN2 },
    { at: T0 + 71 * MIN, state: 'pending_failure', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: RUN2 },
    { at: T0 + 71 * MIN, state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: RUN2 },
  ];
  const checks = failingChecksOf({ checkSuites: [{ checkRuns: [{ name: 'integration tests (linux)', conclusion: 'FAILURE', url: URL }] }] });
  const story = buildStory(43, [...timeline].reverse(), checks);
  const NOW = T0 + 3 * 60 * MIN + 5 * MIN;

  it.each([60, 80])('at %i columns: relative times, short run ids, no line wider, no word split', async (width) => {
    const out = await renderBlocks(storyView(story, NOW).table, 'table', plainStyle, width);
    const lines = out.split('\n');
    for (const l of lines) if (l.trim() !== URL) expect(displayWidth(l), l).toBeLessThanOrEqual(width);
    expect(out).toContain('trip 2: failed (run d8de4105)');
    expect(out).toContain('trip 1: failed (run ab0fddff)');
    expect(out).not.toContain(RUN1);
    expect(out).not.toContain(RUN2);
    expect(out).not.toContain('2026-11-20');
    expect(out).toMatch(/^ {2}3h 5m ago {3}not_ready {7}submitted: waiting until/m);
    expect(out).toMatch(/^ {2}1h 54m ago {2}failed {10}failed: required status\b/m);
    // Continuations start under the reason.
    for (const l of lines.filter((x) => /^ {20}/.test(x) && x.trim() !== URL)) expect(l).toMatch(/^ {30}\S/);
    expect(lines).toContain(`    ${URL}`);
    for (const word of ['pending_failure', 'waiting', 'integration', 'd8de4105;', 'submitted:']) expect(out).toContain(word);
  });

  it('plain, markdown and --json keep absolute times and whole run ids', async () => {
    const view = storyView(story, NOW);
    const plain = await renderBlocks(view.plain, 'plain', plainStyle, 60);
    expect(plain).toContain(`step\t2026-11-20T01:11:00Z\tfailed\tTEST_RUN_REQUIRED_STATUS_FAILED\t${RUN2}\tfailed: required status`);
    expect(plain).toContain(`trip\t2\tfailed\t${RUN2}\n`);
    const markdown = await renderBlocks(view.markdown, 'markdown', plainStyle, 60);
    expect(markdown).toContain(`**trip 2: failed (run ${RUN2})**`);
    expect(markdown).toContain('- 2026-11-20T01:11:00Z `failed`');
    expect(JSON.stringify(storyJson(story))).toContain(`"testRunId":"${RUN2}"`);
  });
});
