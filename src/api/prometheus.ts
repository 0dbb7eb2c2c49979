/**
 * Reading the merge queue service's Prometheus metrics.
 *
 * - `parseExposition` parses the Prometheus text exposition format, version 0.0.4. It is strict: any
 *   line it cannot read, or that contradicts an earlier line, throws an ExpositionError naming the
 *   line, so a caller never gets a half-parsed result.
 * - `histogramQuantile` estimates a quantile from cumulative buckets the way PromQL's
 *   histogram_quantile does.
 * - `summarizeMergeQueueMetrics` turns the parsed families into one record per queue.
 *
 * Pure functions, no imports: this module is cheap to load.
 *
 * Format notes (what the parser accepts):
 * - Lines end in `\n` (a `\r` before it is dropped). Blank lines are skipped; spaces and tabs
 *   separate tokens.
 * - `# HELP name text` (escapes `\\` and `\n`), `# TYPE name counter|gauge|histogram|summary|untyped`.
 *   Any other line starting with `#` is a comment. A family has at most one HELP and one TYPE line,
 *   both before its first sample.
 * - `name{label="value",...} value [timestamp]`: label values escape `\\`, `\"` and `\n`; a trailing
 *   comma in the label set is allowed; the value is a float (`NaN`, `+Inf`, `-Inf` and exponents
 *   included); the timestamp is integer milliseconds.
 * - A histogram `h` owns the samples `h_bucket` (with an `le` label), `h_sum` and `h_count`; a
 *   summary `s` owns `s` (with a `quantile` label), `s_sum` and `s_count`. These are grouped under the
 *   family. A sample that can only belong to such a family but does not fit it (a bare `h`, an
 *   `s_bucket`, a bucket without `le`) is an error. Samples with no TYPE line form `untyped` families.
 * - Samples of one family that are not contiguous are merged into that family; the same series
 *   (name and label set) appearing twice is an error. Families declared by HELP/TYPE but without
 *   samples are kept, with an empty `samples` array. Families come out in order of first appearance.
 */

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

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

const METRIC_TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INF_RE = /^([+-]?)inf(?:inity)?$/i;
const INT_RE = /^[+-]?\d+$/;
/** Suffixes that may attach a sample to a histogram or summary family. */
const CHILD_SUFFIXES = ['_bucket', '_sum', '_count'] as const;
type ChildSuffix = (typeof CHILD_SUFFIXES)[number];

/**
 * Parses a float the way the exposition format writes them: decimal with optional exponent, or
 * NaN / Inf / +Inf / -Inf (case-insensitive). Returns undefined for anything else, and for finite
 * literals too large to represent.
 */
function parseFloatToken(token: string): number | undefined {
  if (FLOAT_RE.test(token)) {
    const value = Number(token);
    return Number.isFinite(value) ? value : undefined;
  }
  if (token.toLowerCase() === 'nan') return NaN;
  const inf = INF_RE.exec(token);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

function isNameStart(c: string | undefined, allowColon: boolean): boolean {
  if (c === undefined) return false;
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || (allowColon && c === ':');
}

function isNameChar(c: string | undefined, allowColon: boolean): boolean {
  return isNameStart(c, allowColon) || (c !== undefined && c >= '0' && c <= '9');
}

/** Index just past the name starting at `i` (equal to `i` when there is none). */
function scanName(line: string, i: number, allowColon: boolean): number {
  if (!isNameStart(line[i], allowColon)) return i;
  let j = i + 1;
  while (isNameChar(line[j], allowColon)) j++;
  return j;
}

function skipBlanks(line: string, i: number): number {
  while (isBlank(line[i])) i++;
  return i;
}

/** Index just past the token (run of non-blank characters) starting at `i`. */
function scanToken(line: string, i: number): number {
  while (i < line.length && !isBlank(line[i])) i++;
  return i;
}

function quote(s: string): string {
  return JSON.stringify(s);
}

function formatSeries(name: string, labels: ReadonlyArray<readonly [string, string]>): string {
  if (labels.length === 0) return name;
  const body = labels
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
  return `${name}{${body}}`;
}

interface FamilyState {
  family: Family;
  helpLine?: number;
  typeLine?: number;
  /** Line of the first sample, or of the line that created the family from a sample. */
  firstSampleLine?: number;
}

/** How a sample relates to its family. */
type SampleRole = 'plain' | 'bucket' | 'sum' | 'count' | 'quantile';

const ROLE_OF_SUFFIX: Record<ChildSuffix, SampleRole> = { _bucket: 'bucket', _sum: 'sum', _count: 'count' };

interface ParsedSample {
  name: string;
  labels: Array<[string, string]>;
  value: number;
  timestamp?: number;
}

/** Parses one sample line; `start` is the index of its first non-blank character. */
function parseSampleLine(line: string, start: number, lineNo: number): ParsedSample {
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
function unescapeHelp(text: string, lineNo: number, column: number): string {
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

export function parseExposition(text: string): Family[] {
  const families: Family[] = [];
  const byName = new Map<string, FamilyState>();
  const seriesLines = new Map<string, number>();

  const create = (name: string, type: MetricType): FamilyState => {
    const family: Family = { name, type, samples: [] };
    const state: FamilyState = { family };
    families.push(family);
    byName.set(name, state);
    return state;
  };

  /** The histogram or summary family that `name` is a child series of, if any. */
  const parentOf = (name: string): { state: FamilyState; suffix: ChildSuffix } | undefined => {
    for (const suffix of CHILD_SUFFIXES) {
      if (name.length <= suffix.length || !name.endsWith(suffix)) continue;
      const state = byName.get(name.slice(0, -suffix.length));
      const type = state?.family.type;
      if (state && (type === 'histogram' || type === 'summary')) return { state, suffix };
    }
    return undefined;
  };

  const describe = (state: FamilyState): string => {
    const where = state.typeLine ?? state.helpLine ?? state.firstSampleLine;
    return `${state.family.type} ${quote(state.family.name)}${where === undefined ? '' : ` (line ${where})`}`;
  };

  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const lineNo = index + 1;
    let line = lines[index] ?? '';
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const start = skipBlanks(line, 0);
    if (start >= line.length) continue;

    if (line[start] === '#') {
      const keywordStart = skipBlanks(line, start + 1);
      const keywordEnd = scanToken(line, keywordStart);
      const keyword = line.slice(keywordStart, keywordEnd);
      if (keyword !== 'HELP' && keyword !== 'TYPE') continue; // an ordinary comment

      const nameStart = skipBlanks(line, keywordEnd);
      const nameEnd = scanName(line, nameStart, true);
      if (nameEnd === nameStart || (nameEnd < line.length && !isBlank(line[nameEnd]))) {
        const found = line.slice(nameStart, scanToken(line, nameStart));
        throw new ExpositionError(
          lineNo,
          found === '' ? `${keyword} line without a metric name` : `invalid metric name ${quote(found)} in ${keyword} line`,
          nameStart + 1,
        );
      }
      const name = line.slice(nameStart, nameEnd);
      const parent = parentOf(name);
      if (parent) {
        throw new ExpositionError(
          lineNo,
          `${keyword} line for ${quote(name)}, which is a series of ${describe(parent.state)}`,
          nameStart + 1,
        );
      }
      const existing = byName.get(name);
      const restStart = skipBlanks(line, nameEnd);

      if (keyword === 'HELP') {
        if (existing?.helpLine !== undefined) {
          throw new ExpositionError(lineNo, `second HELP line for ${quote(name)} (first at line ${existing.helpLine})`);
        }
        if (existing?.firstSampleLine !== undefined) {
          throw new ExpositionError(
            lineNo,
            `HELP line for ${quote(name)} comes after its samples (first at line ${existing.firstSampleLine})`,
          );
        }
        const state = existing ?? create(name, 'untyped');
        state.family.help = unescapeHelp(line.slice(restStart), lineNo, restStart + 1);
        state.helpLine = lineNo;
        continue;
      }

      // TYPE
      const typeEnd = scanToken(line, restStart);
      const type = line.slice(restStart, typeEnd);
      if (type === '') throw new ExpositionError(lineNo, `TYPE line for ${quote(name)} without a type`, restStart + 1);
      if (!METRIC_TYPES.has(type)) {
        throw new ExpositionError(
          lineNo,
          `unknown metric type ${quote(type)} for ${quote(name)}: expected counter, gauge, histogram, summary or untyped`,
          restStart + 1,
        );
      }
      const trailing = skipBlanks(line, typeEnd);
      if (trailing < line.length) {
        throw new ExpositionError(lineNo, `unexpected text ${quote(line.slice(trailing))} after the type`, trailing + 1);
      }
      if (existing?.typeLine !== undefined) {
        throw new ExpositionError(lineNo, `second TYPE line for ${quote(name)} (first at line ${existing.typeLine})`);
      }
      if (existing?.firstSampleLine !== undefined) {
        throw new ExpositionError(
          lineNo,
          `TYPE line for ${quote(name)} comes after its samples (first at line ${existing.firstSampleLine})`,
        );
      }
      if (type === 'histogram' || type === 'summary') {
        for (const suffix of CHILD_SUFFIXES) {
          const clash = byName.get(name + suffix);
          if (clash) {
            throw new ExpositionError(
              lineNo,
              `${type} ${quote(name)} needs the name ${quote(name + suffix)}, already used by ${describe(clash)}`,
            );
          }
        }
      }
      const state = existing ?? create(name, type as MetricType);
      state.family.type = type as MetricType;
      state.typeLine = lineNo;
      continue;
    }

    // A sample line.
    const parsed = parseSampleLine(line, start, lineNo);
    let state: FamilyState;
    let role: SampleRole;
    const parent = parentOf(parsed.name);
    if (parent) {
      state = parent.state;
      if (state.family.type === 'summary' && parent.suffix === '_bucket') {
        throw new ExpositionError(
          lineNo,
          `sample ${quote(parsed.name)} does not fit ${describe(state)}: a summary has only ` +
            `${quote(state.family.name)}, ${quote(state.family.name + '_sum')} and ${quote(state.family.name + '_count')} series`,
          start + 1,
        );
      }
      role = ROLE_OF_SUFFIX[parent.suffix];
    } else {
      const own = byName.get(parsed.name);
      if (own?.family.type === 'histogram') {
        const base = own.family.name;
        throw new ExpositionError(
          lineNo,
          `sample ${quote(parsed.name)} does not fit ${describe(own)}: expected ` +
            `${quote(base + '_bucket')}, ${quote(base + '_sum')} or ${quote(base + '_count')}`,
          start + 1,
        );
      }
      state = own ?? create(parsed.name, 'untyped');
      role = state.family.type === 'summary' ? 'quantile' : 'plain';
    }

    const requiredLabel = role === 'bucket' ? 'le' : role === 'quantile' ? 'quantile' : undefined;
    if (requiredLabel !== undefined) {
      const entry = parsed.labels.find(([k]) => k === requiredLabel);
      if (!entry) {
        throw new ExpositionError(
          lineNo,
          `sample ${quote(parsed.name)} of ${describe(state)} has no ${quote(requiredLabel)} label`,
          start + 1,
        );
      }
      if (parseFloatToken(entry[1]) === undefined) {
        throw new ExpositionError(
          lineNo,
          `label ${requiredLabel}=${quote(entry[1])} of ${quote(parsed.name)} is not a number`,
          start + 1,
        );
      }
    }

    const sortedLabels = [...parsed.labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const seriesKey = JSON.stringify([parsed.name, sortedLabels]);
    const firstLine = seriesLines.get(seriesKey);
    if (firstLine !== undefined) {
      throw new ExpositionError(
        lineNo,
        `duplicate series ${formatSeries(parsed.name, sortedLabels)} (first at line ${firstLine})`,
        start + 1,
      );
    }
    seriesLines.set(seriesKey, lineNo);

    state.firstSampleLine ??= lineNo;
    // Object.fromEntries defines own properties, so a label named "__proto__" stays a label.
    const sample: Sample = { name: parsed.name, labels: Object.fromEntries(parsed.labels), value: parsed.value };
    if (parsed.timestamp !== undefined) sample.timestamp = parsed.timestamp;
    state.family.samples.push(sample);
  }
  return families;
}

// ---------------------------------------------------------------------------------------------
// Quantiles
// ---------------------------------------------------------------------------------------------

/**
 * Estimates the q-quantile from cumulative histogram buckets, following PromQL's
 * histogram_quantile:
 * - buckets are sorted by upper bound; buckets sharing an upper bound are added together; counts
 *   that go down are raised to the running maximum;
 * - there must be a +Inf bucket and at least one finite one, and at least one observation;
 *   otherwise the result is undefined (where PromQL answers NaN);
 * - the value is interpolated linearly inside the bucket holding the rank q × count; the first
 *   bucket starts at 0 when its upper bound is positive (and its upper bound is returned when it is
 *   not); a rank in the +Inf bucket returns the highest finite upper bound;
 * - q < 0 gives -Infinity and q > 1 gives +Infinity, as in PromQL; q = NaN gives undefined;
 * - q = 0 gives the lower bound of the first bucket holding an observation (PromQL gives NaN when
 *   the first bucket is empty).
 * Buckets whose `le` or `count` is NaN are ignored. The input array is not modified.
 */
export function histogramQuantile(buckets: ReadonlyArray<{ le: number; count: number }>, q: number): number | undefined {
  if (Number.isNaN(q)) return undefined;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;

  const sorted = buckets
    .filter((b) => !Number.isNaN(b.le) && !Number.isNaN(b.count))
    .map((b) => ({ le: b.le, count: b.count }))
    .sort((a, b) => a.le - b.le || 0);
  const merged: Array<{ le: number; count: number }> = [];
  for (const b of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.le === b.le) last.count += b.count;
    else merged.push(b);
  }
  let max = -Infinity;
  for (const b of merged) {
    if (b.count < max) b.count = max;
    else max = b.count;
  }

  const last = merged[merged.length - 1];
  if (!last || last.le !== Infinity || merged.length < 2) return undefined;
  const observations = last.count;
  if (!(observations > 0)) return undefined;

  let rank = q * observations;
  // The first finite bucket whose cumulative count reaches the rank (for q = 0, the first that holds
  // any observation); merged.length - 1 if there is none.
  let b = 0;
  const reached = (count: number): boolean => count >= rank && count > 0;
  while (b < merged.length - 1 && !reached((merged[b] as { count: number }).count)) b++;
  if (b === merged.length - 1) return (merged[b - 1] as { le: number }).le;

  const bucket = merged[b] as { le: number; count: number };
  if (b === 0 && bucket.le <= 0) return bucket.le;
  let start = 0;
  let count = bucket.count;
  const previous = merged[b - 1];
  if (previous) {
    start = previous.le;
    count -= previous.count;
    rank -= previous.count;
  }
  return start + (bucket.le - start) * (rank / count);
}

// ---------------------------------------------------------------------------------------------
// The merge-queue view
// ---------------------------------------------------------------------------------------------

export type HistogramKey = 'wait' | 'test' | 'timeInQueue';

export interface HistogramSummary {
  /** Observations in the window (from `_count`, else the +Inf bucket). */
  count: number;
  /** Sum of the observations, in seconds (NaN when the service sent no `_sum`). */
  sum: number;
  /** Estimated median in seconds; absent when there were no observations. */
  p50?: number;
  /** Estimated 90th percentile in seconds; absent when there were no observations. */
  p90?: number;
}

export interface QueueMetrics {
  /** "owner/name". */
  repo: string;
  branch: string;
  /** "main" or "bisection" (other values are passed through). */
  queueType: string;
  depth?: number;
  awaitingMergeability?: number;
  testingSlotsActive?: number;
  /** PRs that left the queue in the last hour, by conclusion (merged, failed, cancelled, ...). */
  conclusions: Record<string, number>;
  restarts?: number;
  /** Only the histograms the service has series for, for this queue. */
  histograms: Partial<Record<HistogramKey, HistogramSummary>>;
}

type ScalarField = 'depth' | 'awaitingMergeability' | 'testingSlotsActive' | 'restarts';

/** The families the summary reads; anything else is ignored. */
export const MERGE_QUEUE_FAMILIES = {
  scalars: {
    mq_depth_current: 'depth',
    mq_awaiting_mergeability: 'awaitingMergeability',
    mq_testing_slots_active: 'testingSlotsActive',
    mq_pr_restarts_1h_total: 'restarts',
  },
  conclusions: 'mq_pr_conclusions_1h_total',
  histograms: {
    mq_pr_wait_duration_1h_seconds: 'wait',
    mq_pr_test_duration_1h_seconds: 'test',
    mq_pr_time_in_queue_1h_seconds: 'timeInQueue',
  },
} as const satisfies {
  scalars: Record<string, ScalarField>;
  conclusions: string;
  histograms: Record<string, HistogramKey>;
};

const SCALAR_FAMILIES: ReadonlyMap<string, ScalarField> = new Map(Object.entries(MERGE_QUEUE_FAMILIES.scalars));
const HISTOGRAM_FAMILIES: ReadonlyMap<string, HistogramKey> = new Map(
  Object.entries(MERGE_QUEUE_FAMILIES.histograms),
);

interface HistogramAcc {
  buckets: Map<number, number>;
  sum?: number;
  count?: number;
}

interface QueueAcc {
  repo: string;
  branch: string;
  queueType: string;
  scalars: Map<ScalarField, number>;
  conclusions: Map<string, number>;
  histograms: Map<HistogramKey, HistogramAcc>;
}

function queueTypeRank(queueType: string): number {
  return queueType === 'main' ? 0 : queueType === 'bisection' ? 1 : 2;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function add<K>(map: Map<K, number>, key: K, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

/**
 * One record per (repo, branch, queue_type) found in the merge-queue families, sorted by repo, then
 * branch, then queue type (main, bisection, then any other alphabetically). Series lacking one of
 * the three labels are skipped. Series that differ only in other labels (an `instance`, say) are
 * added together, like `sum by (repo, branch, queue_type)`. Families other than the merge-queue
 * ones, and histogram families not typed `histogram`, are ignored.
 */
export function summarizeMergeQueueMetrics(families: readonly Family[]): QueueMetrics[] {
  const queues = new Map<string, QueueAcc>();
  const queueFor = (labels: Record<string, string>): QueueAcc | undefined => {
    const { repo, branch, queue_type: queueType } = labels;
    if (repo === undefined || branch === undefined || queueType === undefined) return undefined;
    const key = JSON.stringify([repo, branch, queueType]);
    let acc = queues.get(key);
    if (!acc) {
      acc = { repo, branch, queueType, scalars: new Map(), conclusions: new Map(), histograms: new Map() };
      queues.set(key, acc);
    }
    return acc;
  };

  for (const family of families) {
    const scalar = SCALAR_FAMILIES.get(family.name);
    const isConclusions = family.name === MERGE_QUEUE_FAMILIES.conclusions;
    if (scalar !== undefined || isConclusions) {
      if (family.type === 'histogram' || family.type === 'summary') continue;
      for (const sample of family.samples) {
        if (sample.name !== family.name) continue;
        const acc = queueFor(sample.labels);
        if (!acc) continue;
        if (scalar !== undefined) {
          add(acc.scalars, scalar, sample.value);
        } else {
          const conclusion = sample.labels['conclusion'];
          if (conclusion !== undefined) {
            add(acc.conclusions, conclusion, sample.value);
          }
        }
      }
      continue;
    }

    const histogram = HISTOGRAM_FAMILIES.get(family.name);
    if (histogram === undefined || family.type !== 'histogram') continue;
    for (const sample of family.samples) {
      const suffix = sample.name.startsWith(family.name) ? sample.name.slice(family.name.length) : undefined;
      if (suffix !== '_bucket' && suffix !== '_sum' && suffix !== '_count') continue;
      let le: number | undefined;
      if (suffix === '_bucket') {
        const raw = sample.labels['le'];
        le = raw === undefined ? undefined : parseFloatToken(raw);
        if (le === undefined || Number.isNaN(le)) continue;
      }
      const acc = queueFor(sample.labels);
      if (!acc) continue;
      let h = acc.histograms.get(histogram);
      if (!h) {
        h = { buckets: new Map() };
        acc.histograms.set(histogram, h);
      }
      if (le !== undefined) add(h.buckets, le, sample.value);
      else if (suffix === '_sum') h.sum = (h.sum ?? 0) + sample.value;
      else h.count = (h.count ?? 0) + sample.value;
    }
  }

  const result: QueueMetrics[] = [];
  for (const acc of queues.values()) {
    const record: QueueMetrics = {
      repo: acc.repo,
      branch: acc.branch,
      queueType: acc.queueType,
      conclusions: Object.fromEntries(acc.conclusions),
      histograms: {},
    };
    for (const [field, value] of acc.scalars) record[field] = value;
    for (const [key, h] of acc.histograms) {
      const buckets = [...h.buckets].map(([le, count]) => ({ le, count }));
      const summary: HistogramSummary = {
        count: h.count ?? h.buckets.get(Infinity) ?? 0,
        sum: h.sum ?? NaN,
      };
      const p50 = histogramQuantile(buckets, 0.5);
      const p90 = histogramQuantile(buckets, 0.9);
      if (p50 !== undefined) summary.p50 = p50;
      if (p90 !== undefined) summary.p90 = p90;
      record.histograms[key] = summary;
    }
    result.push(record);
  }
  return result.sort(
    (a, b) =>
      compareStrings(a.repo, b.repo) ||
      compareStrings(a.branch, b.branch) ||
      queueTypeRank(a.queueType) - queueTypeRank(b.queueType) ||
      compareStrings(a.queueType, b.queueType),
  );
}
