/**
 * The client's history schemas read what the live service may send, not only what the emulator
 * sends: v1 timelines with the reason only in the per-state object, either case, unknown fields,
 * `notFound` as bare numbers; and `chronological` puts v1's newest-first timeline in time order.
 */
import { describe, expect, it } from 'vitest';

import {
  bisectionRole,
  chronological,
  pullRequestsLookupSchema,
  testingResultSchema,
  testingResultsRequest,
  timelineItemSchema,
} from '../../src/api/history.js';

describe('history schemas', () => {
  it('takes reason and run id from the v1 per-state object and keeps unknown fields', () => {
    const item = timelineItemSchema.parse({
      timestamp: '2026-01-01T09:10:00.000Z',
      state: 'TESTS_PASSED',
      testsPassed: { testRunId: 'r1', reason: 'test_run_passed', waitingFor: [] },
      actor: 'someone',
    });
    expect(item).toMatchObject({ state: 'tests_passed', reason: 'TEST_RUN_PASSED', testRunId: 'r1', actor: 'someone' });
    const failed = timelineItemSchema.parse({
      timestamp: 't',
      state: 'failed',
      failure: { reason: 'TEST_RUN_TIMEOUT', failureCausingStatuses: ['ci'] },
    });
    expect(failed).toMatchObject({ reason: 'TEST_RUN_TIMEOUT', failureCausingStatuses: ['ci'] });
    expect(timelineItemSchema.parse({ state: null })).toEqual({ state: null });
  });

  it('reads notFound as objects or bare numbers', () => {
    const a = pullRequestsLookupSchema.parse({ pullRequests: [], notFound: [7, { number: 8 }] });
    expect(a.notFound).toEqual([{ number: 7 }, { number: 8 }]);
  });

  it('orders a newest-first timeline oldest first, keeping same-time transitions in their order', () => {
    const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 9, m)).toISOString();
    const v1 = [
      { timestamp: at(10), state: 'merged' },
      { timestamp: at(10), state: 'tests_passed' },
      { timestamp: at(0), state: 'testing' },
      { timestamp: at(0), state: 'pending' },
      { timestamp: at(0), state: 'not_ready' },
    ].map((x) => timelineItemSchema.parse(x));
    expect(chronological(v1).map((t) => t.state)).toEqual([
      'not_ready',
      'pending',
      'testing',
      'tests_passed',
      'merged',
    ]);
  });

  it('tells bisection runs and runs that started one apart from either spelling', () => {
    expect(bisectionRole(testingResultSchema.parse({ bisection: 'IN_BISECTION' }))).toBe('in_bisection');
    expect(bisectionRole(testingResultSchema.parse({ startedBisection: true }))).toBe('entered_bisection');
    expect(bisectionRole(testingResultSchema.parse({ prNumber: 1 }))).toBeNull();
  });

  it('refuses a testing-results window over 45 days or backwards before sending', () => {
    const base = { repo: { host: 'github.com', owner: 'o', name: 'n' }, targetBranch: 'main' };
    expect(
      testingResultsRequest.safeParse({ ...base, since: '2026-01-01T00:00:00Z', until: '2026-02-15T00:00:00Z' })
        .success,
    ).toBe(true);
    expect(
      testingResultsRequest.safeParse({ ...base, since: '2026-01-01T00:00:00Z', until: '2026-02-15T00:00:01Z' })
        .success,
    ).toBe(false);
    expect(
      testingResultsRequest.safeParse({ ...base, since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' })
        .success,
    ).toBe(false);
    expect(testingResultsRequest.safeParse({ ...base, take: 101 }).success).toBe(false);
  });
});
