// A strict parser of the Prometheus text exposition format 0.0.4 (pure, no dependencies): any line it
// cannot read or that contradicts an earlier one throws an ExpositionError naming it. Histogram/summary
// child series (`_bucket`, `_sum`, `_count`, `quantile`) group under their family; untyped samples form
// `untyped` families; split families merge, a repeated series is an error; order of first appearance.
// The merge-queue view of the result: merge-queue-metrics.ts.
import {
  ExpositionError,
  METRIC_TYPES,
  CHILD_SUFFIXES,
  parseFloatToken,
  isBlank,
  scanName,
  skipBlanks,
  scanToken,
  quote,
  formatSeries,
  ROLE_OF_SUFFIX,
  parseSampleLine,
  unescapeHelp,
  type MetricType,
  type Sample,
  type Family,
  type ChildSuffix,
  type FamilyState,
  type SampleRole,
} from './exposition-syntax.js';

export { ExpositionError, parseFloatToken, type Family, type MetricType, type Sample } from './exposition-syntax.js';

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
          found === ''
            ? `${keyword} line without a metric name`
            : `invalid metric name ${quote(found)} in ${keyword} line`,
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

      const typeEnd = scanToken(line, restStart);
      const type = line.slice(restStart, typeEnd);
      if (type === '') throw new ExpositionError(lineNo, `TYPE line for ${quote(name)} without a type`, restStart + 1);
      if (!METRIC_TYPES.has(type)) {
        throw new ExpositionError(
          lineNo,
          `unknown metric type ${quote(type)} for ${quote(name)}: expected counter, gauge, histogram, ` +
            `summary or untyped`,
          restStart + 1,
        );
      }
      const trailing = skipBlanks(line, typeEnd);
      if (trailing < line.length) {
        throw new ExpositionError(
          lineNo,
          `unexpected text ${quote(line.slice(trailing))} after the type`,
          trailing + 1,
        );
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
            `${quote(state.family.name)}, ${quote(`${state.family.name}_sum`)} ` +
            `and ${quote(`${state.family.name}_count`)} series`,
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
            `${quote(`${base}_bucket`)}, ${quote(`${base}_sum`)} or ${quote(`${base}_count`)}`,
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
