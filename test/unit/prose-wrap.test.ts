/**
 * Prose on a terminal wraps at spaces to its width (`wrapLine`, a `lines` block's `wrap`): no word
 * is split, continuations are indented, colours stay on their words and a URL wider than the line
 * gets a line of its own, whole. A PR's story reads at any width: times before the service's clock,
 * short run ids, reasons wrapped under themselves; plain, markdown and --json do not change.
 */
import { describe, expect, it } from 'vitest';
import { bannerToStderr } from '../../src/commands/queue/common.js';
import { runQueueShow } from '../../src/commands/queue/show.js';
import { runQueueTesting } from '../../src/commands/queue/testing.js';
import { renderBlocks } from '../../src/output/present.js';
import { own, paints, renderFields, renderLine, v, wrapLine, type Line } from '../../src/output/render.js';
import { makeStyle } from '../../src/output/style.js';
import { displayWidth } from '../../src/output/width.js';
import { storyJson } from '../../src/stats/status-rows.js';
import { buildStory, failingChecksOf } from '../../src/stats/story.js';
import { storyView } from '../../src/views/story.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { queueRecord } from '../helpers/test-context.js';

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
    expect(out).toEqual([
      '  QUEUE PAUSED — no PRs are',
      '    tested or merged until it',
      '    is resumed (order is kept)',
    ]);
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
  const checks = failingChecksOf({
    checkSuites: [{ checkRuns: [{ name: 'integration tests (linux)', conclusion: 'FAILURE', url: URL }] }],
  });
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
    for (const word of ['pending_failure', 'waiting', 'integration', 'd8de4105;', 'submitted:'])
      expect(out).toContain(word);
  });

  it('plain, markdown and --json keep absolute times and whole run ids', async () => {
    const view = storyView(story, NOW);
    const plain = await renderBlocks(view.plain, 'plain', plainStyle, 60);
    expect(plain).toContain(
      `step\t2026-11-20T01:11:00Z\tfailed\tTEST_RUN_REQUIRED_STATUS_FAILED\t${RUN2}\tfailed: required status`,
    );
    expect(plain).toContain(`trip\t2\tfailed\t${RUN2}\n`);
    const markdown = await renderBlocks(view.markdown, 'markdown', plainStyle, 60);
    expect(markdown).toContain(`**trip 2: failed (run ${RUN2})**`);
    expect(markdown).toContain('- 2026-11-20T01:11:00Z `failed`');
    expect(JSON.stringify(storyJson(story))).toContain(`"testRunId":"${RUN2}"`);
  });
});

describe('banners, fields and links on a narrow terminal', () => {
  const lines = (text: string) => text.replace(/\n$/, '').split('\n');
  const RUN = '5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';
  const CHECK_URL = `https://ci.example.com/acme/widgets/actions/runs/9876543210/job/${RUN}`;
  const details = {
    testBranch: `trunk-merge/pr-1815/${RUN}`,
    status: 'FAILED',
    checkSuites: [
      {
        checkRuns: [{ name: 'integration tests (linux)', url: CHECK_URL, status: 'COMPLETED', conclusion: 'FAILURE' }],
      },
    ],
    testedPullRequests: [
      {
        prNumber: 1815,
        prUrl: 'https://github.com/acme/widgets/pull/1815',
        title: 'Add a retry budget to the HTTP client',
      },
    ],
  };
  const testing = async (columns: number) => {
    const { deps, io } = testDeps({
      fake: fakeClient({ getMergeQueueTestingDetails: [details] }),
      stdoutIsTTY: true,
      columns,
    });
    await deps.out.show(await runQueueTesting({ testRunId: RUN }, deps));
    return io.stdout;
  };

  it('queue show: the PAUSED banner wraps at word boundaries within 60 columns', async () => {
    const fake = fakeClient({
      getQueue: [queueRecord({ state: 'paused' }, [])],
      listPullRequests: [{ pullRequests: [] }],
    });
    const { deps, io } = testDeps({ fake, stdoutIsTTY: true, columns: 60 });
    await deps.out.show(await runQueueShow({}, deps));
    const out = lines(io.stdout);
    expect(out.slice(0, 2)).toEqual([
      ' ⚠ QUEUE PAUSED — no PRs are tested or merged until it is',
      '   resumed (order is kept) ',
    ]);
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(60);
  });

  it('on stderr the banner wraps when stderr is a terminal, and stays one line when it is not', () => {
    for (const stderrIsTTY of [true, false]) {
      const { deps, io } = testDeps({ stderrIsTTY, columns: 60 });
      bannerToStderr(deps, 'draining');
      const err = io.stderr.replace(/\x1b\[[0-9;]*m/g, '');
      expect(lines(err)).toHaveLength(stderrIsTTY ? 2 : 1);
      expect(err).toContain(
        stderrIsTTY ? 'queue are tested and\n   merged; no new' : 'queue are tested and merged; no new',
      );
    }
  });

  it('queue testing: URLs are never cut; on a narrow terminal they follow the tables whole', async () => {
    const narrow = await testing(60);
    expect(narrow).not.toMatch(/https:\/\/\S*…/);
    expect(lines(narrow)).toContain(`    ${CHECK_URL}`);
    expect(lines(narrow)).toContain('  #1815  https://github.com/acme/widgets/pull/1815');
    // The test branch breaks after a `/`, never inside a name.
    expect(narrow).toContain('Test branch  trunk-merge/pr-1815/\n             5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31\n');
    for (const l of lines(narrow)) if (!l.includes(CHECK_URL)) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    // Wide enough: the URLs stay in the tables.
    const wide = await testing(200);
    expect(wide).toMatch(new RegExp(`│ ${CHECK_URL.replace(/[.?]/g, '\\$&')} +│`));
    expect(wide).not.toMatch(/^ {2}#1815 /m);
  });
});

describe('fields on a terminal', () => {
  it('a value too long for the line is never cut inside a name: a path breaks after a `/`, a URL stays whole', () => {
    const branch = 'trunk-merge/pr-1815/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';
    const url = 'https://ci.example.com/acme/widgets/actions/runs/9876543210';
    const fields = [
      { key: 'b', label: 'Test branch', value: branch },
      { key: 'r', label: 'Required', value: 'ci/build, ci/test, lint, integration tests (linux), e2e' },
    ];
    const out = renderFields(fields, 'table', plainStyle, undefined, 40).split('\n');
    expect(out.slice(0, 2)).toEqual([
      'Test branch  trunk-merge/pr-1815/',
      '             5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    ]);
    expect(renderFields([{ key: 'u', label: 'URL', value: url }], 'table', plainStyle, undefined, 40)).toBe(
      `URL  ${url}\n`,
    );
    expect(out.slice(2, -1)).toEqual([
      'Required     ci/build, ci/test, lint,',
      '             integration tests (linux),',
      '             e2e',
    ]);
  });
});

describe('notes on stderr', () => {
  it('piped queue show: the banner on a terminal stderr wraps, on a piped one it stays one line', async () => {
    for (const stderrIsTTY of [true, false]) {
      const fake = fakeClient({
        getQueue: [queueRecord({ state: 'paused' }, [])],
        listPullRequests: [{ pullRequests: [] }],
      });
      const { deps, io } = testDeps({ fake, stdoutIsTTY: false, stderrIsTTY, columns: 60 });
      await deps.out.show(await runQueueShow({}, deps));
      const err = io.stderr.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
      expect(err[0]).toBe(
        stderrIsTTY
          ? ' ⚠ QUEUE PAUSED — no PRs are tested or merged until it is'
          : ' ⚠ QUEUE PAUSED — no PRs are tested or merged until it is resumed (order is kept) ',
      );
      if (stderrIsTTY) expect(err[1]).toBe('  resumed (order is kept) ');
    }
  });
});
