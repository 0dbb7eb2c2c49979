/**
 * `mq queue eta-check` in-process against the emulator on a manual clock, on a workload with known
 * answers: concurrency 1, no batching; PR n (1..30) submitted every 30 minutes and tested alone at
 * once, odd PRs' runs 8 minutes, even ones 12; #7 breaks the build. So every merged PR's time in
 * queue is its test time, and the fitted test time is about 10 minutes with a small spread: the p90
 * covers most merges, the p50 about the odd half, and the error is about 2 minutes. PRs #1..#5 have
 * fewer than 5 finished runs before them (too little to fit): skipped.
 */
import { describe, expect, it } from 'vitest';
import { useWorkloadEmulator } from '../../../helpers/emulator-workload.js';
import { runMq } from '../../../helpers/in-process.js';

const { env } = useWorkloadEmulator({
  concurrency: 1,
  prs: 30,
  pr: (n) => ({ testMinutes: n % 2 === 1 ? 8 : 12, breaksBuild: n === 7 }),
  gap: () => 30,
});

describe('mq queue eta-check', () => {
  it('estimates each merged PR as the queue stood at its submission (JSON)', async () => {
    const r = await runMq(['queue', 'eta-check', '--since', '1d', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.runs).toBe(100);
    expect(doc.rows).toHaveLength(3);
    for (const row of doc.rows) {
      expect(row).toMatchObject({ count: 24, skipped: 5, medianTimeInQueueSec: 720 });
      // A 12-minute run sits at the fitted p90 (about 12 to 13 minutes): most, not all, are within it.
      expect(row.withinP90).toBeGreaterThanOrEqual(0.85);
      expect(row.withinP50).toBeGreaterThan(0.3);
      expect(row.withinP50).toBeLessThan(0.7);
      expect(row.medianAbsErrorSec).toBeGreaterThan(60);
      expect(row.medianAbsErrorSec).toBeLessThan(180);
      expect(row.medianRelError).toBeCloseTo(row.medianAbsErrorSec / 600, 0);
    }
  });

  it('a table with a line saying what the figures mean; plain rows; markdown', async () => {
    const table = await runMq(['queue', 'eta-check', '--since', '1d', '-o', 'table'], { env });
    expect(table.exitCode, table.stderr).toBe(0);
    const header = '│ History │ PRs │ Within p90 │ Within p50 │ Median error │ Error/time │';
    expect(table.stdout).toContain(header);
    expect(
      Math.max(
        ...table.stdout
          .split('\n')
          .filter((l) => l.startsWith('│'))
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(80);
    expect(table.stdout).toMatch(/Skipped for too little history before them: 5 \/ 5 \/ 5 PRs \(1d \/ 3d \/ 7d\)\./);
    expect(table.stdout).toMatch(/│ 1d +│ 24 +│ \d+(\.\d)?% +│ \d+(\.\d)?% +│ \dm \d+s +│/);
    expect(table.stdout).toMatch(/within p90\/p50: share of merges at or before/);
    const plain = await runMq(['queue', 'eta-check', '--since', '1d', '-o', 'plain'], { env });
    const rows = plain.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((x) => x.slice(0, 3))).toEqual([
      ['1', '24', '5'],
      ['3', '24', '5'],
      ['7', '24', '5'],
    ]);
    const md = await runMq(['queue', 'eta-check', '--since', '1d', '-o', 'markdown'], { env });
    expect(md.stdout).toMatch(/^\| History \| PRs \| Within p90 \|/m);
  });

  it('bad input: one line naming the flag, exit 2', async () => {
    for (const [args, msg] of [
      [['--since', 'soon'], /--since: "soon" is neither an ISO 8601 time nor a duration/],
      [['--since', '1h', '--until', '2h'], /--since: the window is empty/],
      [['--since', '60d'], /--since: the window may span at most 45 days/],
    ] as const) {
      const r = await runMq(['queue', 'eta-check', ...args], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
