/** What `mq status` prints of a story (JSON) and of one PR of a batch (a row). */
import { formatDuration } from '../util/duration.js';
import type { Story } from './story.js';
import { clean, describeTransition } from './story.js';
import { timelineOf, timeOf } from './wire.js';

type Obj = Record<string, unknown>;

/** The story's part of `mq status N --json`: the timeline oldest first, the run, the failing checks. */
export function storyJson(story: Story): Obj {
  const timeline = [...story.trips].reverse().flatMap((trip) =>
    trip.steps.map((s) => ({
      at: new Date(s.at).toISOString(),
      trip: trip.number,
      state: s.state,
      reason: s.reason,
      testRunId: s.runId,
      text: s.text,
    })),
  );
  const cut = story.earlierSteps > 0 ? { earlierSteps: story.earlierSteps } : {};
  return { runId: story.runId, timeline, ...cut, failingChecks: story.failingChecks };
}

export interface BatchRow {
  pr: number;
  found: boolean;
  state: string;
  since: string;
  forText: string;
  position: number | null;
  reason: string;
  json: Obj;
}

/** One PR of `mq status 41 42 43`: state, for how long, its place in the queue, the latest reason. */
export function batchRow(
  pr: number,
  record: Obj | undefined,
  notFound: boolean,
  order: Array<number | null | undefined>,
  now: number,
): BatchRow {
  if (!record || notFound) {
    return {
      pr,
      found: false,
      state: 'not found',
      since: '',
      forText: '',
      position: null,
      reason: 'never submitted to this queue',
      json: { prNumber: pr },
    };
  }
  const state = typeof record.state === 'string' ? clean(record.state.toLowerCase(), 40) : 'unknown';
  const changed = timeOf(record.stateChangedAt);
  const idx = order.indexOf(pr);
  const live = record.isCurrentlySubmittedToQueue !== false && !['merged', 'failed', 'cancelled'].includes(state);
  const position = live && idx >= 0 ? idx + 1 : null;
  const last = timelineOf(record)[0];
  const reason = last ? describeTransition(last) : '';
  const { timeline: _omit, ...rest } = record;
  void _omit;
  return {
    pr,
    found: true,
    state,
    since: changed === null ? '' : new Date(changed).toISOString(),
    forText: changed === null ? '' : formatDuration(Math.max(0, now - changed)),
    position,
    reason,
    json: {
      ...rest,
      state,
      position,
      reason,
      testRunId: last?.runId ?? (typeof record.verifiedByTestRun === 'string' ? record.verifiedByTestRun : null),
    },
  };
}
