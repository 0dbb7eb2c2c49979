/** One frame of the live demo table, and the line printed per state change when piped. */
import type { Row } from '../output/render.js';
import { stateColor, type Style } from '../output/style.js';
import { formatDuration } from '../util/duration.js';
import type { DemoPr } from './cast.js';

export interface DemoPrState {
  pr: DemoPr;
  state: string;
  since: number;
}

export const FRAME_HEADERS = ['PR', 'Title', 'Author', 'State', 'For', 'Note'];

export function frameRows(prs: DemoPrState[], now: number, style: Style): Row[] {
  return prs.map((p) => [
    `#${p.pr.number}`,
    p.pr.title,
    p.pr.author,
    { value: p.state, styled: stateColor(style, p.state) },
    formatDuration(now - p.since),
    p.pr.note ?? '',
  ]);
}

export function frameTitle(queueState: string, elapsedMs: number, style: Style): string {
  return `${style.bold('mq demo')} · queue main of github.com/acme/rocket · ${stateColor(style, queueState)} · emulated time ${style.bold(formatDuration(elapsedMs))}`;
}

export function changeLine(pr: DemoPr, from: string | undefined, to: string, elapsedMs: number, reason?: string): string {
  const at = `+${formatDuration(elapsedMs)}`.padEnd(9);
  const why = reason ? `  (${reason.toLowerCase().replace(/_/g, ' ')})` : '';
  return `${at} PR #${pr.number} ${from ? `${from} -> ` : ''}${to}${why}`;
}

/** ANSI: move the cursor up `lines` lines and clear from there down, to redraw in place. */
export function redraw(lines: number): string {
  return lines > 0 ? `\x1b[${lines}A\x1b[0J` : '';
}
