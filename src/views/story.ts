/**
 * A PR's story: its trips newest first, each transition with time, state and reason in plain
 * words, then the failing checks. One view per format; the presenter makes every value inert.
 */
import type { Block } from '../output/present.js';
import { plainColumns } from '../output/plain.js';
import { own, paints, type Line, type Row, v } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { Story } from '../stats/story.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function tripLabel(trip: Story['trips'][number]): string {
  return `trip ${trip.number}${trip.endedAt === null ? ' (in the queue)' : `: ${trip.outcome}`}${trip.runId ? ` (run ${trip.runId})` : ''}`;
}

/** The plain lines of a story, after the PR's fields: a `trip` line, its `step` lines, then failing `check` lines. */
export const STORY_PLAIN = {
  trip: plainColumns('one line per trip through the queue, newest first', ['number', 'outcome', 'run'], 'trip'),
  step: plainColumns('after each trip, one line per step of it, newest first', ['at', 'state', 'reason', 'run', 'text'], 'step'),
  check: plainColumns('one line per failing check', ['name', 'conclusion', 'url'], 'check'),
  cut: plainColumns('after the steps of a timeline too long to tell: how many older steps are left out', ['earlier_steps'], 'cut'),
};

const cutText = (n: number) => `… ${n} earlier step${n === 1 ? '' : 's'} not shown`;

/** Piped: one record per line, kind first (`trip`, `step`, `check`), raw values. */
function storyRows(story: Story): Row[] {
  const rows: Row[] = [];
  for (const trip of story.trips) {
    rows.push(STORY_PLAIN.trip.row({ number: String(trip.number), outcome: trip.endedAt === null ? 'in_queue' : trip.outcome, run: trip.runId ?? '' }));
    for (const step of [...trip.steps].reverse()) {
      rows.push(STORY_PLAIN.step.row({ at: iso(step.at), state: step.state, reason: step.reason, run: step.runId ?? '', text: step.text }));
    }
  }
  if (story.earlierSteps > 0) rows.push(STORY_PLAIN.cut.row({ earlier_steps: String(story.earlierSteps) }));
  for (const c of story.failingChecks) rows.push(STORY_PLAIN.check.row({ name: c.name, conclusion: c.conclusion.toLowerCase(), url: c.url ?? '' }));
  return rows;
}

function storyText(story: Story, markdown: boolean): Line[] {
  const lines: Line[] = [];
  for (const trip of story.trips) {
    lines.push('', markdown ? ['**', v(tripLabel(trip)), '**'] : own(paints.bold, tripLabel(trip)), ...(markdown ? [''] : []));
    for (const step of [...trip.steps].reverse()) {
      lines.push(
        markdown
          ? ['- ', v(iso(step.at)), ' `', v(step.state), '` ', v(step.text)]
          : ['  ', own(paints.dim, iso(step.at)), '  ', v(step.state.padEnd(15), stateColor), ' ', v(step.text)],
      );
    }
  }
  if (story.earlierSteps > 0) lines.push('', own(paints.dim, cutText(story.earlierSteps)));
  if (story.failingChecks.length > 0) {
    lines.push('', markdown ? '**failing checks**' : own(paints.bold, 'failing checks'), ...(markdown ? [''] : []));
    for (const c of story.failingChecks) {
      const conclusion = c.conclusion.toLowerCase();
      lines.push(
        markdown ? ['- ', v(c.name), ` (${conclusion})`, ...(c.url ? [' ', v(c.url)] : [])] : ['  ', v(c.name), '  ', v(conclusion), '  ', v(c.url ?? '')],
      );
    }
  }
  return lines;
}

/** The story after the PR's fields, per format; nothing when the service sent no timeline. */
export function storyView(story: Story): { table: Block[]; plain: Block[]; markdown: Block[] } {
  if (story.trips.length === 0 && story.failingChecks.length === 0) return { table: [], plain: [], markdown: [] };
  return { table: [{ lines: storyText(story, false) }], plain: [{ headers: [], rows: storyRows(story) }], markdown: [{ lines: storyText(story, true) }] };
}
