/**
 * A PR's story: its trips newest first, each transition with time, state and reason in plain
 * words, then the failing checks. One view per format; the presenter makes every value inert.
 */
import type { Block } from '../output/present.js';
import { own, paints, type Line, type Row, v } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { Story } from '../stats/story.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function tripLabel(trip: Story['trips'][number]): string {
  return `trip ${trip.number}${trip.endedAt === null ? ' (in the queue)' : `: ${trip.outcome}`}${trip.runId ? ` (run ${trip.runId})` : ''}`;
}

/** Piped: one record per line, kind first (`trip`, `step`, `check`), raw values. */
function storyRows(story: Story): Row[] {
  const rows: Row[] = [];
  for (const trip of story.trips) {
    rows.push(['trip', String(trip.number), trip.endedAt === null ? 'in_queue' : trip.outcome, trip.runId ?? '']);
    for (const step of [...trip.steps].reverse()) rows.push(['step', iso(step.at), step.state, step.reason, step.runId ?? '', step.text]);
  }
  for (const c of story.failingChecks) rows.push(['check', c.name, c.conclusion.toLowerCase(), c.url ?? '']);
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
