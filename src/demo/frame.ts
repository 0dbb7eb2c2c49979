/** One frame of the live demo table, and the line printed per state change when piped. */
import { own, paints, v, type Line, type Row } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { TableFit } from '../output/width.js';
import { formatDuration } from '../util/duration.js';
import type { DemoPr } from './cast.js';

export interface DemoPrState {
  pr: DemoPr;
  state: string;
  since: number;
}

export const FRAME_HEADERS = ['PR', 'Title', 'Author', 'State', 'For', 'Note'];
/** On a narrow terminal: titles and notes are cut first, then the note and the author go. */
export const FRAME_FIT: TableFit = { truncate: ['Title', 'Note'], drop: ['Note', 'Author'] };

export function frameRows(prs: DemoPrState[], now: number): Row[] {
  return prs.map((p) => [
    `#${p.pr.number}`,
    p.pr.title,
    p.pr.author,
    { value: p.state, paint: stateColor },
    formatDuration(now - p.since),
    p.pr.note ?? '',
  ]);
}

/** The line over the table; what changes comes first, so a narrow terminal cuts only the queue's name. */
export function frameTitle(queueState: string, elapsedMs: number): Line {
  return [
    own(paints.bold, 'mq demo'),
    ' · emulated time ',
    own(paints.bold, formatDuration(elapsedMs)),
    ' · ',
    v(queueState, stateColor),
    ' · queue main of github.com/acme/rocket',
  ];
}

export function changeLine(
  pr: DemoPr,
  from: string | undefined,
  to: string,
  elapsedMs: number,
  reason?: string,
): string {
  const at = `+${formatDuration(elapsedMs)}`.padEnd(9);
  const why = reason ? `  (${reason.toLowerCase().replace(/_/g, ' ')})` : '';
  return `${at} PR #${pr.number} ${from ? `${from} -> ` : ''}${to}${why}`;
}
