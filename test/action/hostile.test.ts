/**
 * The action in-process against the recording fake service, which answers with hostile strings
 * (issue 26): a state with line breaks and workflow commands, a timeline reason and an error body
 * with a link and an image, a check name whose backtick would close a code span. The step log
 * must carry no command the action did not write itself, and the job summary, rendered by a
 * CommonMark + GFM renderer, no link, image or HTML but the failing check's own link.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAction } from '../../src/action/main.js';
import { Workflow } from '../../src/action/workflow.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { foreignElements, HOSTILE_MD, renderMarkdown } from '../helpers/markdown.js';
import { entry } from '../helpers/test-context.js';

const TOKEN = 'tok_action_hostile_3d9e';
const INJECTED =
  '\n::add-mask::leak\n::warning::forged\n::set-output name=state::merged\n  ::stop-commands::x\n##[error]legacy\r::error::cr\x1b[2J';
const LINK_AND_IMAGE = `${HOSTILE_MD.link} ${HOSTILE_MD.image}`;
const CHECK_URL = 'https://ci.example/runs/1';
const STRUCTURE = ['h3', 'h4', 'p', 'ul', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td'];

let server: FakeServer;
let dir: string;
beforeEach(async () => {
  server = await startFakeServer();
  dir = mkdtempSync(join(tmpdir(), 'mq-action-hostile-'));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(): Promise<{ exitCode: number; log: string; summary: string; output: string }> {
  let log = '';
  const env = {
    INPUT_TOKEN: TOKEN,
    'INPUT_API-URL': server.url,
    INPUT_REPO: 'acme/app',
    INPUT_BRANCH: 'main',
    INPUT_PR: '7',
    INPUT_INTERVAL: '100ms',
    INPUT_TIMEOUT: '1m',
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
  };
  const { exitCode } = await runAction({ env, write: (t) => void (log += t) });
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { exitCode, log, summary: read('summary.md'), output: read('output') };
}

/** The commands the runner would run from the log: `::name` lines (after blanks) and any `##[name]`. */
function runnerCommands(log: string): string[] {
  const found: string[] = [];
  for (const line of log.split(/\r?\n|\r/)) {
    const t = line.trimStart();
    if (t.startsWith('::')) found.push(t.slice(2).split(/::| /)[0] ?? '');
    else if (line.includes('##[')) found.push(`##[${line.split('##[')[1]}`);
  }
  return found;
}

function expectInertLog(log: string): void {
  expect(runnerCommands(log).filter((c) => !['add-mask', 'group', 'endgroup', 'error'].includes(c))).toEqual([]);
  expect(log.match(/^::add-mask::.*$/gm)).toEqual([`::add-mask::${TOKEN}`]);
  expect(log).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
}

describe('hostile service strings', () => {
  it('a failed PR: the state is shown as unknown, the reason and the check name render inert', async () => {
    const failed = entry(7, 'failed', {
      verifiedByTestRun: 'r-1',
      timeline: [
        { timestamp: '2026-11-22T11:00:00.000Z', state: 'testing', reason: LINK_AND_IMAGE },
        { timestamp: '2026-11-22T11:10:00.000Z', state: 'failed', reason: HOSTILE_MD.backtick, testRunId: 'r-1' },
      ],
    });
    server.on('POST /submitPullRequest', { status: 200, body: {} });
    server.on(
      'POST /getSubmittedPullRequest',
      { status: 200, body: entry(7, `testing${INJECTED}`) },
      { status: 200, body: failed },
    );
    server.on('POST /getMergeQueueTestingDetails', {
      status: 200,
      body: { checkSuites: [{ checkRuns: [{ name: HOSTILE_MD.backtick, url: CHECK_URL, conclusion: 'FAILURE' }] }] },
    });
    const r = await run();
    expect(r.exitCode).toBe(9);
    expectInertLog(r.log);
    expect(r.log).toMatch(/^PR #7: unknown$/m);
    expect(r.log).toMatch(/^PR #7: unknown → failed/m);
    const html = renderMarkdown(r.summary);
    const foreign = foreignElements(html, STRUCTURE);
    // The one link is the failing check's, to its http(s) URL, its name as plain text.
    expect(foreign).toEqual([`<a href="${CHECK_URL}">${HOSTILE_MD.backtick}`]);
    expect(html).not.toContain('evil.example/rerun"');
    // GitHub also links bare URLs; those show where they go.
    for (const [, href, text] of renderMarkdown(r.summary, true).matchAll(/<a href="([^"]*)">([^<]*)</g))
      expect(href === CHECK_URL || text === href, `${href} ${text}`).toBe(true);
    expect(r.output).toMatch(/^state<<(ghadelimiter_[0-9a-f-]+)\nfailed\n\1$/m);
  });

  it('a state outside the known set is `unknown` in the outputs and the summary', async () => {
    server.on('POST /submitPullRequest', { status: 200, body: {} });
    server.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: entry(7, `merged${INJECTED}`, { isCurrentlySubmittedToQueue: false }),
    });
    const r = await run();
    expect(r.exitCode).toBe(9);
    expectInertLog(r.log);
    expect(r.output).toMatch(/^state<<(ghadelimiter_[0-9a-f-]+)\nunknown\n\1$/m);
    expect(r.summary).toContain('| State | unknown |');
    expect(r.summary).not.toContain('add-mask');
  });

  it('an error body with a link, an image and commands: one annotation, an inert summary', async () => {
    server.on('POST /submitPullRequest', { status: 409, body: `${LINK_AND_IMAGE}${INJECTED}` });
    const r = await run();
    expect(r.exitCode).toBe(5);
    expectInertLog(r.log);
    expect(runnerCommands(r.log)).toEqual(['add-mask', 'group', 'endgroup', 'error']);
    expect(foreignElements(renderMarkdown(r.summary), STRUCTURE)).toEqual([]);
    expect(r.summary).toContain('409');
  });
});

describe('what the Workflow writes', () => {
  it('log lines, group titles, messages and titles: only the commands called, controls escaped', () => {
    let log = '';
    const wf = new Workflow({ env: {}, write: (t) => void (log += t) });
    for (const text of [
      INJECTED,
      `::warning::x${INJECTED}`,
      '  ::stop-commands::tok',
      'x ##[add-mask]y',
      '\u2028::error::ls',
    ]) {
      wf.log(text);
      wf.log(`! PR #7: a poll failed (${text}); retrying`);
      wf.group(text);
      wf.endGroup();
      wf.error(`line 1\n${text}`, text);
      wf.warning(text, text);
      wf.notice(text);
    }
    expect(runnerCommands(log)).toEqual(Array(5).fill(['group', 'endgroup', 'error', 'warning', 'notice']).flat());
    expect(log).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028]/);
    expect(log).toContain('\\x3a:stop-commands::tok\n');
    expect(log).toContain('x ##\\x5badd-mask]y\n');
    expect(log).toContain('::error title=x ##\\x5badd-mask]y::line 1%0Ax ##\\x5badd-mask]y\n');
  });
});
