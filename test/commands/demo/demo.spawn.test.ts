import { describe, expect, it } from 'vitest';
import { summarizeMergeQueueMetrics } from '../../../src/api/merge-queue-metrics.js';
import { parseExposition } from '../../../src/api/prometheus.js';
import { Context } from '../../../src/context.js';
import { run } from '../../../src/run.js';
import { changeLine, frameRows } from '../../../src/demo/frame.js';
import { DEMO_PRS } from '../../../src/demo/cast.js';
import { displayWidth } from '../../../src/output/width.js';
import { memoryIO } from '../../helpers/memory-io.js';
import { baseEnv, runCli } from '../../helpers/run-cli.js';

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
    // Restarts are the service's (runs cut short, as the metrics count them); the PRs sent back
    // after #103 failed are counted apart.
    expect(r.stdout).toMatch(/summary: 7 merged, 1 failed, 10 test runs, 0 restarts, 2 retested after a failure ahead/);
    expect(r.stdout).toMatch(/metrics: depth 0, testing 0, conclusions merged 7, failed 1/);
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('--json prints one document with the outcome of every PR', async () => {
    const r = await runCli(['demo', '--seed', '1', '--speed', '1000', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ merged: 7, failed: 1, testRuns: 10, restarts: 0, retests: 2 });
    // The document's restarts are the metrics' restarts.
    const fromMetrics = /^mq_pr_restarts_1h_total\{[^}]*queue_type="main"\} (\d+)$/m.exec(doc.metrics)?.[1];
    expect(fromMetrics).toBeDefined();
    expect(doc.restarts).toBe(Number(fromMetrics));
    expect(doc.prs.find((p: { pr: number }) => p.pr === 103).state).toBe('failed');
    // No PR was in the queue longer than the demo ran: the time-in-queue percentiles say so too.
    const [queue] = summarizeMergeQueueMetrics(parseExposition(doc.metrics));
    const inQueue = queue?.histograms.timeInQueue;
    expect(inQueue?.count).toBe(8);
    expect(inQueue?.p90).toBeLessThanOrEqual(doc.emulatedMinutes * 60 + 30);
  });

  it('the summary and the metrics it shows agree on restarts', async () => {
    const r = await runCli(['demo', '--seed', '3', '--speed', '1000']);
    expect(r.exitCode).toBe(0);
    const summary = /summary: .*?, (\d+) restarts/.exec(r.stdout)?.[1];
    const metrics = /metrics: .*, restarts (\d+)/.exec(r.stdout)?.[1];
    expect(summary).toBeDefined();
    expect(summary).toBe(metrics);
  });

  it('on a terminal it draws on the alternate screen and leaves the last frame on the normal one', async () => {
    const io = memoryIO({ stdoutIsTTY: true, columns: 60, rows: 12 });
    const ctx = new Context({ env: baseEnv(), io, cwd: '/' });
    const code = await run(ctx, ['demo', '--seed', '1', '--speed', '1000']);
    expect(code).toBe(0);
    const out = io.stdout;
    expect(out.startsWith('\x1b[?1049h\x1b[?25l')).toBe(true);
    expect(out.match(/\x1b\[\?1049h/g)).toHaveLength(1);
    // Frames are drawn from the top, clipped to the 12 rows: 8 PRs do not fit with the title and borders.
    const frames = out.slice(0, out.indexOf('\x1b[?1049l')).split('\x1b[H').slice(1);
    expect(frames.length).toBeGreaterThan(3);
    for (const f of frames) {
      const lines = f.split('\n');
      expect(lines.length).toBeLessThanOrEqual(12);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    }
    expect(frames.at(-1)).toMatch(/… \d+ more/);
    // Then once back on the normal screen (cursor shown): the whole last frame, then the summary.
    const after = out.slice(out.indexOf('\x1b[?1049l\x1b[?25h') + '\x1b[?1049l\x1b[?25h'.length);
    expect(after).not.toContain('\x1b[');
    expect(after.match(/mq demo · /g)).toHaveLength(1);
    expect(after).toContain('#108');
    expect(after.match(/merged/g)?.length).toBeGreaterThanOrEqual(7);
    expect(after).toContain('summary: 7 merged');
    for (const l of after.split('\n').slice(0, 12)) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    expect(io.exitTexts).toEqual([]);
  });

  it('Ctrl-C on a terminal still leaves the alternate screen and shows the cursor', async () => {
    const io = memoryIO({ stdoutIsTTY: true });
    const controller = new AbortController();
    const out = io.out.bind(io);
    io.out = (text: string) => {
      out(text);
      // Pressed once the second frame is up.
      if ((io.stdout.match(/\x1b\[H/g)?.length ?? 0) >= 2) controller.abort();
    };
    const ctx = new Context({ env: baseEnv(), io, cwd: '/', signal: controller.signal });
    const code = await run(ctx, ['demo', '--seed', '1', '--speed', '1000']);
    expect(code).toBe(130);
    expect(io.stdout).toContain('\x1b[?1049h');
    // Left once, after the last frame, with the cursor shown again.
    expect(io.stdout.match(/\x1b\[\?1049l\x1b\[\?25h/g)).toHaveLength(1);
    expect(io.stdout.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(io.stdout.lastIndexOf('\x1b[H'));
    expect(io.stdout.slice(io.stdout.lastIndexOf('\x1b[?25h'))).toContain('#108');
    expect(io.exitTexts).toEqual([]);
  });

  it('a bad --speed is a usage error', async () => {
    const r = await runCli(['demo', '--speed', '0']);
    expect(r.exitCode).toBe(2);
  });
});

describe('demo frame', () => {
  it('renders rows and change lines', () => {
    const rows = frameRows([{ pr: DEMO_PRS[2]!, state: 'failed', since: 0 }], 90_000);
    expect(rows[0]).toEqual([
      '#103',
      'Rename the billing job',
      'linus',
      { value: 'failed', paint: expect.any(Function) },
      '1m 30s',
      'breaks the build',
    ]);
    expect(changeLine(DEMO_PRS[0]!, 'testing', 'merged', 540_000)).toBe('+9m       PR #101 testing -> merged');
    expect(changeLine(DEMO_PRS[0]!, 'tests_passed', 'merged', 0, 'MERGE_GRAPH_MERGE')).toBe(
      '+0s       PR #101 tests_passed -> merged  (merge graph merge)',
    );
  });
});
