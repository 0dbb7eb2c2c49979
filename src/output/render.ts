/**
 * Turns view data into text for one of the output formats. Views build fields and rows once;
 * this module decides how they look: coloured on a terminal, tab-separated when piped,
 * a pipe table for markdown (step summaries), one JSON document for --json.
 */
import type { Style } from './style.js';

export const FORMATS = ['table', 'plain', 'json', 'markdown', 'raw'] as const;
export type Format = (typeof FORMATS)[number];

export interface Field {
  /** Stable machine key, used in plain output. */
  key: string;
  /** Human label, used on a terminal and in markdown. */
  label: string;
  value: string;
  /** Coloured variant of value for a terminal. */
  styled?: string;
}

export function json(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

function oneLine(value: string): string {
  return value.replace(/[\t\r\n]+/g, ' ');
}

function mdCell(value: string): string {
  return oneLine(value).replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

export function renderFields(fields: Field[], format: Format, style: Style, title?: string): string {
  if (format === 'plain' || format === 'raw') {
    return fields.map((f) => `${f.key}\t${oneLine(f.value)}\n`).join('');
  }
  if (format === 'markdown') {
    const head = title ? `### ${mdCell(title)}\n\n` : '';
    return `${head}| Field | Value |\n| --- | --- |\n${fields.map((f) => `| ${mdCell(f.label)} | ${mdCell(f.value)} |\n`).join('')}`;
  }
  const width = Math.max(0, ...fields.map((f) => f.label.length));
  const head = title ? `${style.bold(title)}\n` : '';
  return head + fields.map((f) => `${style.dim(`${f.label.padEnd(width)}`)}  ${f.styled ?? f.value}\n`).join('');
}

export interface Cell {
  value: string;
  styled?: string;
}
export type Row = Array<string | Cell>;

const plainOf = (c: string | Cell): string => (typeof c === 'string' ? c : c.value);
const styledOf = (c: string | Cell): string => (typeof c === 'string' ? c : (c.styled ?? c.value));

export async function renderRows(headers: string[], rows: Row[], format: Format, style: Style): Promise<string> {
  if (format === 'plain' || format === 'raw') {
    return rows.map((r) => `${r.map((c) => oneLine(plainOf(c))).join('\t')}\n`).join('');
  }
  if (format === 'markdown') {
    const lines = [`| ${headers.map(mdCell).join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
    for (const r of rows) lines.push(`| ${r.map((c) => mdCell(plainOf(c))).join(' | ')} |`);
    return `${lines.join('\n')}\n`;
  }
  // cli-table3 is only needed on a terminal; load it then.
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: headers.map((h) => style.bold(h)),
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of rows) table.push(r.map(styledOf));
  return `${table.toString()}\n`;
}
