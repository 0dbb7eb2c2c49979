/**
 * The fit and the backtest of `mq queue simulate --from-history` on a workload built on the
 * in-process emulator (manual clock): 408 PRs over 72 hours, one every 10 or 11 minutes, tested alone
 * (concurrency 6, no batching) for 20 to 40 minutes (30 on average). Every 20th PR breaks the build
 * (#20, #40, ... : 20 PRs, 5%); every 20th from #10 fails once and passes when resubmitted on the
 * same commit (20 PRs, 5%, flaky). Known answers: 20 of 408 PRs fail on their own (4.9%), the
 * fail-once PRs are flaky, not failures; the backtest covers every figure the table shows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, chromium, overlaps, svgTextBoxes } from '../../../helpers/chromium.js';
import { flakyWorkload, useWorkloadEmulator } from '../../../helpers/emulator-workload.js';
import { runMq } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/run-cli.js';

const PRS = 408;

const { env } = useWorkloadEmulator({ ...flakyWorkload, concurrency: 6, prs: PRS, until: 72 * 60 });
const FIGURES = [
  'mergedPerHour',
  'timeToMergeP50',
  'timeToMergeP95',
  'runsPerMergedPr',
  'testMinutesPerMergedPr',
  'meanDepth',
  'failedPerDayReal',
  'failedPerDayFlaky',
];

describe('mq queue simulate --from-history 3d on 408 PRs, 5% breaking and 5% failing once', () => {
  it("fits a PR's own failures apart from flaky ones, and backtests every figure of the table", async () => {
    const r = await runMq(['queue', 'simulate', '--from-history', '3d', '--runs', '8', '--jobs', '1', '--json'], {
      env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const f = doc.inputs.fitted;
    expect(f.samples).toMatchObject({
      prs: PRS,
      merged: PRS - 20,
      failed: 20,
      prsWithOwnFailure: 40,
      flakyPrs: 20,
      flakyRuns: 20,
    });
    expect(f.failureRate).toBeCloseTo(20 / PRS, 4); // 4.9%: the breaking PRs only
    expect(f.flakeRate).toBeCloseTo(20 / f.samples.runs, 4);
    const b = doc.backtest;
    expect(Object.keys(b.measured).sort()).toEqual([...FIGURES].sort());
    expect(b.measured.failedPerDayReal).toBeCloseTo(20 / 3, 3);
    expect(b.measured.failedPerDayFlaky).toBeCloseTo(20 / 3, 3);
    for (const k of FIGURES) {
      expect(b.measured[k], k).toBeGreaterThan(0);
      expect(b.simulated[k], k).toBeGreaterThan(0);
      expect(b.error[k], k).toBeCloseTo(Math.abs(b.simulated[k] - b.measured[k]) / b.measured[k], 3);
    }
    // The breaking PRs the model fails per day, within 25% of the measured.
    expect(b.error.failedPerDayReal).toBeLessThan(0.25);
    expect(b.error.mergedPerHour).toBeLessThan(0.15);
  }, 120_000);

  it.skipIf(CHROMIUM === undefined)(
    'the HTML report shows the fitted inputs and the backtest table (headless Chromium)',
    async () => {
      const file = join(tempDir('mq-report-'), 'plan.html');
      const args = [
        'queue',
        'simulate',
        '--from-history',
        '3d',
        '--runs',
        '4',
        '--jobs',
        '1',
        '--compare',
        'concurrency=4',
        '--html',
        file,
      ];
      const r = await runMq(args, { env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).not.toMatch(/<script/i);
      const dom = chromium(['--dump-dom', `file://${file}`]);
      expect(dom).toMatch(/<th>Fitted input<\/th>/);
      expect(dom).toMatch(/<td>Fail on their own<\/td><td>4\.9% of PRs/);
      expect(dom).toMatch(/<th>Backtest<\/th><th>Measured<\/th><th>Simulated<\/th><th>Error<\/th>/);
      for (const figure of [
        'Merged/h',
        'TTM p50',
        'TTM p95',
        'Runs/PR',
        'Test min/PR',
        'Depth',
        'Failed/d real',
        'Failed/d flaky',
      ]) {
        expect(dom).toMatch(
          new RegExp(
            `<tr><td>${figure.replace('/', '\\/')}</td><td>[\\d.]+[mh]?</td><td>[\\d.]+[mh]?</td><td>[\\d.]+%</td></tr>`,
          ),
        );
      }
      const boxes = svgTextBoxes(file);
      expect(boxes.filter((b) => b.cls.includes('axis') && b.w > 0).length).toBeGreaterThan(40);
      expect(overlaps(boxes)).toEqual([]);
    },
    120_000,
  );
});
