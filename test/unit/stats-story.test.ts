/** The PR story (src/stats/story.ts) and the v1 history shapes behind it and the stats (src/stats/wire.ts). */
import { describe, expect, it } from 'vitest';
import { buildStory, describeTransition, failingChecksOf, MAX_STORY_STEPS } from '../../src/stats/story.js';
import { storyJson } from '../../src/stats/status-rows.js';
import { renderBlocks } from '../../src/output/present.js';
import { storyView } from '../../src/views/story.js';
import { makeStyle } from '../../src/output/style.js';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const MIN = 60_000;

describe('the PR story', () => {
  const timeline = [
    { at: T0, state: 'not_ready', reason: 'USER_REQUESTED', runId: null },
    { at: T0 + 1 * MIN, state: 'pending', reason: 'MERGE_ITEM_NOW_READY', runId: null },
    { at: T0 + 2 * MIN, state: 'testing', reason: 'TEST_RUN_STARTED', runId: 'r-1' },
    { at: T0 + 5 * MIN, state: 'pending', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', runId: null, aheadPr: 40 },
    { at: T0 + 6 * MIN, state: 'testing', reason: 'TEST_RUN_STARTED', runId: 'r-2' },
    { at: T0 + 16 * MIN, state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: 'r-2' },
    { at: T0 + 60 * MIN, state: 'pending', reason: 'MERGE_ITEM_NOW_READY', runId: null },
    { at: T0 + 61 * MIN, state: 'merged', reason: 'MERGE_GRAPH_DIRECT_MERGE', runId: null },
  ];

  it('a timeline longer than it tells: the newest steps, and how many older ones are left out', async () => {
    const states = ['not_ready', 'pending', 'testing', 'failed'];
    const long = Array.from({ length: MAX_STORY_STEPS + 7 }, (_, i) => ({
      at: T0 + i * 1000,
      state: states[i % 4] as string,
      reason: 'USER_REQUESTED',
      runId: null,
    }));
    const story = buildStory(42, long.reverse());
    expect(story.earlierSteps).toBe(7);
    const told = story.trips.flatMap((t) => t.steps);
    expect(told).toHaveLength(MAX_STORY_STEPS);
    expect(Math.min(...told.map((s) => s.at))).toBe(T0 + 7000);
    const view = storyView(story, T0);
    const style = makeStyle(false);
    expect(await renderBlocks(view.table, 'table', style, 80)).toMatch(/\n… 7 earlier steps not shown\n$/);
    expect(await renderBlocks(view.plain, 'plain', style, 80)).toContain('\ncut\t7\n');
    const doc = storyJson(story);
    expect([doc.earlierSteps, (doc.timeline as unknown[]).length]).toEqual([7, MAX_STORY_STEPS]);
    expect(storyJson(buildStory(42, timeline))).not.toHaveProperty('earlierSteps');
  });

  it('cuts trips newest first and tells each reason in plain words', () => {
    const story = buildStory(42, [...timeline].reverse());
    expect(story.trips.map((t) => [t.number, t.outcome])).toEqual([
      [2, 'merged'],
      [1, 'failed'],
    ]);
    expect(story.state).toBe('merged');
    const texts = story.trips[1]!.steps.map((s) => s.text);
    expect(texts).toContain('back to pending: PR #40 ahead failed');
    expect(texts).toContain('testing in run r-2');
    expect(texts.at(-1)).toBe('failed: a required status failed in run r-2');
    expect(story.trips[1]!.runId).toBe('r-2');
    expect(story.trips[0]!.steps.at(-1)!.text).toBe('merged directly (up to date)');
  });

  it('names the failing checks of the last failure and keeps their URLs', async () => {
    const failed = timeline.slice(0, 6);
    const checks = failingChecksOf({
      checkSuites: [
        {
          checkRuns: [
            { name: 'test', conclusion: 'FAILURE', url: 'https://ci.example/run/9' },
            { name: 'lint', conclusion: 'SUCCESS', url: 'https://ci.example/run/8' },
            { name: 'e2e', conclusion: 'TIMED_OUT', url: 'javascript:alert(1)' },
          ],
        },
      ],
      statusChecks: [{ context: 'ci/legacy', state: 'ERROR', url: 'http://ci.example/s/1' }],
    });
    expect(checks).toEqual([
      { name: 'test', conclusion: 'FAILURE', url: 'https://ci.example/run/9' },
      { name: 'e2e', conclusion: 'TIMED_OUT', url: null },
      { name: 'ci/legacy', conclusion: 'ERROR', url: 'http://ci.example/s/1' },
    ]);
    const story = buildStory(42, failed, checks);
    expect(story.state).toBe('failed');
    expect(story.runId).toBe('r-2');
    expect(story.trips[0]!.steps.at(-1)!.text).toBe(
      'failed: required status `test`, `e2e` and `ci/legacy` failed in run r-2',
    );
    const plain = await renderBlocks(storyView(story, T0).plain, 'plain', makeStyle(false));
    expect(plain).toContain('check\ttest\tfailure\thttps://ci.example/run/9\n');
    expect(plain).toContain('step\t');
    const markdown = await renderBlocks(storyView(story, T0).markdown, 'markdown', makeStyle(false));
    expect(markdown).toContain('**trip 1: failed (run r-2)**');
    expect(markdown).toContain('- test (failure) https://ci.example/run/9');
  });

  it('words other reasons and strips control characters from unknown ones', () => {
    expect(describeTransition({ at: 0, state: 'merged', reason: 'MERGE_GRAPH_MERGE', runId: 'r-7' })).toBe(
      'merged after run r-7 passed',
    );
    expect(describeTransition({ at: 0, state: 'pending', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', runId: null })).toBe(
      'back to pending: a PR ahead failed',
    );
    expect(describeTransition({ at: 0, state: 'failed', reason: 'TEST_RUN_TIMEOUT', runId: 'r-3' })).toBe(
      'failed: run r-3 timed out',
    );
    expect(describeTransition({ at: 0, state: 'cancelled', reason: 'PR_PUSHED_TO', runId: null })).toBe(
      'cancelled: new commits were pushed to the PR',
    );
    expect(
      describeTransition({
        at: 0,
        state: 'pending_failure',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        runId: 'r-4',
        statuses: ['ci'],
      }),
    ).toBe('pending failure: required status `ci` failed in run r-4; waiting for the PRs ahead before failing it');
    expect(describeTransition({ at: 0, state: 'pending', reason: 'NEW_THING\u001b[31m', runId: null })).toBe(
      'pending: new thing [31m',
    );
  });
});

describe('reading the v1 history shapes', async () => {
  const { batchOf, testingPageOf, timelineOf, lastTripStart, concludedOf } = await import('../../src/stats/wire.js');
  it('reads a newest-first timeline with lowercase reasons in per-state objects', () => {
    const record = {
      timeline: [
        {
          timestamp: '2026-11-20T10:16:00Z',
          state: 'failed',
          failure: { reason: 'test_run_required_status_failed', testRunId: 'r-2', failureCausingStatuses: ['unit'] },
        },
        {
          timestamp: '2026-11-20T10:06:00Z',
          state: 'testing',
          reason: 'test_run_started',
          testRunId: 'r-2',
          testRun: { id: 'r-2' },
        },
        { timestamp: '2026-11-20T10:06:00Z', state: 'pending', reason: 'merge_item_now_ready' },
        { timestamp: 'garbage', state: 'pending' },
        'not an object',
      ],
    };
    const t = timelineOf(record);
    expect(t.map((x) => [x.state, x.reason, x.runId])).toEqual([
      ['failed', 'TEST_RUN_REQUIRED_STATUS_FAILED', 'r-2'],
      ['testing', 'TEST_RUN_STARTED', 'r-2'],
      ['pending', 'MERGE_ITEM_NOW_READY', null],
    ]);
    expect(buildStory(9, t).trips[0]!.steps.at(-1)!.text).toBe('failed: required status `unit` failed in run r-2');
    expect(lastTripStart(t)).toBe(Date.parse('2026-11-20T10:06:00Z'));
  });
  it('reads batch lookups, testing results and concluded PRs, skipping malformed items', () => {
    expect(batchOf({ pullRequests: [{ prNumber: 1 }, 7], notFound: [{ number: 3 }, 4, 'x'] })).toEqual({
      pullRequests: [{ prNumber: 1 }],
      notFound: [3, 4],
    });
    const page = testingPageOf({
      testingResults: [
        {
          testRunId: 'a',
          prNumber: 1,
          startedAt: '2026-11-20T10:00:00Z',
          completedAt: '2026-11-20T10:10:00Z',
          outcome: 'timed_out',
          bisection: null,
        },
        {
          testRunId: 'b-bisection',
          prNumber: 2,
          completedAt: '2026-11-20T10:10:00Z',
          testingDurationMs: 60_000,
          outcome: 'passed',
        },
        {
          testRunId: 'c',
          prNumber: 3,
          startedAt: '2026-11-20T10:00:00Z',
          completedAt: '2026-11-20T10:10:00Z',
          outcome: 'mystery',
        },
      ],
      totalItems: 3,
    });
    expect(page.total).toBe(3);
    expect(page.items).toBe(3);
    expect(page.attempts).toEqual([
      {
        runId: 'a',
        prNumber: 1,
        startedAt: Date.parse('2026-11-20T10:00:00Z'),
        finishedAt: Date.parse('2026-11-20T10:10:00Z'),
        result: 'failed',
        bisection: false,
      },
      {
        runId: 'b-bisection',
        prNumber: 2,
        startedAt: Date.parse('2026-11-20T10:09:00Z'),
        finishedAt: Date.parse('2026-11-20T10:10:00Z'),
        result: 'passed',
        bisection: true,
      },
    ]);
    expect(concludedOf({ prNumber: 5, state: 'MERGED', stateChangedAt: '2026-11-20T10:10:00Z' })).toMatchObject({
      number: 5,
      state: 'merged',
      submittedAt: null,
    });
    expect(concludedOf({ prNumber: 5, state: 'testing', stateChangedAt: '2026-11-20T10:10:00Z' })).toBeNull();
  });
});
