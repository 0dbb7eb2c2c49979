/**
 * One chronology (issue 25, point 2): when a PR's transitions share one timestamp (the emulator's
 * manual clock; the live service records whole seconds), every view reads them in the service's
 * list order, newest first: the story, the rows of several PRs, --json's reason and testRunId, and
 * the trip start that the statistics and the planner's fit use.
 */
import { describe, expect, it } from 'vitest';
import { runStatus, runStatusMany } from '../../src/commands/status.js';
import { buildStory } from '../../src/stats/story.js';
import { lastTripStart, timelineOf } from '../../src/stats/wire.js';
import { testDeps } from '../helpers/deps.js';
import { fakeClient } from '../helpers/fake-client.js';
import { entry, queueRecord } from '../helpers/test-context.js';

const AT = '2026-11-22T10:00:00.000Z';
const T = Date.parse(AT);

/** As v1 sends it: newest first, every transition at one time. */
const record = (pr: number, state: 'testing' | 'pending') => ({
  ...entry(pr, state, { stateChangedAt: AT }),
  isCurrentlySubmittedToQueue: true,
  timeline: [
    ...(state === 'testing'
      ? [{ timestamp: AT, state: 'testing', reason: 'test_run_started', testRunId: `run-${pr}` }]
      : []),
    { timestamp: AT, state: 'pending', reason: 'merge_item_now_ready' },
    { timestamp: AT, state: 'not_ready', reason: 'user_requested' },
  ],
});

async function statusMany(output: string) {
  const fake = fakeClient({
    getSubmittedPullRequests: [{ pullRequests: [record(80, 'testing'), record(81, 'pending')], notFound: [] }],
    getQueue: [queueRecord({}, [entry(80, 'testing'), entry(81, 'pending')])],
  });
  const { deps, io } = testDeps({ fake, options: { output } });
  expect(await deps.out.show(await runStatusMany({ args: ['80', '81'] }, deps))).toBe(0);
  return io.stdout;
}

describe('transitions at one timestamp read newest first in every view', () => {
  it('the model: timeline, story and trip start', () => {
    const timeline = timelineOf(record(80, 'testing'));
    expect(timeline.map((t) => t.state)).toEqual(['testing', 'pending', 'not_ready']);
    const story = buildStory(80, timeline);
    expect(story.state).toBe('testing');
    expect(story.trips[0]?.steps.map((s) => s.state)).toEqual(['not_ready', 'pending', 'testing']);
    // A second trip begun in the same second as the first ended: it starts then.
    const again = timelineOf({
      timeline: [
        { timestamp: AT, state: 'pending', reason: 'merge_item_now_ready' },
        { timestamp: AT, state: 'not_ready', reason: 'user_requested' },
        { timestamp: AT, state: 'cancelled', reason: 'user_requested' },
        { timestamp: '2026-11-22T09:00:00.000Z', state: 'not_ready', reason: 'user_requested' },
      ],
    });
    expect(lastTripStart(again)).toBe(T);
    expect(buildStory(80, again).trips.map((t) => [t.number, t.outcome, t.steps.length])).toEqual([
      [2, 'pending', 2],
      [1, 'cancelled', 2],
    ]);
  });

  it('status N M, table: the reason is the latest transition', async () => {
    const out = await statusMany('table');
    expect(out).toMatch(/#80[\s│]+testing[\s│].*testing in run run-80/);
    expect(out).toMatch(/#81[\s│]+pending[\s│].*ready: waiting for a test slot/);
    expect(out).not.toContain('submitted: waiting');
  });

  it('status N M, plain', async () => {
    const lines = (await statusMany('plain')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]?.split('\t')).toEqual(['80', 'testing', AT, expect.any(String), '1', 'testing in run run-80']);
    expect(lines[1]?.split('\t')).toEqual([
      '81',
      'pending',
      AT,
      expect.any(String),
      '2',
      'ready: waiting for a test slot',
    ]);
  });

  it('status N M, --json: reason and testRunId', async () => {
    const doc = JSON.parse(await statusMany('json'));
    expect(doc.pullRequests.map((p: Record<string, unknown>) => [p.prNumber, p.reason, p.testRunId])).toEqual([
      [80, 'testing in run run-80', 'run-80'],
      [81, 'ready: waiting for a test slot', null],
    ]);
  });

  it('status N: the story newest first, --json oldest first, the same order as the rows', async () => {
    for (const output of ['plain', 'json']) {
      const fake = fakeClient({ getSubmittedPullRequestWithTimeline: [record(80, 'testing')] });
      const { deps, io } = testDeps({ fake, options: { output } });
      expect(await deps.out.show(await runStatus({ pr: 80 }, deps))).toBe(0);
      if (output === 'plain') {
        const steps = io.stdout.split('\n').filter((l) => l.startsWith('step\t'));
        expect(steps.map((l) => l.split('\t')[2])).toEqual(['testing', 'pending', 'not_ready']);
      } else {
        const doc = JSON.parse(io.stdout);
        expect(doc.timeline.map((t: Record<string, unknown>) => t.state)).toEqual(['not_ready', 'pending', 'testing']);
        expect(doc.pullRequests[0]).toMatchObject({ reason: 'testing in run run-80', testRunId: 'run-80' });
      }
    }
  });
});
