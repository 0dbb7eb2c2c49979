/**
 * The pure parts of `mq queue simulate --from-history`: fitting the workload to history shapes
 * (ConcludedPr / TestAttempt, as src/stats/fetch.ts returns them), the hour-of-day arrivals the
 * driver then draws, the backtest error, and the "within the model's error" rule with what it does
 * to the recommendation and the views.
 */
import { describe, expect, it } from 'vitest';
import { nextArrivalAfter } from '../../src/planner/driver.js';
import {
  backtestOf,
  fitHistory,
  PROFILE_MIN_PRS,
  profileFrom,
  WEEK_PROFILE_MIN_PRS,
  withinModelError,
} from '../../src/planner/history.js';
import { markWithinError, type RowResult, type SimulateResult } from '../../src/planner/index.js';
import type { SimInputs, SimSettings } from '../../src/planner/model.js';
import { uniform } from '../../src/planner/random.js';
import type { Estimate } from '../../src/planner/stats.js';
import type { ConcludedPr, TestAttempt } from '../../src/stats/model.js';
import { rowLabel, simulatePlainLines, simulateRows } from '../../src/views/simulate.js';

const H = 3_600_000;
const MIN = 60_000;
const T = Date.UTC(2026, 2, 2); // a Monday, 00:00 UTC

/** One PR tested alone: submitted at `at`, a run of `minutes`, then merged (or failed). */
function alone(
  n: number,
  at: number,
  minutes: number,
  state: 'merged' | 'failed' = 'merged',
): { pr: ConcludedPr; attempt: TestAttempt } {
  const end = at + minutes * MIN;
  return {
    pr: { number: n, state, submittedAt: at, concludedAt: end },
    attempt: {
      runId: `r${n}`,
      prNumber: n,
      startedAt: at,
      finishedAt: end,
      result: state === 'merged' ? 'passed' : 'failed',
      bisection: false,
      sha: `s${n}`,
    },
  };
}

/** Another run of `a`'s PR (on the same commit unless told) that failed. */
const failedRun = (a: TestAttempt, runId: string, startedAt: number, finishedAt: number): TestAttempt => ({
  ...a,
  runId,
  startedAt,
  finishedAt,
  result: 'failed',
});

describe('fitHistory', () => {
  it('a flat workload: rate, test time mean and spread, real failures and flaky runs (exact)', () => {
    // One PR every 30 minutes for 2 days (96 PRs); runs alternate 20 and 40 minutes; the window (49 h) holds all their ends.
    const window = { since: T, until: T + 49 * H };
    const prs: ConcludedPr[] = [];
    const attempts: TestAttempt[] = [];
    for (let i = 0; i < 96; i++) {
      const n = i + 1;
      const { pr, attempt } = alone(
        n,
        T + i * 30 * MIN,
        i % 2 === 0 ? 20 : 40,
        n === 10 || n === 20 ? 'failed' : 'merged',
      );
      prs.push(pr);
      attempts.push(attempt);
    }
    // #30 flaky: a failed run of its own, then a pass on the same commit (2 runs for 1 PR).
    const f = attempts[29] as TestAttempt;
    attempts.push(failedRun(f, 'r30-first', f.startedAt - 25 * MIN, f.startedAt - 5 * MIN));
    // #40 failed, then passed on a NEW commit: a real failure, not a flake.
    const g = attempts[39] as TestAttempt;
    attempts.push({ ...failedRun(g, 'r40-first', g.startedAt - 25 * MIN, g.startedAt - 5 * MIN), sha: 'old' });
    // A failed batch run of #50 and #51 is nobody's own failure; a cancelled run has no duration to fit.
    for (const prNumber of [50, 51]) {
      attempts.push({
        runId: 'batch',
        prNumber,
        startedAt: T + 10 * H,
        finishedAt: T + 10 * H + 30 * MIN,
        result: 'failed',
        bisection: false,
      });
    }
    attempts.push({
      runId: 'gone',
      prNumber: 52,
      startedAt: T + 11 * H,
      finishedAt: T + 11 * H + 3 * MIN,
      result: 'cancelled',
      bisection: false,
    });
    // A cancelled PR is not an arrival the model knows.
    prs.push({ number: 500, state: 'cancelled', submittedAt: T + H, concludedAt: T + 2 * H });

    const fit = fitHistory(window, prs, attempts);
    expect(fit.arrivalsPerHour).toBeCloseTo(96 / 49, 3);
    expect(fit.arrivalsShape).toBe('flat');
    expect(fit.arrivalsByHourOfDay).toBeNull();
    const durations = [...Array(48).fill(20), ...Array(48).fill(40), 20, 20, 30];
    const mean = durations.reduce((a, b) => a + b, 0) / durations.length;
    const sd = Math.sqrt(durations.reduce((s, x) => s + (x - mean) ** 2, 0) / (durations.length - 1));
    expect(fit.testMinutes).toBeCloseTo(mean, 3);
    expect(fit.testTimeSpread).toBeCloseTo(sd / mean, 3);
    // Own failures: #10, #20, #30 (healed), #40 (new commit): 3 real of 96.
    expect(fit.failureRate).toBeCloseTo(3 / 96, 3);
    expect(fit.flakeRate).toBeCloseTo(1 / 99, 3);
    expect(fit.samples).toEqual({
      prs: 96,
      merged: 94,
      failed: 2,
      cancelled: 1,
      runs: 99,
      prsWithOwnFailure: 4,
      flakyRuns: 1,
      flakyPrs: 1,
    });
  });

  it("a PR's own failure (not merged on that commit) apart from a flaky one (passed later, or merged, on that commit)", () => {
    // 20 PRs tested alone, one an hour, all merged but #5 (failed: its own failure).
    const window = { since: T, until: T + 24 * H };
    const all = Array.from({ length: 20 }, (_, i) => alone(i + 1, T + i * H, 20, i + 1 === 5 ? 'failed' : 'merged'));
    const prs = all.map((x) => x.pr);
    const attempts = all.map((x) => x.attempt);
    const at = (n: number) => (all[n - 1] as { attempt: TestAttempt }).attempt;
    // #8 failed, and its rerun on the same commit had started before that failure was reported; it merged: flaky.
    attempts.push(failedRun(at(8), 'r8-a', at(8).startedAt - 10 * MIN, at(8).startedAt + 5 * MIN));
    // #12 flaked and passed on a rerun, then failed on its own again on that commit, and was not merged: its own failure.
    prs[11] = { ...(prs[11] as ConcludedPr), state: 'failed', concludedAt: at(12).finishedAt + 30 * MIN };
    attempts.push(failedRun(at(12), 'r12-a', at(12).startedAt - 25 * MIN, at(12).startedAt - 5 * MIN));
    attempts.push(failedRun(at(12), 'r12-c', at(12).finishedAt + 5 * MIN, at(12).finishedAt + 25 * MIN));
    const fit = fitHistory(window, prs, attempts);
    expect(fit.samples).toMatchObject({ prs: 20, failed: 2, prsWithOwnFailure: 3, flakyPrs: 1, flakyRuns: 2 });
    expect(fit.failureRate).toBe(2 / 20); // #5 and #12
    expect(fit.flakeRate).toBeCloseTo(2 / 23, 4); // #8's and #12's first failures
  });

  it('an hour-of-day profile with at least 3 days and enough PRs; flat below either', () => {
    // 7 days: 6 PRs an hour from 09:00 to 17:00 UTC, 1 an hour otherwise.
    const build = (days: number, busy: number) => {
      const prs: ConcludedPr[] = [];
      let n = 0;
      for (let h = 0; h < days * 24; h++) {
        const k = h % 24 >= 9 && h % 24 < 17 ? busy : 1;
        for (let j = 0; j < k; j++) prs.push(alone(++n, T + h * H + (j * H) / k + MIN, 5).pr);
      }
      return prs;
    };
    const week = { since: T, until: T + 7 * 24 * H };
    const fit = fitHistory(week, build(7, 6), []);
    expect(fit.arrivalsShape).toBe('hour-of-day');
    const byHour = fit.arrivalsByHourOfDay as number[];
    expect(byHour).toHaveLength(24);
    for (let h = 0; h < 24; h++) expect(byHour[h]).toBe(h >= 9 && h < 17 ? 6 : 1);
    expect(fit.arrivalsPerHour).toBeCloseTo((8 * 6 + 16) / 24, 4);
    // The profile the driver gets starts at the window's first hour.
    const shifted = profileFrom({
      ...fit,
      window: { ...fit.window, since: new Date(T + 9 * H).toISOString() },
    }) as number[];
    expect(shifted.slice(0, 9)).toEqual(Array(8).fill(6).concat([1]));

    // Two days: flat whatever the count.
    expect(fitHistory({ since: T, until: T + 48 * H }, build(2, 6), []).arrivalsShape).toBe('flat');
    // A week with fewer PRs than the profile needs: flat.
    const sparse = build(7, 1).filter((_, i) => i % 2 === 0);
    expect(sparse.length).toBeLessThan(PROFILE_MIN_PRS);
    expect(fitHistory(week, sparse, []).arrivalsShape).toBe('flat');
  });
});

describe('weekday patterns', () => {
  // Three weeks from a Monday: 4 PRs an hour on weekdays, none on Saturday and Sunday.
  const weeks = (n: number, perHour = 4) => {
    const prs: ConcludedPr[] = [];
    let k = 0;
    for (let h = 0; h < n * 7 * 24; h++) {
      const day = new Date(T + h * H).getUTCDay();
      if (day === 0 || day === 6) continue;
      for (let j = 0; j < perHour; j++) prs.push(alone(++k, T + h * H + (j * H) / perHour + MIN, 5).pr);
    }
    return prs;
  };

  it('an hour-of-week profile with two weeks and enough PRs: weekends apart from weekdays', () => {
    const fit = fitHistory({ since: T, until: T + 21 * 24 * H }, weeks(3), []);
    expect(fit.samples.prs).toBeGreaterThanOrEqual(WEEK_PROFILE_MIN_PRS);
    expect(fit.arrivalsShape).toBe('hour-of-week');
    const byWeek = fit.arrivalsByHourOfWeek as number[];
    expect(byWeek).toHaveLength(168);
    // Index = UTC day of week (0 = Sunday) x 24 + hour.
    for (let i = 0; i < 168; i++) expect(byWeek[i], `slot ${i}`).toBe(i < 24 || i >= 144 ? 0 : 4);
    expect(fit.arrivalsByHourOfDay).toBeNull();
    // The driver's profile starts at the window's first hour: Monday 00:00 is slot 24.
    const profile = profileFrom(fit) as number[];
    expect(profile).toHaveLength(168);
    expect(profile.slice(0, 5 * 24).every((r) => r === 4)).toBe(true);
    expect(profile.slice(5 * 24).every((r) => r === 0)).toBe(true);
  });

  it('one week is an hour-of-day profile, not a weekly one', () => {
    const fit = fitHistory({ since: T, until: T + 7 * 24 * H }, weeks(1), []);
    expect(fit.arrivalsShape).toBe('hour-of-day');
    expect(fit.arrivalsByHourOfWeek).toBeNull();
  });

  it('the driver draws no arrivals on the closed days of a weekly profile', () => {
    const profile = Array.from({ length: 168 }, (_, i) => (i < 120 ? 6 : 0));
    const inputs = { arrivalsPerHour: (6 * 120) / 168, arrivalProfile: profile } as SimInputs;
    const T0 = Date.UTC(2026, 0, 5);
    let t = T0;
    let open = 0;
    for (let n = 1; ; n++) {
      t = nextArrivalAfter(inputs, t, -Math.log(uniform(7, 1, n)));
      if (t >= T0 + 4 * 168 * H) break;
      const slot = Math.floor((t - T0) / H) % 168;
      expect(slot, `an arrival at hour ${slot} of the week`).toBeLessThan(120);
      open++;
    }
    // 4 weeks x 120 open hours x 6/h = 2880 (sd about 54).
    expect(Math.abs(open - 2880) / 2880).toBeLessThanOrEqual(0.05);
  });
});

describe('hour-of-day arrivals in the driver', () => {
  it("draws arrivals at each hour's rate: none in a closed hour, each block of hours within 5% of the profile", () => {
    const profile = Array.from({ length: 24 }, (_, h) => (h < 6 ? 0 : h < 12 ? 30 : 10));
    const inputs = { arrivalsPerHour: 15, arrivalProfile: profile } as SimInputs;
    const T0 = Date.UTC(2026, 0, 5);
    const counts = new Array<number>(24).fill(0);
    let t = T0;
    const days = 40;
    for (let n = 1; ; n++) {
      t = nextArrivalAfter(inputs, t, -Math.log(uniform(99, 1, n)));
      if (t >= T0 + days * 24 * H) break;
      const h = Math.floor((t - T0) / H) % 24;
      counts[h] = (counts[h] as number) + 1;
    }
    const block = (a: number, b: number) => counts.slice(a, b).reduce((s, x) => s + x, 0);
    expect(block(0, 6)).toBe(0);
    // 6 h x 30/h x 40 days = 7200 (sd about 85); 12 h x 10/h x 40 days = 4800 (sd about 69).
    expect(Math.abs(block(6, 12) - 7200) / 7200).toBeLessThanOrEqual(0.05);
    expect(Math.abs(block(12, 24) - 4800) / 4800).toBeLessThanOrEqual(0.05);
  });

  it('without a profile, the flat gap the planner always drew', () => {
    const inputs = { arrivalsPerHour: 20 } as SimInputs;
    expect(nextArrivalAfter(inputs, 1000, 0.5)).toBe(1000 + Math.round(0.5 * (H / 20)));
  });
});

const est = (mean: number, half = 0): Estimate => ({ mean, lo: mean - half, hi: mean + half });
function row(label: string, mergedPerHour: number, p50min: number, testMin = 30): RowResult {
  return {
    label,
    settings: { concurrency: 1 } as SimSettings,
    keepsUp: true,
    mergedPerHour: est(mergedPerHour),
    timeToMerge: { p50: est(p50min * 60, 0.5 * 60), p95: est(p50min * 120, 60), points: [], distribution: [] },
    runsPerMergedPr: est(1),
    testMinutesPerMergedPr: est(testMin),
    meanDepth: est(3),
    failedPerDay: { real: est(2), flaky: est(1) },
    backlogAtEnd: est(0),
  };
}

describe("backtest error and the model's error", () => {
  it('the error is |simulated - measured| / measured per figure; none when nothing was measured', () => {
    const b = backtestOf({ mergedPerHour: 2, timeToMergeP50: 1200 }, { mergedPerHour: 1.8, timeToMergeP50: 1500 });
    expect(b.error).toMatchObject({ mergedPerHour: 0.1, timeToMergeP50: 0.25, timeToMergeP95: null });
    expect(
      backtestOf({ mergedPerHour: 0, timeToMergeP50: null }, { mergedPerHour: 1, timeToMergeP50: 60 }).error,
    ).toMatchObject({
      mergedPerHour: null,
      timeToMergeP50: null,
    });
  });

  it('a row is within the error when both figures differ from the baseline by no more than the error', () => {
    const base = row('baseline', 10, 60);
    const error = { mergedPerHour: 0.05, timeToMergeP50: 0.1 };
    expect(withinModelError(row('a', 10.2, 56), base, error)).toBe(true); // 2% and 6.7%
    expect(withinModelError(row('b', 10, 50), base, error)).toBe(false); // p50 17% faster
    expect(withinModelError(row('c', 12, 60), base, error)).toBe(false); // 20% more merges
    expect(withinModelError(row('d', 10, 66), base, error)).toBe(true); // exactly 10%
    // An error that could not be measured bounds nothing: every row is within it.
    expect(withinModelError(row('e', 20, 10), base, { mergedPerHour: null, timeToMergeP50: null })).toBe(true);
  });

  it('the recommendation never picks a row on a difference within the error; it does once the error is small', () => {
    const inputs = { arrivalsPerHour: 10 } as SimInputs;
    const rows = () => [row('baseline', 10, 60, 30), row('concurrency=4', 10, 50, 30)];
    const wide = rows();
    const rec = markWithinError(wide, inputs, { mergedPerHour: 0.05, timeToMergeP50: 0.25 });
    expect(wide.map((r) => r.withinModelError)).toEqual([false, true]);
    expect(rec.label).toBe('baseline');
    expect(rec.text).toMatch(/Within the model's error of the baseline, so not a result: concurrency=4\.$/);
    const narrow = rows();
    const rec2 = markWithinError(narrow, inputs, { mergedPerHour: 0.05, timeToMergeP50: 0.05 });
    expect(narrow.map((r) => r.withinModelError)).toEqual([false, false]);
    expect(rec2.label).toBe('concurrency=4');
    expect(rec2.text).not.toMatch(/model's error/);
  });

  it('the views label such a row in the table, markdown and plain output', () => {
    const results = [row('baseline', 10, 60), row('concurrency=4', 10, 58)];
    results[0]!.withinModelError = false;
    results[1]!.withinModelError = true;
    expect(rowLabel(results[1]!)).toBe("concurrency=4 (within the model's error)");
    expect(rowLabel({ ...results[1]!, keepsUp: false })).toBe("concurrency=4 (falls behind; within the model's error)");
    const data = {
      inputs: { arrivalsPerHour: 10 },
      results,
      recommendation: { label: 'baseline', text: 'x' },
    } as unknown as SimulateResult;
    expect(simulateRows(data).map((r) => (typeof r[0] === 'string' ? r[0] : r[0]?.value))).toEqual([
      'baseline',
      "concurrency=4 (within the model's error)",
    ]);
    const plain = simulatePlainLines(data);
    expect(plain).toContain('within_model_error\tconcurrency=4');
    expect(plain.filter((l) => l.includes('within_model_error'))).toHaveLength(1);
  });
});
