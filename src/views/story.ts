// A PR's story: trips newest first, transitions in plain words, then failing checks; values made inert.
import type { Block } from '../output/present.js';
import { plainColumns } from '../output/plain.js';
import { own, paints, type Line, type Row, v } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { Story, StoryStep } from '../stats/story.js';
import { formatDuration } from '../util/duration.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function tripLabel(trip: Story['trips'][number]): string {
  const end = trip.endedAt === null ? ' (in the queue)' : `: ${trip.outcome}`;
  return `trip ${trip.number}${end}${trip.runId ? ` (run ${trip.runId})` : ''}`;
}

/** The plain lines of a story, after the PR's fields: a `trip` line, its `step` lines, then failing `check` lines. */
export const STORY_PLAIN = {
  trip: plainColumns('one line per trip through the queue, newest first', ['number', 'outcome', 'run'], 'trip'),
  step: plainColumns(
    'after each trip, one line per step of it, newest first',
    ['at', 'state', 'reason', 'run', 'text'],
    'step',
  ),
  check: plainColumns('one line per failing check', ['name', 'conclusion', 'url'], 'check'),
  cut: plainColumns(
    'after the steps of a timeline too long to tell: how many older steps are left out',
    ['earlier_steps'],
    'cut',
  ),
};

/** `mq status 42` piped, after the story: one line for a PR still in the queue (views/position.ts). */
export const POSITION_PLAIN = plainColumns(
  'last, for a PR still in the queue: its place (empty before admission), how many PRs are under test or ' +
    'waiting, the PRs directly ahead and holding it, why it waits (a code and words), whether derived from v1',
  ['position', 'of', 'ahead', 'held_by', 'waiting_code', 'waiting', 'approximate'],
  'position',
);

const cutText = (n: number) => `… ${n} earlier step${n === 1 ? '' : 's'} not shown`;

/** Piped: one record per line, kind first (`trip`, `step`, `check`), raw values. */
function storyRows(story: Story): Row[] {
  const rows: Row[] = [];
  for (const trip of story.trips) {
    rows.push(
      STORY_PLAIN.trip.row({
        number: String(trip.number),
        outcome: trip.endedAt === null ? 'in_queue' : trip.outcome,
        run: trip.runId ?? '',
      }),
    );
    for (const step of [...trip.steps].reverse()) {
      rows.push(
        STORY_PLAIN.step.row({
          at: iso(step.at),
          state: step.state,
          reason: step.reason,
          run: step.runId ?? '',
          text: step.text,
        }),
      );
    }
  }
  if (story.earlierSteps > 0) rows.push(STORY_PLAIN.cut.row({ earlier_steps: String(story.earlierSteps) }));
  for (const c of story.failingChecks)
    rows.push(STORY_PLAIN.check.row({ name: c.name, conclusion: c.conclusion.toLowerCase(), url: c.url ?? '' }));
  return rows;
}

function storyMarkdown(story: Story): Line[] {
  const lines: Line[] = [];
  for (const trip of story.trips) {
    lines.push('', ['**', v(tripLabel(trip)), '**'], '');
    for (const step of [...trip.steps].reverse())
      lines.push(['- ', v(iso(step.at)), ' `', v(step.state), '` ', v(step.text)]);
  }
  if (story.earlierSteps > 0) lines.push('', own(paints.dim, cutText(story.earlierSteps)));
  if (story.failingChecks.length > 0) {
    lines.push('', '**failing checks**', '');
    for (const c of story.failingChecks)
      lines.push(['- ', v(c.name), ` (${c.conclusion.toLowerCase()})`, ...(c.url ? [' ', v(c.url)] : [])]);
  }
  return lines;
}

/** A run id on a terminal: its first 8 characters (the header, plain and --json keep it whole). */
const SHORT_RUN = 8;
const short = (id: string) => id.slice(0, SHORT_RUN);
/** The step's words with its run named short. */
const shortText = (step: StoryStep) =>
  step.runId && step.runId.length > SHORT_RUN ? step.text.split(step.runId).join(short(step.runId)) : step.text;
const STATE_WIDTH = 15;

/** On a terminal: times before the service's `now`, short run ids, reasons wrapped under themselves, URLs whole. */
function storyTable(story: Story, now: number): Block[] {
  const ago = (at: number) => `${formatDuration(now - at)} ago`;
  const timeWidth = Math.max(0, ...story.trips.flatMap((t) => t.steps.map((s) => ago(s.at).length)));
  const blocks: Block[] = [];
  for (const trip of story.trips) {
    const label = tripLabel({ ...trip, runId: trip.runId && short(trip.runId) });
    blocks.push({ lines: ['', own(paints.bold, label)], wrap: 2 });
    const steps = [...trip.steps].reverse().map((step): Line => {
      const state = v(step.state.padEnd(STATE_WIDTH), stateColor);
      return ['  ', own(paints.dim, ago(step.at).padEnd(timeWidth)), '  ', state, ' ', v(shortText(step))];
    });
    blocks.push({ lines: steps, wrap: 2 + timeWidth + 2 + STATE_WIDTH + 1 });
  }
  if (story.earlierSteps > 0) blocks.push({ lines: ['', own(paints.dim, cutText(story.earlierSteps))], wrap: 2 });
  if (story.failingChecks.length > 0) {
    // A URL that does not fit goes whole onto a line of its own.
    const checks = story.failingChecks.map(
      (c): Line => ['  ', v(c.name), '  ', v(c.conclusion.toLowerCase()), ...(c.url ? ['  ', v(c.url)] : [])],
    );
    blocks.push({ lines: ['', own(paints.bold, 'failing checks'), ...checks], wrap: 4 });
  }
  return blocks;
}

/** The story after the PR's fields, per format (`now`: the service's clock); nothing without a timeline. */
export function storyView(story: Story, now: number): { table: Block[]; plain: Block[]; markdown: Block[] } {
  if (story.trips.length === 0 && story.failingChecks.length === 0) return { table: [], plain: [], markdown: [] };
  return {
    table: storyTable(story, now),
    plain: [{ headers: [], rows: storyRows(story) }],
    markdown: [{ lines: storyMarkdown(story) }],
  };
}
