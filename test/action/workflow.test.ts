/**
 * The action's runner protocol helpers and its job summary: escaping that keeps service text and
 * input values from ending a workflow command early or breaking the Markdown, output records the
 * runner can read back, and links only to http(s) URLs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { summaryOf, type Report } from '../../src/action/summary.js';
import { command, escapeData, escapeProperty, Workflow } from '../../src/action/workflow.js';
import type { ActionInputs } from '../../src/action/inputs.js';

describe('workflow commands', () => {
  it('escapes %, CR and LF in messages, and also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    expect(command('error', { title: 'mq: x, y' }, 'line 1\nline 2')).toBe(
      '::error title=mq%3A x%2C y::line 1%0Aline 2\n',
    );
  });

  it('a message cannot inject a second command', () => {
    const out = command('warning', {}, 'harmless\n::add-mask::oops\n::error::forged');
    expect(out.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  it('masks each line of a multi-line secret, and the whole', () => {
    const lines: string[] = [];
    new Workflow({ env: {}, write: (t) => lines.push(t) }).mask('abc\ndef');
    expect(lines).toEqual(['::add-mask::abc%0Adef\n', '::add-mask::abc\n', '::add-mask::def\n']);
  });

  it('reads inputs as the runner passes them and writes outputs as name<<delimiter records', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mq-wf-'));
    try {
      const file = join(dir, 'out');
      const wf = new Workflow({
        env: { 'INPUT_API-URL': '  http://x/v1 \n', INPUT_NO_BATCH: 'true', GITHUB_OUTPUT: file },
        write: () => {},
      });
      expect(wf.input('api-url')).toBe('http://x/v1');
      expect(wf.input('no batch')).toBe('true');
      expect(wf.input('missing')).toBe('');
      wf.setOutput('failing-checks', '[{"name":"a\\nb"}]\nsecond line');
      const text = readFileSync(file, 'utf8');
      const m = /^failing-checks<<(ghadelimiter_[0-9a-f-]+)\n([\s\S]*)\n\1\n$/.exec(text);
      expect(m?.[2]).toBe('[{"name":"a\\nb"}]\nsecond line');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the job summary', () => {
  const inputs: ActionInputs = {
    token: 't',
    apiUrl: 'http://x/v1',
    api: 'auto',
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    branch: 'main',
    pr: 8,
    noBatch: false,
    wait: true,
    timeoutMs: 60_000,
    intervalMs: 1000,
  };

  it('lists the failing checks with links to http(s) URLs only, with service text escaped (even if the story let one through)', () => {
    const failing = [
      { name: 'unit | tests', url: 'https://ci.example/runs/1?a=(b)', conclusion: 'failure' },
      { name: '<img src=x onerror=alert(1)>', url: 'javascript:alert(1)', conclusion: 'error' },
    ];
    const report: Report = { state: 'failed', exitCode: 9, timeInQueueS: 600, testRun: 'run-1', failing };
    const md = summaryOf(inputs, 'failed', report, [
      { from: null, to: 'testing', at: '2026-01-05T09:00:00.000Z', afterMs: null },
      { from: 'testing', to: 'failed', at: '2026-01-05T09:10:00.000Z', afterMs: 600_000 },
    ]);
    expect(md).toContain('### ❌ PR #8 failed in the merge queue');
    expect(md).toContain('| Test run | run-1 |');
    expect(md).toContain('| 2026-01-05T09:10:00.000Z | testing | failed | 10m |');
    expect(md).toContain('- [unit \\| tests](https://ci.example/runs/1?a=%28b%29): failure');
    expect(md).toContain('- &lt;img src=x onerror=alert(1)&gt;: error');
    expect(md).not.toContain('javascript:');
    expect(md).not.toContain('<img');
  });

  it('a PR still queued: its place, the PRs ahead and holding it, and why it waits; no rows without a place', () => {
    const place = {
      position: 3,
      of: 12,
      ahead: [41],
      heldBy: [40],
      waitingBecause: { code: 'held_by_failure' as const, words: 'held by #40, whose tests failed' },
      approximate: false,
    };
    const report: Report = { state: 'pending', exitCode: 8, timeInQueueS: 60, testRun: '', failing: [], place };
    const md = summaryOf(inputs, 'timeout', report, []);
    expect(md).toContain('| Position | 3rd of 12 |\n| Directly ahead | #41 |\n| Held by | #40 |\n');
    expect(md).toContain('| Waiting because | held by #40, whose tests failed |');
    const gone = summaryOf(inputs, 'merged', { ...report, place: { ...place, position: null, of: null } }, []);
    expect(gone).not.toContain('Position');
  });
});
