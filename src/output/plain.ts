// Plain output for scripts: tab-separated raw values. Each command declares its lines once here; the
// same constant builds the rows and its --help paragraph, so they cannot drift.
import type { Cell, Field, Row } from './render.js';

/** Tab-separated columns with no header line, e.g. `pr<TAB>state<TAB>since`. */
export interface PlainColumns<K extends string = string> {
  kind: 'columns';
  /** What one line is, e.g. "one line per PR". */
  what: string;
  columns: readonly K[];
  /** A literal first field naming the kind of line (`trip`, `step`), when one output mixes kinds. */
  tag?: string;
  /** A row with exactly these columns, in the documented order. */
  row(values: Record<K, string | Cell>): Row;
}

/** `key<TAB>value` lines; a key may be left out when it has no value. */
export interface PlainKeys<K extends string = string> {
  kind: 'keys';
  what: string;
  keys: readonly K[];
  /** A field under a documented key (label and paint for the other formats). */
  field(key: K, label: string, value: string, paint?: Field['paint']): Field;
}

/** Nothing on stdout piped (the command reports on stderr and by its exit code). */
export interface PlainNone {
  kind: 'none';
  what: string;
}

export type PlainSpec = PlainColumns | PlainKeys | PlainNone;

export function plainColumns<const K extends string>(
  what: string,
  columns: readonly K[],
  tag?: string,
): PlainColumns<K> {
  return {
    kind: 'columns',
    what,
    columns,
    tag,
    row: (values) => [...(tag === undefined ? [] : [tag]), ...columns.map((c) => values[c])],
  };
}

/** How many tab-separated fields a line of this spec has. */
export function plainWidth(spec: PlainColumns): number {
  return spec.columns.length + (spec.tag === undefined ? 0 : 1);
}

export function plainKeys<const K extends string>(what: string, keys: readonly K[]): PlainKeys<K> {
  return { kind: 'keys', what, keys, field: (key, label, value, paint) => ({ key, label, value, paint }) };
}

export function plainNone(what: string): PlainNone {
  return { kind: 'none', what };
}

/** One spec as a help line: `one line per PR: pr<TAB>state<TAB>since`. */
export function plainSpecText(spec: PlainSpec): string {
  if (spec.kind === 'none') return spec.what;
  if (spec.kind === 'columns')
    return `${spec.what}: ${[...(spec.tag === undefined ? [] : [spec.tag]), ...spec.columns].join('<TAB>')}`;
  return `${spec.what}: key<TAB>value, keys ${spec.keys.join(', ')}`;
}

/** The `Plain output (piped):` paragraph of a command's help. */
export function plainHelpText(specs: readonly PlainSpec[], note?: string): string {
  const lines = specs.map((s) => `  ${plainSpecText(s)}`);
  return (
    `\nPlain output (piped, or -o plain): tab-separated, no header line, raw values (PR numbers without #, ` +
    `durations in whole seconds, times in ISO 8601 UTC).\n${lines.join('\n')}${note ? `\n${note}` : ''}`
  );
}

// ---- raw values -----------------------------------------------------------------------------------

/** Whole seconds from `iso` to `now` (never negative), or '' when the time is missing or malformed. */
export function plainSecondsSince(iso: string | null | undefined, now: number): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(t) ? '' : String(Math.max(0, Math.round((now - t) / 1000)));
}

/** A number as is, '' when missing. */
export function plainNumber(n: number | null | undefined): string {
  return n === null || n === undefined || Number.isNaN(n) ? '' : String(n);
}

/** true / false, '' when missing. */
export function plainBool(b: boolean | null | undefined): string {
  return b === null || b === undefined ? '' : String(b);
}

/** A list comma-separated (no spaces), '' when empty or missing. */
export function plainList(list: readonly (string | number)[] | null | undefined): string {
  return (list ?? []).join(',');
}
