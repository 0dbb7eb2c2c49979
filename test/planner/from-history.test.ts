/**
 * `mq queue simulate --from-history` against the in-process emulator on a manual clock, with a
 * scripted workload whose fitted inputs are known:
 *
 * Queue: concurrency 1, no batching. PR n (1..30) is submitted at T0 + 30(n-1) minutes; odd PRs'
 * runs take 8 minutes, even ones 12, so every PR is tested alone as soon as it arrives. #7 breaks
 * the build; #13 is flaky (its first run fails, a rerun on the same commit passes: it is
 * resubmitted 12 minutes after its submission). The clock stops at T0 + 900 min; the window is
 * the last 16 hours, so it starts an hour before the first PR.
 *
 * Known answers: 30 merged-or-failed PRs in 16 h = 1.875/h, flat (under 3 days); 31 runs (16 of 8
 * minutes, 15 of 12) = mean 308/31 min with a spread (CV) of sd/mean; 2 PRs with a failure of their
 * own, 1 of them healed: real failure rate 1/30, flake rate 1 flaky run / 31 runs. Measured: 29
 * merged in 16 h; time to merge p50 about 12 minutes (an even PR's run, as half the PRs are even).
 * Tolerances: the fitted rates and counts are exact (to the 4 decimals the fit keeps); test-time
 * mean and spread within 0.01 (the emulator's admission steps happen in the same minute); the
 * measured p50 within 2 minutes.
 */
import { describe, expect, it } from 'vitest';
import { T0 } from '../emulator/http-helpers.js';
import { useWorkloadEmulator } from '../helpers/emulator-workload.js';
import { runMq } from '../helpers/in-process.js';

const { env } = useWorkloadEmulator({
  concurrency: 1,
  prs: 30,
  pr: (n) => ({ testMinutes: n % 2 === 1 ? 8 : 12, breaksBuild: n === 7, outcomes: n === 13 ? ['fail', 'pass'] : [] }),
  // #13's first run fails at 8 minutes: resubmitted at 12.
  gap: (n) => (n === 13 ? [12, 18] : 30),
  until: 900,
});
const ARGS = ['queue', 'simulate', '--from-history', '16h', '--runs', '4', '--jobs', '1'];

describe('mq queue simulate --from-history on a known workload', () => {
  it('fits the inputs and backtests them (JSON)', async () => {
    const r = await runMq([...ARGS, '--compare', 'concurrency=2', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^fitted from 16h of history \(30 merged or failed PRs, 31 finished test runs, cancelled ones left out\): 1\.88 PRs\/h flat/m,
    );
    const doc = JSON.parse(r.stdout);
    const f = doc.inputs.fitted;
    expect(f.window.hours).toBe(16);
    expect(Math.abs(Date.parse(f.window.until) - (T0 + 900 * 60_000))).toBeLessThanOrEqual(5_000); // the service's clock, read from its Date header
    expect(f.arrivalsShape).toBe('flat');
    expect(f.arrivalsByHourOfDay).toBeNull();
    expect(f.arrivalsPerHour).toBe(1.875);
    expect(f.samples).toEqual({
      prs: 30,
      merged: 29,
      failed: 1,
      cancelled: 0,
      runs: 31,
      prsWithOwnFailure: 2,
      flakyRuns: 1,
      flakyPrs: 1,
    });
    const durations = [...Array(16).fill(8), ...Array(15).fill(12)] as number[];
    const mean = 308 / 31;
    const sd = Math.sqrt(durations.reduce((s, x) => s + (x - mean) ** 2, 0) / 30);
    expect(Math.abs(f.testMinutes - mean)).toBeLessThanOrEqual(0.01);
    expect(Math.abs(f.testTimeSpread - sd / mean)).toBeLessThanOrEqual(0.01);
    expect(f.failureRate).toBeCloseTo(1 / 30, 4);
    expect(f.flakeRate).toBeCloseTo(1 / 31, 4);
    // The simulation ran on the fitted inputs, over the window.
    expect(doc.inputs.arrivalsPerHour).toBe(1.875);
    expect(doc.inputs.durationHours).toBe(16);
    expect(doc.inputs.baseline).toBe('queue');
    expect(doc.results[0].settings).toMatchObject({ concurrency: 1, batch: false });

    const b = doc.backtest;
    expect(b.measured.mergedPerHour).toBe(1.81); // 29 / 16, as queue stats rounds it
    expect(Math.abs(b.measured.timeToMergeP50 - 12 * 60)).toBeLessThanOrEqual(120);
    expect(b.simulated.mergedPerHour).toBeGreaterThan(0);
    expect(b.simulated.timeToMergeP50).toBeGreaterThan(0);
    // The error is what it says: |simulated - measured| / measured.
    expect(b.error.mergedPerHour).toBeCloseTo(
      Math.abs(b.simulated.mergedPerHour - b.measured.mergedPerHour) / b.measured.mergedPerHour,
      3,
    );
    expect(b.error.timeToMergeP50).toBeCloseTo(
      Math.abs(b.simulated.timeToMergeP50 - b.measured.timeToMergeP50) / b.measured.timeToMergeP50,
      3,
    );
    expect(doc.results.map((x: { withinModelError: boolean }) => typeof x.withinModelError)).toEqual([
      'boolean',
      'boolean',
    ]);
    expect(doc.results[0].withinModelError).toBe(false);
  });

  it('prints the backtest and the fitted inputs in the table', async () => {
    const r = await runMq([...ARGS, '-o', 'table'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^fitted from history: 1\.88 PRs\/h/m);
    // The fitted workload once: in the inputs line, and what was read; not again on stderr.
    expect(r.stdout.match(/^fitted from/gm)).toHaveLength(1);
    expect(r.stdout).toMatch(
      /^history read: .* \(16h\), 30 merged or failed PRs, 31 finished test runs \(cancelled ones left out\); PRs that failed on their own \(not merged on that commit\): 1, only by flakes .*: 1;/m,
    );
    expect(r.stderr).not.toMatch(/fitted from/);
    // The backtest: every figure of the table, measured against simulated, with its error in percent.
    expect(r.stdout).toMatch(/^│ Backtest +│ Measured +│ Simulated +│ Error +│$/m);
    expect(r.stdout).toMatch(/^│ Merged\/h +│ 1\.81 +│ \d+\.\d\d +│ [\d.]+% +│$/m);
    expect(r.stdout).toMatch(/^│ TTM p50 +│ 1[0-4]m +│ \d+m +│ [\d.]+% +│$/m);
    for (const figure of ['TTM p95', 'Runs/PR', 'Test min/PR', 'Depth', 'Failed/d real', 'Failed/d flaky']) {
      expect(r.stdout).toMatch(
        new RegExp(`^│ ${figure.replace('/', '\\/')} +│ [\\d.]+[mh]? +│ [\\d.]+[mh]? +│ [\\d.]+% +│$`, 'm'),
      );
    }
  });

  it('refuses a window with too little history, naming the flag', async () => {
    const r = await runMq(['queue', 'simulate', '--from-history', '1h'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(
      /^mq: usage: --from-history: the window holds \d+ merged or failed PRs and \d+ test runs; the fit needs at least 10 and 5/,
    );
  });
});

describe('mq queue simulate --from-history: usage errors, before anything is sent', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--from-history', '14d', '--arrivals', '20/h'], /--from-history cannot be used with --arrivals/],
    [['--from-history', '14d', '--test-time', '30m'], /--from-history cannot be used with --test-time/],
    [['--from-history', '14d', '--failure-rate', '5%'], /--from-history cannot be used with --failure-rate/],
    [['--from-history', '14d', '--flake-rate', '1%'], /--from-history cannot be used with --flake-rate/],
    [['--from-history', '14d', '--test-time-spread', '10%'], /--from-history cannot be used with --test-time-spread/],
    [['--from-history', '46d'], /--from-history: "46d" must be from 1h to 45d/],
    [['--from-history', 'lately'], /--from-history: "lately" is not a duration/],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')}: exit 2, one line`, async () => {
      // No service behind this address: a request would fail with another exit code.
      const r = await runMq(['queue', 'simulate', ...args], { env: { ...env, MQ_API_URL: 'http://127.0.0.1:9/v1' } });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      const first = r.stderr.split('\n')[0] as string;
      expect(first).toMatch(/^mq: usage: /);
      expect(first).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
