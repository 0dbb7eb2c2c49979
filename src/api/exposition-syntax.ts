// Line-level syntax of the Prometheus text format (tokens, label sets, escapes) for prometheus.ts. Pure.
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name, e.g. `h_bucket` for a bucket of histogram `h`. */
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the epoch, when the line carries one. */
  timestamp?: number;
}

export interface Family {
  name: string;
  help?: string;
  type: MetricType;
  samples: Sample[];
}

export class ExpositionError extends Error {
  override readonly name = 'ExpositionError';
  /** 1-based line number in the input. */
  readonly line: number;
  /** 1-based column, when the problem is at a known position in the line. */
  readonly column: number | undefined;
  /** The problem, without the position. */
  readonly reason: string;

  constructor(line: number, reason: string, column?: number) {
    super(`line ${line}${column === undefined ? '' : `, column ${column}`}: ${reason}`);
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

// ---- Parsing ----

export const METRIC_TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
export const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
export const INF_RE = /^([+-]?)inf(?:inity)?$/i;
export const INT_RE = /^[+-]?\d+$/;
/** Suffixes that may attach a sample to a histogram or summary family. */
export const CHILD_SUFFIXES = ['_bucket', '_sum', '_count'] as const;
export type ChildSuffix = (typeof CHILD_SUFFIXES)[number];

/** A float as the format writes it (decimal, exponent, NaN/±Inf any case); undefined otherwise or if too large. */
export function parseFloatToken(token: string): number | undefined {
  if (FLOAT_RE.test(token)) {
    const value = Number(token);
    return Number.isFinite(value) ? value : undefined;
  }
  if (token.toLowerCase() === 'nan') return NaN;
  const inf = INF_RE.exec(token);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

export function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

export function isNameStart(c: string | undefined, allowColon: boolean): boolean {
  if (c === undefined) return false;
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || (allowColon && c === ':');
}

export function isNameChar(c: string | undefined, allowColon: boolean): boolean {
  return isNameStart(c, allowColon) || (c !== undefined && c >= '0' && c <= '9');
}

/** Index just past the name starting at `i` (equal to `i` when there is none). */
export function scanName(line: string, i: number, allowColon: boolean): number {
  if (!isNameStart(line[i], allowColon)) return i;
  let j = i + 1;
  while (isNameChar(line[j], allowColon)) j++;
  return j;
}

export function skipBlanks(line: string, i: number): number {
  while (isBlank(line[i])) i++;
  return i;
}

/** Index just past the token (run of non-blank characters) starting at `i`. */
export function scanToken(line: string, i: number): number {
  while (i < line.length && !isBlank(line[i])) i++;
  return i;
}

export function quote(s: string): string {
  return JSON.stringify(s);
}

export function formatSeries(name: string, labels: ReadonlyArray<readonly [string, string]>): string {
  if (labels.length === 0) return name;
  const body = labels
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
  return `${name}{${body}}`;
}

export interface FamilyState {
  family: Family;
  helpLine?: number;
  typeLine?: number;
  /** Line of the first sample, or of the line that created the family from a sample. */
  firstSampleLine?: number;
}

/** How a sample relates to its family. */
export type SampleRole = 'plain' | 'bucket' | 'sum' | 'count' | 'quantile';

export const ROLE_OF_SUFFIX: Record<ChildSuffix, SampleRole> = { _bucket: 'bucket', _sum: 'sum', _count: 'count' };

export interface ParsedSample {
  name: string;
  labels: Array<[string, string]>;
  value: number;
  timestamp?: number;
}

/** Parses one sample line; `start` is the index of its first non-blank character. */
export function parseSampleLine(line: string, start: number, lineNo: number): ParsedSample {
  const fail = (reason: string, index: number): ExpositionError => new ExpositionError(lineNo, reason, index + 1);

  const nameEnd = scanName(line, start, true);
  if (nameEnd === start) {
    throw fail(`expected a metric name, found ${quote(line[start] ?? '')}`, start);
  }
  const name = line.slice(start, nameEnd);
  let i = nameEnd;
  if (i < line.length && !isBlank(line[i]) && line[i] !== '{') {
    throw fail(`invalid character ${quote(line[i] ?? '')} in metric name ${quote(name)}`, i);
  }
  i = skipBlanks(line, i);

  const labels: Array<[string, string]> = [];
  if (line[i] === '{') {
    const open = i;
    i++;
    const seen = new Set<string>();
    for (;;) {
      i = skipBlanks(line, i);
      if (line[i] === '}') {
        i++;
        break;
      }
      if (i >= line.length) throw fail(`label set opened at column ${open + 1} is not closed`, i);
      const labelEnd = scanName(line, i, false);
      if (labelEnd === i) throw fail(`expected a label name or "}", found ${quote(line[i] ?? '')}`, i);
      const label = line.slice(i, labelEnd);
      i = skipBlanks(line, labelEnd);
      if (line[i] !== '=') throw fail(`expected "=" after label name ${quote(label)}`, i);
      i = skipBlanks(line, i + 1);
      if (line[i] !== '"') throw fail(`value of label ${quote(label)} must be a double-quoted string`, i);
      const valueStart = i;
      i++;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) {
          throw fail(`unterminated value for label ${quote(label)} (opened at column ${valueStart + 1})`, valueStart);
        } else if (c === '"') {
          i++;
          break;
        } else if (c === '\\') {
          const next = line[i + 1];
          if (next === '\\') value += '\\';
          else if (next === '"') value += '"';
          else if (next === 'n') value += '\n';
          else if (next === undefined) {
            throw fail(`unterminated value for label ${quote(label)} (opened at column ${valueStart + 1})`, valueStart);
          } else throw fail(`invalid escape sequence "\\${next}" in value of label ${quote(label)}`, i);
          i += 2;
        } else {
          value += c;
          i++;
        }
      }
      if (label === '__name__') throw fail('label name "__name__" is reserved', valueStart);
      if (seen.has(label)) throw fail(`duplicate label ${quote(label)}`, valueStart);
      seen.add(label);
      labels.push([label, value]);
      i = skipBlanks(line, i);
      if (line[i] === ',') {
        i++;
      } else if (line[i] === '}') {
        i++;
        break;
      } else if (i >= line.length) {
        throw fail(`label set opened at column ${open + 1} is not closed`, i);
      } else {
        throw fail(`expected "," or "}" after the value of label ${quote(label)}, found ${quote(line[i] ?? '')}`, i);
      }
    }
    i = skipBlanks(line, i);
  }

  if (i >= line.length) throw fail(`missing value for sample ${quote(name)}`, i);
  const valueEnd = scanToken(line, i);
  const valueToken = line.slice(i, valueEnd);
  const value = parseFloatToken(valueToken);
  if (value === undefined) throw fail(`invalid sample value ${quote(valueToken)} for ${quote(name)}`, i);
  const sample: ParsedSample = { name, labels, value };

  i = skipBlanks(line, valueEnd);
  if (i < line.length) {
    const tsEnd = scanToken(line, i);
    const tsToken = line.slice(i, tsEnd);
    const ts = Number(tsToken);
    if (!INT_RE.test(tsToken) || !Number.isSafeInteger(ts)) {
      throw fail(`invalid timestamp ${quote(tsToken)}: expected integer milliseconds`, i);
    }
    sample.timestamp = ts;
    i = skipBlanks(line, tsEnd);
    if (i < line.length) throw fail(`unexpected text ${quote(line.slice(i))} after the timestamp`, i);
  }
  return sample;
}

/** Undoes the escapes of a HELP text: `\\` and `\n`. */
export function unescapeHelp(text: string, lineNo: number, column: number): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[i + 1];
    if (next === '\\') out += '\\';
    else if (next === 'n') out += '\n';
    else {
      const what = next === undefined ? 'a lone "\\" at the end' : `invalid escape sequence "\\${next}"`;
      throw new ExpositionError(lineNo, `${what} in HELP text`, column + i);
    }
    i++;
  }
  return out;
}
