// `mq queue order` and `mq queue graph`: the dispatch order (runs, then waiting PRs with what is in front
// of them, then PRs not yet admitted) and the dependency graph as a table, dot or mermaid text. Titles
// come from the service: tables make them inert; dot and mermaid keep only plain characters.
import type { QueueGraph, QueueOrder } from '../domain/order.js';
import type { Block } from '../output/present.js';
import { plainColumns } from '../output/plain.js';
import { own, paints, type Row } from '../output/render.js';
import { stateColor } from '../output/style.js';

const SHORT_RUN = 8;
const prs = (ns: readonly number[]) => ns.map((n) => `#${n}`).join(' ');

/** `mq queue order` piped: one line per PR, the section first. */
export const ORDER_PLAIN = plainColumns('one line per PR, in dispatch order', [
  'section',
  'position',
  'pr',
  'state',
  'run',
  'predicted_batch',
  'directly_ahead',
  'held_by',
  'title',
]);

interface OrderRow {
  section: 'testing' | 'pending' | 'awaiting';
  position: number;
  pr: number;
  state: string;
  run: string;
  batch: string;
  ahead: number[];
  heldBy: number[];
  title: string;
}

export function orderRows(order: QueueOrder): OrderRow[] {
  const rows: OrderRow[] = [];
  let position = 0;
  for (const b of order.batches) {
    for (const p of b.prs) {
      rows.push({
        section: 'testing',
        position: ++position,
        pr: p.number,
        state: b.isBisection ? `${b.state} (bisection)` : b.state,
        run: b.runId ?? '',
        batch: '',
        ahead: [],
        heldBy: [],
        title: p.title ?? '',
      });
    }
  }
  for (const p of order.pending) {
    rows.push({
      section: 'pending',
      position: ++position,
      pr: p.number,
      state: p.schedulability,
      run: '',
      batch: p.predictedBatch === null ? '' : String(p.predictedBatch),
      ahead: p.directlyAhead,
      heldBy: p.heldBy,
      title: p.title ?? '',
    });
  }
  for (const p of order.awaitingAdmission) {
    rows.push({
      section: 'awaiting',
      position: ++position,
      pr: p.number,
      state: 'awaiting_admission',
      run: '',
      batch: '',
      ahead: [],
      heldBy: [],
      title: p.title ?? '',
    });
  }
  return rows;
}

export function orderBlocks(order: QueueOrder): Block[] {
  const rows = orderRows(order);
  if (rows.length === 0) return [{ lines: [own(paints.dim, 'The queue is empty.')] }];
  const table: Row[] = rows.map((r) => [
    String(r.position),
    `#${r.pr}`,
    { value: r.state, paint: stateColor },
    r.run.slice(0, SHORT_RUN),
    r.batch,
    prs(r.ahead),
    prs(r.heldBy),
    r.title,
  ]);
  const blocks: Block[] = [
    {
      headers: ['#', 'PR', 'State', 'Run', 'Batch', 'Ahead', 'Held by', 'Title'],
      rows: table,
      fit: { truncate: ['Title'], drop: ['Run', 'Batch'] },
    },
  ];
  const cut = order.awaitingAdmissionTotal - order.awaitingAdmission.length;
  if (cut > 0) blocks.push({ lines: [`${cut} more PR${cut === 1 ? '' : 's'} awaiting admission not listed.`] });
  if (order.approximate)
    blocks.push({ lines: [own(paints.dim, 'Approximate: v1 does not say which PRs share a run or what holds what.')] });
  return blocks;
}

export function orderPlain(order: QueueOrder): Block[] {
  const rows = orderRows(order).map((r) =>
    ORDER_PLAIN.row({
      section: r.section,
      position: String(r.position),
      pr: String(r.pr),
      state: r.state,
      run: r.run,
      predicted_batch: r.batch,
      directly_ahead: r.ahead.join(','),
      held_by: r.heldBy.join(','),
      title: r.title,
    }),
  );
  return [{ headers: [], rows }];
}

/** `mq queue graph` piped: one line per edge (`from` builds under `to`), then nodes without edges. */
export const GRAPH_PLAIN = plainColumns('one line per PR: the PRs it builds on', [
  'pr',
  'state',
  'priority',
  'run',
  'builds_on',
  'title',
]);

function buildsOn(graph: QueueGraph): Map<number, number[]> {
  const on = new Map<number, number[]>();
  for (const e of graph.edges) on.set(e.to, [...(on.get(e.to) ?? []), e.from]);
  return on;
}

export function graphBlocks(graph: QueueGraph): Block[] {
  if (graph.nodes.length === 0) return [{ lines: [own(paints.dim, 'The graph is empty.')] }];
  const on = buildsOn(graph);
  return [
    {
      headers: ['PR', 'State', 'Priority', 'Run', 'Builds on', 'Title'],
      rows: graph.nodes.map(
        (n): Row => [
          `#${n.number}`,
          { value: n.state, paint: stateColor },
          n.priorityValue === null ? '' : String(n.priorityValue),
          (n.runId ?? '').slice(0, SHORT_RUN),
          prs(on.get(n.number) ?? []),
          n.title ?? '',
        ],
      ),
      fit: { truncate: ['Title'], drop: ['Run', 'Priority'] },
    },
  ];
}

export function graphPlain(graph: QueueGraph): Block[] {
  const on = buildsOn(graph);
  const rows = graph.nodes.map((n) =>
    GRAPH_PLAIN.row({
      pr: String(n.number),
      state: n.state,
      priority: n.priorityValue === null ? '' : String(n.priorityValue),
      run: n.runId ?? '',
      builds_on: (on.get(n.number) ?? []).join(','),
      title: n.title ?? '',
    }),
  );
  return [{ headers: [], rows }];
}

/** A title reduced to characters no graph language gives a meaning to, and cut short. */
function label(text: string | null): string {
  const plain = (text ?? '')
    .replace(/[^A-Za-z0-9 _.,:/()+-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > 50 ? `${plain.slice(0, 49)}…` : plain;
}

export function toDot(graph: QueueGraph): string {
  const lines = ['digraph merge_queue {', '  rankdir=LR;', '  node [shape=box];'];
  for (const n of graph.nodes) lines.push(`  pr${n.number} [label="#${n.number} ${label(n.title)}\\n${n.state}"];`);
  for (const e of graph.edges) lines.push(`  pr${e.from} -> pr${e.to};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

export function toMermaid(graph: QueueGraph): string {
  const lines = ['flowchart LR'];
  for (const n of graph.nodes) lines.push(`  pr${n.number}["#${n.number} ${label(n.title)} (${n.state})"]`);
  for (const e of graph.edges) lines.push(`  pr${e.from} --> pr${e.to}`);
  return `${lines.join('\n')}\n`;
}
