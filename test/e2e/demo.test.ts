import { describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { run } from '../../src/run.js';
import { changeLine, frameRows } from '../../src/demo/frame.js';
import { DEMO_PRS } from '../../src/demo/cast.js';
import { stringIO } from '../helpers/in-process.js';
import { baseEnv, runCli } from '../helpers/run-cli.js';

describe('mq demo', () => {
  it('piped, with a fixed seed: a line per state change and the expected summary', async () => {
    const started = Date.now();
    const r = await runCli(['demo', '--seed', '1', '--speed', '300'], { timeoutMs: 30_000 });
    expect(r.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.stdout).toContain('PR #103 testing -> pending_failure');
    expect(r.stdout).toContain('PR #103 pending_failure -> failed');
    // The PRs tested on top of the breaking one go back and are tested again without it.
    expect(r.stdout).toContain('PR #104 pending_failure -> pending  (prerequisite merge item failed)');
    expect(r.stdout).toContain('PR #105 pending_failure -> pending  (prerequisite merge item failed)');
    // The flaky PR is rescued by a successor's passing run (optimistic merging).
    expect(r.stdout).toContain('PR #105 testing -> tests_passed  (successor test run passed)');
    expect(r.stdout).toMatch(/summary: 7 merged, 1 failed, 10 test runs, 2 restarts/);
    expect(r.stdout).toMatch(/metrics: depth 0, testing 0, conclusions merged 7, failed 1/);
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('--json prints one document with the outcome of every PR', async () => {
    const r = await runCli(['demo', '--seed', '1', '--speed', '1000', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ merged: 7, failed: 1, testRuns: 10, restarts: 2 });
    expect(doc.prs.find((p: { pr: number }) => p.pr === 103).state).toBe('failed');
  });

  it('on a terminal it redraws the table in place', async () => {
    const io = Object.assign(stringIO(), { stdoutIsTTY: true });
    const ctx = new Context({ env: baseEnv(), io, cwd: '/' });
    const code = await run(ctx, ['demo', '--seed', '1', '--speed', '1000']);
    expect(code).toBe(0);
    const out = io.stdout.join('');
    expect(out).toMatch(/\x1b\[\d+A\x1b\[0J/);
    const lastFrame = out.slice(out.lastIndexOf('mq demo'));
    expect(lastFrame).toContain('#108');
    expect(lastFrame.match(/merged/g)?.length).toBeGreaterThanOrEqual(7);
  });

  it('a bad --speed is a usage error', async () => {
    const r = await runCli(['demo', '--speed', '0']);
    expect(r.exitCode).toBe(2);
  });
});

describe('demo frame', () => {
  it('renders rows and change lines', () => {
    const rows = frameRows([{ pr: DEMO_PRS[2]!, state: 'failed', since: 0 }], 90_000);
    expect(rows[0]).toEqual(['#103', 'Rename the billing job', 'linus', { value: 'failed', paint: expect.any(Function) }, '1m 30s', 'breaks the build']);
    expect(changeLine(DEMO_PRS[0]!, 'testing', 'merged', 540_000)).toBe('+9m       PR #101 testing -> merged');
    expect(changeLine(DEMO_PRS[0]!, 'tests_passed', 'merged', 0, 'MERGE_GRAPH_MERGE')).toBe('+0s       PR #101 tests_passed -> merged  (merge graph merge)');
  });
});
