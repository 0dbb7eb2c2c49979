/** v2 history and testing rows as Trunk documents them (fields the emulator does not send yet) mapped onto v1's. */
import { describe, expect, it } from 'vitest';

import { testingResultOf, timelineOf as v2Timeline } from '../../src/api/v2/history-wire.js';
import { T0 } from '../emulator/http-helpers.js';

const MIN = 60_000;

describe('a Trunk-shaped v2 history as a v1 timeline', () => {
  it('names the PR ahead, the failing checks and the reasons v2 moves into per-state objects', () => {
    const ahead = { pullRequestId: 'p-9', number: 9, title: 'ahead', state: 'failed' };
    const at = (m: number) => new Date(T0 + m * MIN).toISOString();
    const history = [
      {
        state: 'failed',
        changedAt: at(9),
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        verificationRunId: 'r-2',
        failed: { failureCausingChecks: [{ name: 'test (linux)', conclusion: 'FAILURE' }] },
      },
      {
        state: 'pendingFailure',
        changedAt: at(8),
        reason: null,
        verificationRunId: 'r-2',
        pendingFailure: {
          eventualFailureReason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          waitingFor: [],
          failureCausingChecks: [],
        },
      },
      { state: 'testing', changedAt: at(5), reason: null, verificationRunId: 'r-2' },
      {
        state: 'pending',
        changedAt: at(4),
        reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
        prerequisitePullRequestId: 'p-9',
        pending: { prerequisitePullRequests: [ahead] },
      },
      { state: 'notReady', changedAt: at(0), reason: 'USER_REQUESTED', notReady: { allowBatching: true } },
      { state: 'someNewState', changedAt: at(0), reason: 'NEW_REASON' },
    ];
    expect(v2Timeline(history)).toEqual([
      {
        timestamp: at(9),
        state: 'failed',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        testRunId: 'r-2',
        failureCausingStatuses: ['test (linux)'],
      },
      {
        timestamp: at(8),
        state: 'pending_failure',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        testRunId: 'r-2',
        failureCausingStatuses: [],
      },
      { timestamp: at(5), state: 'testing', reason: 'TEST_RUN_STARTED', testRunId: 'r-2' },
      { timestamp: at(4), state: 'pending', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', prerequisitePrNumber: 9 },
      { timestamp: at(0), state: 'not_ready', reason: 'USER_REQUESTED' },
      { timestamp: at(0), state: 'some_new_state', reason: 'NEW_REASON' },
    ]);
  });
});

describe("a v2 testing result as v1's row", () => {
  it('keeps the start (end less duration), the conclusion, the bisection role; interrupted is cancelled', () => {
    const row = {
      pullRequestNumber: 12,
      endedAt: new Date(T0 + 10 * MIN).toISOString(),
      testingDurationMs: 4 * MIN,
      outcome: 'interrupted',
      entryConclusion: 'merged',
      isBisection: false,
      startedBisection: true,
      verificationRunId: 'r-1',
    };
    expect(testingResultOf(row)).toEqual({
      testRunId: 'r-1',
      prNumber: 12,
      startedAt: new Date(T0 + 6 * MIN).toISOString(),
      completedAt: new Date(T0 + 10 * MIN).toISOString(),
      testingDurationMs: 4 * MIN,
      outcome: 'cancelled',
      cycleConclusion: 'merged',
      bisection: 'entered_bisection',
      isBisection: false,
      startedBisection: true,
    });
    expect(testingResultOf({ pullRequestNumber: 1, outcome: 'somethingNew' })).toMatchObject({
      outcome: 'something_new',
      startedAt: null,
      cycleConclusion: null,
      bisection: null,
    });
  });
});
