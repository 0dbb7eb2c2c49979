/**
 * The ETA backtest on hand-made history (pure): the queue at a PR's submission (the PRs ahead and
 * the runs under test then), a fit from the history before that moment only, and the sampling of a
 * long window. Queue: concurrency 1, no batching; PR n submitted at T0 + 20n minutes, tested alone
 * from its submission (or when the one ahead ended) for 10 minutes.
 */
import { describe, expect, it } from 'vitest';
import { queueAt, runEtaCheck } from '../../src/planner/eta-check.js';
import type { ConcludedPr, TestAttempt } from '../../src/stats/model.js';

const T0 = Date.UTC(2026, 4, 1);
const MIN = 60_000;
const DAY = 86_400_000;
const QUEUE = { concurrency: 1, batch: false, mode: 'single' };

function history(n: number, minutes: (i: number) => number = () => 10) {
  const prs: ConcludedPr[] = [];
  const attempts: TestAttempt[] = [];
  for (let i = 1; i <= n; i++) {
    const at = T0 + 20 * i * MIN;
    const end = at + minutes(i) * MIN;
    prs.push({ number: i, state: 'merged', submittedAt: at, concludedAt: end });
    attempts.push({ runId: `r${i}`, prNumber: i, startedAt: at, finishedAt: end, result: 'passed', bisection: false });
  }
  return { prs, attempts };
}

describe('queueAt', () => {
  it('the PRs ahead at a moment, those under test as batches with their run and start', () => {
    const { prs, attempts } = history(5, () => 30); // each runs past the next one's submission
    const pr = prs[3] as ConcludedPr; // #4, submitted at 80 min: #3 (60..90) is testing, #2 (40..70) ended
    const { order, runStarts } = queueAt(pr, pr.submittedAt as number, prs, attempts);
    expect(order.batches).toEqual([
      { runId: 'r3', state: 'testing', isBisection: false, prs: [{ number: 3, title: null }] },
    ]);
    expect(order.pending.map((p) => p.number)).toEqual([4]);
    expect(runStarts).toEqual({ r3: T0 + 60 * MIN });
  });
});

describe('runEtaCheck', () => {
  it('fixed 10-minute tests: every merge at the p50 and within the p90, no error; too little history skipped', () => {
    const { prs, attempts } = history(12);
    const r = runEtaCheck(
      { window: { since: T0, until: T0 + DAY }, historyStart: T0, prs, attempts, queue: QUEUE, runs: 5 },
      [1],
    );
    // #1..#5 have fewer than 5 finished runs before them.
    expect(r.rows).toEqual([
      {
        historyDays: 1,
        count: 7,
        skipped: 5,
        withinP90: 1,
        withinP50: 1,
        medianAbsErrorSec: 0,
        medianRelError: 0,
        medianTimeInQueueSec: 600,
      },
    ]);
    expect([r.merged, r.checked]).toEqual([12, 12]);
  });

  it('no peeking: runs that end after a PR was submitted do not change its estimate', () => {
    const early = history(8);
    // The same first 8 PRs, then much slower ones: the check of #1..#8 sees nothing of them.
    const later = history(16, (i) => (i > 8 ? 100 : 10));
    const window = { since: T0, until: T0 + 20 * 8 * MIN + 11 * MIN };
    const a = runEtaCheck({ window, historyStart: T0, ...early, queue: QUEUE, runs: 5 }, [1]);
    const b = runEtaCheck({ window, historyStart: T0, ...later, queue: QUEUE, runs: 5 }, [1]);
    expect(b.rows).toEqual(a.rows);
    expect(a.rows[0]?.count).toBe(3);
  });

  it('a long window: at most maxPrs merged PRs, spread evenly, and says how many of how many', () => {
    const { prs, attempts } = history(40);
    const r = runEtaCheck(
      { window: { since: T0, until: T0 + DAY }, historyStart: T0, prs, attempts, queue: QUEUE, runs: 2, maxPrs: 10 },
      [1],
    );
    expect([r.merged, r.checked]).toEqual([40, 10]);
    expect((r.rows[0]?.count ?? 0) + (r.rows[0]?.skipped ?? 0)).toBe(10);
  });
});
