// A live PR's place in its queue (`mq status 42`, after the story): "3rd of 12", what is directly ahead,
// what holds it and why it waits; v1's order is derived, so it is labelled approximate.
import type { PrPosition } from '../stats/position.js';
import type { Block } from '../output/present.js';
import { plainBool, plainList, plainNumber } from '../output/plain.js';
import { type Field, own, paints } from '../output/render.js';
import { POSITION_PLAIN } from './story.js';

export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

const prs = (ns: readonly number[]) => ns.map((n) => `#${n}`).join(' ');

/** "3rd of 12", or what stands for a place before admission. */
export function placeText(p: PrPosition): string {
  const of = p.of === null ? '' : ` of ${p.of}`;
  const place =
    p.position === null ? `not admitted yet (${p.of ?? 0} under test or waiting)` : `${ordinal(p.position)}${of}`;
  return p.approximate ? `${place} (approximate: derived from v1's queue record)` : place;
}

export function positionFields(p: PrPosition): Field[] {
  const fields: Field[] = [{ key: 'position', label: 'Position', value: placeText(p) }];
  if (p.ahead.length > 0) fields.push({ key: 'ahead', label: 'Directly ahead', value: prs(p.ahead) });
  if (p.heldBy.length > 0) fields.push({ key: 'heldBy', label: 'Held by', value: prs(p.heldBy) });
  if (p.waitingBecause) fields.push({ key: 'waiting', label: 'Why', value: p.waitingBecause.words });
  return fields;
}

/** The `--json` fields: added to the PR's document. */
export function positionJson(p: PrPosition): Record<string, unknown> {
  return {
    position: p.position,
    of: p.of,
    ahead: p.ahead,
    heldBy: p.heldBy,
    waitingBecause: p.waitingBecause,
    positionApproximate: p.approximate,
  };
}

/** Nothing for a PR no longer in the queue; `more`: fields that belong in the same block (an ETA). */
export function positionView(p: PrPosition, more: Field[] = []): { table: Block[]; plain: Block[]; markdown: Block[] } {
  if (p.of === null) return { table: [], plain: [], markdown: [] };
  const fields = [...positionFields(p), ...more];
  const row = POSITION_PLAIN.row({
    position: plainNumber(p.position),
    of: plainNumber(p.of),
    ahead: plainList(p.ahead),
    held_by: plainList(p.heldBy),
    waiting_code: p.waitingBecause?.code ?? '',
    waiting: p.waitingBecause?.words ?? '',
    approximate: plainBool(p.approximate),
  });
  return {
    table: [{ lines: ['', own(paints.bold, 'in the queue')] }, { fields }],
    plain: [{ headers: [], rows: [row] }],
    markdown: [{ lines: [''] }, { fields, title: 'In the queue' }],
  };
}
