import { describe, expect, it } from 'vitest';
import { histogramQuantile, summarizeMergeQueueMetrics, type QueueMetrics } from '../../src/api/merge-queue-metrics.js';
import { ExpositionError, parseExposition, type Family } from '../../src/api/prometheus.js';

const LES = ['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf'];

/** The lines of one histogram series: 9 buckets, _sum, _count. */
function histogramLines(name: string, labels: string, counts: number[], sum: number, count: number): string {
  if (counts.length !== LES.length) throw new Error('need one count per bucket');
  const buckets = LES.map((le, i) => `${name}_bucket{${labels},le="${le}"} ${counts[i]}`);
  return [...buckets, `${name}_sum{${labels}} ${sum}`, `${name}_count{${labels}} ${count}`].join('\n');
}

const MM = 'repo="acme/widgets",branch="main",queue_type="main"';
const MB = 'repo="acme/widgets",branch="main",queue_type="bisection"';
const RM = 'repo="acme/widgets",branch="release/2.x",queue_type="main"';
const RB = 'repo="acme/widgets",branch="release/2.x",queue_type="bisection"';
const ZERO = [0, 0, 0, 0, 0, 0, 0, 0, 0];

/** What the service serves: every merge-queue family, two branches, both queue types, plus noise. */
const SERVICE_EXPOSITION = `# Merge queue service metrics
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
# HELP mq_depth_current PRs currently in the queue.
# TYPE mq_depth_current gauge
mq_depth_current{${RB}} 0
mq_depth_current{${RM}} 1
mq_depth_current{${MB}} 2
mq_depth_current{${MM}} 7
# HELP mq_awaiting_mergeability PRs waiting for a mergeability check.
# TYPE mq_awaiting_mergeability gauge
mq_awaiting_mergeability{${MM}} 3
mq_awaiting_mergeability{${MB}} 0
mq_awaiting_mergeability{${RM}} 1
mq_awaiting_mergeability{${RB}} 0

# HELP mq_testing_slots_active Test slots in use.
# TYPE mq_testing_slots_active gauge
mq_testing_slots_active{${MM}} 4
mq_testing_slots_active{${MB}} 2
mq_testing_slots_active{${RM}} 1
mq_testing_slots_active{${RB}} 0
# HELP mq_pr_conclusions_1h_total PRs that left the queue in the last hour.
# TYPE mq_pr_conclusions_1h_total gauge
mq_pr_conclusions_1h_total{${MM},conclusion="merged"} 41
mq_pr_conclusions_1h_total{${MM},conclusion="failed"} 3
mq_pr_conclusions_1h_total{${MM},conclusion="cancelled"} 2
mq_pr_conclusions_1h_total{${MM},conclusion="dequeued"} 1
mq_pr_conclusions_1h_total{${MB},conclusion="merged"} 0
mq_pr_conclusions_1h_total{${MB},conclusion="failed"} 2
mq_pr_conclusions_1h_total{${MB},conclusion="cancelled"} 0
mq_pr_conclusions_1h_total{${RM},conclusion="merged"} 5
mq_pr_conclusions_1h_total{${RM},conclusion="failed"} 0
mq_pr_conclusions_1h_total{${RM},conclusion="cancelled"} 1
mq_pr_conclusions_1h_total{${RB},conclusion="merged"} 0
mq_pr_conclusions_1h_total{${RB},conclusion="failed"} 0
mq_pr_conclusions_1h_total{${RB},conclusion="cancelled"} 0
# HELP mq_pr_restarts_1h_total PR test restarts in the last hour.
# TYPE mq_pr_restarts_1h_total gauge
mq_pr_restarts_1h_total{${MM}} 6
mq_pr_restarts_1h_total{${MB}} 1
mq_pr_restarts_1h_total{${RM}} 0
mq_pr_restarts_1h_total{${RB}} 0
# HELP mq_pr_wait_duration_1h_seconds Time from entering the queue to the start of testing.
# TYPE mq_pr_wait_duration_1h_seconds histogram
${histogramLines('mq_pr_wait_duration_1h_seconds', MM, [2, 6, 9, 10, 10, 10, 10, 10, 10], 2460, 10)}
${histogramLines('mq_pr_wait_duration_1h_seconds', MB, [5, 10, 10, 10, 10, 10, 10, 10, 10], 900, 10)}
${histogramLines('mq_pr_wait_duration_1h_seconds', RM, [0, 2, 2, 2, 2, 2, 2, 2, 2], 240, 2)}
${histogramLines('mq_pr_wait_duration_1h_seconds', RB, ZERO, 0, 0)}
# HELP mq_pr_test_duration_1h_seconds Duration of test runs.
# TYPE mq_pr_test_duration_1h_seconds histogram
${histogramLines('mq_pr_test_duration_1h_seconds', MM, [0, 1, 3, 4, 8, 10, 10, 10, 10], 12345.5, 10)}
${histogramLines('mq_pr_test_duration_1h_seconds', MB, [0, 0, 0, 5, 10, 10, 10, 10, 10], 9000, 10)}
${histogramLines('mq_pr_test_duration_1h_seconds', RM, [0, 0, 0, 0, 0, 0, 0, 0, 1], 9000, 1)}
${histogramLines('mq_pr_test_duration_1h_seconds', RB, ZERO, 0, 0)}
# HELP mq_pr_time_in_queue_1h_seconds Time from entering to leaving the queue.
# TYPE mq_pr_time_in_queue_1h_seconds histogram
${histogramLines('mq_pr_time_in_queue_1h_seconds', MM, [0, 0, 1, 2, 4, 8, 9, 10, 12], 40000, 12)}
${histogramLines('mq_pr_time_in_queue_1h_seconds', MB, ZERO, 0, 0)}
${histogramLines('mq_pr_time_in_queue_1h_seconds', RM, [0, 0, 0, 0, 0, 2, 2, 2, 2], 5000, 2)}
${histogramLines('mq_pr_time_in_queue_1h_seconds', RB, ZERO, 0, 0)}
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7000000123e+09
`;

const parse = parseExposition;

function expositionError(text: string): ExpositionError {
  try {
    parseExposition(text);
  } catch (error) {
    if (error instanceof ExpositionError) return error;
    throw error;
  }
  throw new Error('parseExposition accepted the input');
}

describe('parseExposition', () => {
  it('parses a HELP/TYPE/sample family into the documented shape', () => {
    const text = [
      '# HELP http_requests_total Requests served.',
      '# TYPE http_requests_total counter',
      'http_requests_total{method="post",code="200"} 1027 1395066363000',
      'http_requests_total{method="post",code="400"} 3',
    ].join('\n');
    expect(parse(text)).toStrictEqual([
      {
        name: 'http_requests_total',
        help: 'Requests served.',
        type: 'counter',
        samples: [
          {
            name: 'http_requests_total',
            labels: { method: 'post', code: '200' },
            value: 1027,
            timestamp: 1395066363000,
          },
          { name: 'http_requests_total', labels: { method: 'post', code: '400' }, value: 3 },
        ],
      },
    ]);
  });

  it('reads the full service exposition: families in order, histogram series grouped', () => {
    const families = parse(SERVICE_EXPOSITION);
    expect(families.map((f) => [f.name, f.type, f.samples.length])).toStrictEqual([
      ['go_goroutines', 'gauge', 1],
      ['mq_depth_current', 'gauge', 4],
      ['mq_awaiting_mergeability', 'gauge', 4],
      ['mq_testing_slots_active', 'gauge', 4],
      ['mq_pr_conclusions_1h_total', 'gauge', 13],
      ['mq_pr_restarts_1h_total', 'gauge', 4],
      ['mq_pr_wait_duration_1h_seconds', 'histogram', 44],
      ['mq_pr_test_duration_1h_seconds', 'histogram', 44],
      ['mq_pr_time_in_queue_1h_seconds', 'histogram', 44],
      ['process_start_time_seconds', 'gauge', 1],
    ]);
    const wait = families[6];
    expect(wait?.help).toBe('Time from entering the queue to the start of testing.');
    expect(wait?.samples.slice(8, 11)).toStrictEqual([
      {
        name: 'mq_pr_wait_duration_1h_seconds_bucket',
        labels: { repo: 'acme/widgets', branch: 'main', queue_type: 'main', le: '+Inf' },
        value: 10,
      },
      {
        name: 'mq_pr_wait_duration_1h_seconds_sum',
        labels: { repo: 'acme/widgets', branch: 'main', queue_type: 'main' },
        value: 2460,
      },
      {
        name: 'mq_pr_wait_duration_1h_seconds_count',
        labels: { repo: 'acme/widgets', branch: 'main', queue_type: 'main' },
        value: 10,
      },
    ]);
    expect(families[9]?.samples[0]?.value).toBe(1700000012.3);
  });

  it.each([
    { label: 'an escaped quote', raw: String.raw`say \"hi\"`, expected: 'say "hi"' },
    { label: 'an escaped backslash', raw: String.raw`C:\\dir\\`, expected: 'C:\\dir\\' },
    { label: 'an escaped newline', raw: String.raw`line1\nline2`, expected: 'line1\nline2' },
    { label: 'a backslash before n', raw: String.raw`a\\nb`, expected: 'a\\nb' },
    { label: 'a comma and braces', raw: 'x,y}z{w', expected: 'x,y}z{w' },
    { label: 'an equals sign and spaces', raw: ' a = b ', expected: ' a = b ' },
    { label: 'a hash', raw: '# not a comment', expected: '# not a comment' },
    { label: 'nothing', raw: '', expected: '' },
    { label: 'non-ASCII text', raw: 'feature/ünïcödé-✓', expected: 'feature/ünïcödé-✓' },
  ])('reads a label value containing $label', ({ raw, expected }) => {
    const [family] = parse(`m{a="${raw}",b="after"} 1`);
    expect(family?.samples[0]?.labels).toStrictEqual({ a: expected, b: 'after' });
  });

  it.each([
    { line: 'm{} 1', labels: {} },
    { line: 'm{a="1",} 1', labels: { a: '1' } },
    { line: 'm { a = "1" , b="2" } 1', labels: { a: '1', b: '2' } },
    { line: 'm\t{a="1"}\t1', labels: { a: '1' } },
    { line: 'm{a="1"}1', labels: { a: '1' } },
    { line: '   m{_a_1="x"} 1   ', labels: { _a_1: 'x' } },
  ])('accepts label-set spacing in $line', ({ line, labels }) => {
    expect(parse(line)[0]?.samples[0]).toStrictEqual({ name: 'm', labels, value: 1 });
  });

  it('keeps a label named __proto__ as an ordinary label', () => {
    const labels = parse('m{__proto__="x",constructor="y"} 1')[0]?.samples[0]?.labels;
    expect(Object.keys(labels ?? {})).toStrictEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value).toBe('x');
    expect(labels?.constructor).toBe('y');
  });

  it('skips blank lines and comments, counting their lines', () => {
    const text = [
      '',
      '   ',
      '\t',
      '# a comment',
      '#',
      '#HELPful but not HELP',
      '  # indented comment',
      '# EOF',
      'a 1',
      '',
      '# TYPE b gauge',
      '# another comment between TYPE and samples',
      'b 2',
      '',
    ].join('\n');
    expect(parse(text)).toStrictEqual([
      { name: 'a', type: 'untyped', samples: [{ name: 'a', labels: {}, value: 1 }] },
      { name: 'b', type: 'gauge', samples: [{ name: 'b', labels: {}, value: 2 }] },
    ]);
    // The comment lines still count: the bad line is reported as line 9.
    expect(expositionError(text.replace('a 1', 'a one')).line).toBe(9);
  });

  it('accepts colons in metric names', () => {
    expect(parse('job:rate5m:sum{a="1"} 2')[0]?.samples[0]).toStrictEqual({
      name: 'job:rate5m:sum',
      labels: { a: '1' },
      value: 2,
    });
  });

  it('accepts CRLF line endings', () => {
    expect(parse('# TYPE a gauge\r\na{x="1"} 2\r\n')).toStrictEqual([
      { name: 'a', type: 'gauge', samples: [{ name: 'a', labels: { x: '1' }, value: 2 }] },
    ]);
  });

  it.each([
    { raw: 'Plain text.', expected: 'Plain text.' },
    { raw: String.raw`Two\nlines`, expected: 'Two\nlines' },
    { raw: String.raw`A \\ backslash`, expected: 'A \\ backslash' },
    { raw: String.raw`Literal \\n, not a newline`, expected: 'Literal \\n, not a newline' },
    { raw: 'Quotes " stay "as is"', expected: 'Quotes " stay "as is"' },
    { raw: '', expected: '' },
  ])('unescapes HELP text $raw', ({ raw, expected }) => {
    expect(parse(`# HELP m ${raw}\nm 1`)[0]?.help).toBe(expected);
  });

  it('separates a HELP name from its text by any spaces or tabs', () => {
    expect(parse('#\tHELP   m \t text with  inner  spaces\n# TYPE m gauge')).toStrictEqual([
      { name: 'm', help: 'text with  inner  spaces', type: 'gauge', samples: [] },
    ]);
  });

  it.each([
    { token: '0', value: 0 },
    { token: '42', value: 42 },
    { token: '-17', value: -17 },
    { token: '+7', value: 7 },
    { token: '3.25', value: 3.25 },
    { token: '-0.5', value: -0.5 },
    { token: '.5', value: 0.5 },
    { token: '5.', value: 5 },
    { token: '1.5e3', value: 1500 },
    { token: '2E-2', value: 0.02 },
    { token: '1e+2', value: 100 },
    { token: '-6.02e23', value: -6.02e23 },
    { token: '+Inf', value: Infinity },
    { token: '-Inf', value: -Infinity },
    { token: 'Inf', value: Infinity },
    { token: 'NaN', value: NaN },
  ])('reads the value $token', ({ token, value }) => {
    const sample = parse(`m ${token}`)[0]?.samples[0];
    expect(sample?.value).toBe(value);
    expect(sample).not.toHaveProperty('timestamp');
  });

  it.each([
    { line: 'm 1 1700000000000', value: 1, timestamp: 1700000000000 },
    { line: 'm{a="b"} NaN 1700000000123', value: NaN, timestamp: 1700000000123 },
    { line: 'm +Inf -5', value: Infinity, timestamp: -5 },
    { line: 'm 2.5e-3\t0  ', value: 0.0025, timestamp: 0 },
  ])('reads the timestamp in $line', ({ line, value, timestamp }) => {
    const sample = parse(line)[0]?.samples[0];
    expect(sample?.value).toBe(value);
    expect(sample?.timestamp).toBe(timestamp);
  });

  it('groups histogram and summary series under their family; untyped samples get their own', () => {
    const text = [
      '# HELP lat Latency.',
      '# TYPE lat histogram',
      'lat_bucket{le="0.5"} 1',
      'lat_bucket{le="+Inf"} 2',
      'lat_sum 0.75',
      'lat_count 2',
      '# TYPE rpc summary',
      'rpc{quantile="0.5"} 0.01',
      'rpc{quantile="0.99"} 0.2',
      'rpc_sum 1.5',
      'rpc_count 40',
      'loose_bucket{le="1"} 3',
      'loose_count 3',
      '# TYPE g_count gauge',
      'g_count 9',
    ].join('\n');
    expect(parse(text)).toStrictEqual([
      {
        name: 'lat',
        help: 'Latency.',
        type: 'histogram',
        samples: [
          { name: 'lat_bucket', labels: { le: '0.5' }, value: 1 },
          { name: 'lat_bucket', labels: { le: '+Inf' }, value: 2 },
          { name: 'lat_sum', labels: {}, value: 0.75 },
          { name: 'lat_count', labels: {}, value: 2 },
        ],
      },
      {
        name: 'rpc',
        type: 'summary',
        samples: [
          { name: 'rpc', labels: { quantile: '0.5' }, value: 0.01 },
          { name: 'rpc', labels: { quantile: '0.99' }, value: 0.2 },
          { name: 'rpc_sum', labels: {}, value: 1.5 },
          { name: 'rpc_count', labels: {}, value: 40 },
        ],
      },
      { name: 'loose_bucket', type: 'untyped', samples: [{ name: 'loose_bucket', labels: { le: '1' }, value: 3 }] },
      { name: 'loose_count', type: 'untyped', samples: [{ name: 'loose_count', labels: {}, value: 3 }] },
      { name: 'g_count', type: 'gauge', samples: [{ name: 'g_count', labels: {}, value: 9 }] },
    ]);
  });

  it('merges samples of a family that are split by another family', () => {
    const families = parse('# TYPE a gauge\na{x="1"} 1\nb 2\na{x="2"} 3');
    expect(families.map((f) => [f.name, f.type, f.samples.map((s) => s.value)])).toStrictEqual([
      ['a', 'gauge', [1, 3]],
      ['b', 'untyped', [2]],
    ]);
  });

  it('returns nothing for an empty input', () => {
    expect(parse('')).toStrictEqual([]);
    expect(parse('\n\n# just a comment\n')).toStrictEqual([]);
  });

  it.each([
    // Sample lines
    { what: 'unterminated label value', text: 'ok 1\nm{a="b} 1', line: 2, message: 'unterminated value for label "a"' },
    {
      what: 'label value ending in a backslash',
      text: 'm{a="b\\',
      line: 1,
      message: 'unterminated value for label "a"',
    },
    {
      what: 'unknown escape in a label value',
      text: '\nm{a="\\t"} 1',
      line: 2,
      message: 'invalid escape sequence "\\t"',
    },
    {
      what: 'unquoted label value',
      text: 'm{a=b} 1',
      line: 1,
      message: 'value of label "a" must be a double-quoted string',
    },
    { what: 'missing "="', text: 'm{a "b"} 1', line: 1, message: 'expected "=" after label name "a"' },
    { what: 'missing comma between labels', text: 'm{a="1" b="2"} 1', line: 1, message: 'expected "," or "}"' },
    { what: 'unclosed label set', text: 'ok 1\n\nm{a="1", 1', line: 3, message: 'expected a label name or "}"' },
    { what: 'label set cut off', text: 'm{a="1"', line: 1, message: 'is not closed' },
    { what: 'empty label entry', text: 'm{a="1",,b="2"} 1', line: 1, message: 'expected a label name or "}"' },
    { what: 'colon in a label name', text: 'm{a:b="x"} 1', line: 1, message: 'expected "=" after label name "a"' },
    { what: 'bad label name', text: 'm{1a="x"} 1', line: 1, message: 'expected a label name or "}", found "1"' },
    { what: 'duplicate label', text: 'm{a="1",a="2"} 1', line: 1, message: 'duplicate label "a"' },
    { what: 'reserved label __name__', text: 'm{__name__="x"} 1', line: 1, message: '"__name__" is reserved' },
    { what: 'missing value', text: 'ok 1\nm{a="b"}', line: 2, message: 'missing value for sample "m"' },
    { what: 'missing value after blanks', text: 'm   ', line: 1, message: 'missing value for sample "m"' },
    { what: 'word as value', text: 'm abc', line: 1, message: 'invalid sample value "abc"' },
    { what: 'two decimal points', text: 'm 1.2.3', line: 1, message: 'invalid sample value "1.2.3"' },
    { what: 'hex value', text: 'm 0x10', line: 1, message: 'invalid sample value "0x10"' },
    { what: 'value out of range', text: 'm 1e999', line: 1, message: 'invalid sample value "1e999"' },
    { what: 'empty exponent', text: 'm 1e', line: 1, message: 'invalid sample value "1e"' },
    { what: 'fractional timestamp', text: 'm 1 1.5', line: 1, message: 'invalid timestamp "1.5"' },
    { what: 'text after the timestamp', text: 'm 1 2 3', line: 1, message: 'unexpected text "3" after the timestamp' },
    { what: 'metric name starting with a digit', text: '1m 2', line: 1, message: 'expected a metric name, found "1"' },
    { what: 'sample without a name', text: '{a="b"} 1', line: 1, message: 'expected a metric name, found "{"' },
    { what: 'bad character in a name', text: 'm-x 1', line: 1, message: 'invalid character "-" in metric name "m"' },
    {
      what: 'duplicate series',
      text: 'm{a="1",b="2"} 1\nm{b="2",a="1"} 2',
      line: 2,
      message: 'duplicate series m{a="1",b="2"} (first at line 1)',
    },
    // HELP and TYPE
    { what: 'unknown type', text: '# TYPE m countr', line: 1, message: 'unknown metric type "countr"' },
    { what: 'TYPE without a type', text: '# TYPE m', line: 1, message: 'TYPE line for "m" without a type' },
    { what: 'TYPE without a name', text: '# TYPE', line: 1, message: 'TYPE line without a metric name' },
    { what: 'HELP without a name', text: '# HELP   ', line: 1, message: 'HELP line without a metric name' },
    { what: 'bad name in TYPE', text: '# TYPE 9m gauge', line: 1, message: 'invalid metric name "9m" in TYPE line' },
    {
      what: 'text after the type',
      text: '# TYPE m gauge extra',
      line: 1,
      message: 'unexpected text "extra" after the type',
    },
    {
      what: 'second TYPE',
      text: '# TYPE m gauge\n# TYPE m counter',
      line: 2,
      message: 'second TYPE line for "m" (first at line 1)',
    },
    {
      what: 'second HELP',
      text: '# HELP m a\n# HELP m b',
      line: 2,
      message: 'second HELP line for "m" (first at line 1)',
    },
    {
      what: 'TYPE after samples',
      text: 'm 1\n# TYPE m gauge',
      line: 2,
      message: 'TYPE line for "m" comes after its samples (first at line 1)',
    },
    {
      what: 'HELP after samples',
      text: 'm 1\n# HELP m text',
      line: 2,
      message: 'HELP line for "m" comes after its samples',
    },
    {
      what: 'bad escape in HELP',
      text: '# HELP m tab\\there',
      line: 1,
      message: 'invalid escape sequence "\\t" in HELP text',
    },
    { what: 'lone backslash in HELP', text: '# HELP m end\\', line: 1, message: 'a lone "\\" at the end in HELP text' },
    // Samples that must fit the TYPE'd family
    {
      what: 'bare histogram sample',
      text: '# TYPE h histogram\nh 1',
      line: 2,
      message: 'sample "h" does not fit histogram "h" (line 1): expected "h_bucket", "h_sum" or "h_count"',
    },
    {
      what: 'bucket without le',
      text: '# TYPE h histogram\nh_bucket{a="1"} 1',
      line: 2,
      message: 'sample "h_bucket" of histogram "h" (line 1) has no "le" label',
    },
    {
      what: 'non-numeric le',
      text: '# TYPE h histogram\nh_bucket{le="big"} 1',
      line: 2,
      message: 'label le="big" of "h_bucket" is not a number',
    },
    { what: 'summary without quantile', text: '# TYPE s summary\ns 1', line: 2, message: 'has no "quantile" label' },
    {
      what: 'summary with a bucket',
      text: '# TYPE s summary\ns_bucket{le="1"} 1',
      line: 2,
      message: 'sample "s_bucket" does not fit summary "s"',
    },
    {
      what: 'TYPE for a histogram series',
      text: '# TYPE h histogram\n# TYPE h_sum gauge',
      line: 2,
      message: 'TYPE line for "h_sum", which is a series of histogram "h" (line 1)',
    },
    {
      what: 'histogram TYPE after its series',
      text: 'h_bucket{le="1"} 1\n# TYPE h histogram',
      line: 2,
      message: 'histogram "h" needs the name "h_bucket", already used by untyped "h_bucket" (line 1)',
    },
  ])('rejects $what with its line number', ({ text, line, message }) => {
    const error = expositionError(text);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ExpositionError');
    expect(error.line).toBe(line);
    expect(error.reason).toContain(message);
    expect(error.message).toMatch(new RegExp(`^line ${line}\\b`));
  });

  it('reports the column of the problem', () => {
    const error = expositionError('m{a="1",b=2} 1');
    expect([error.line, error.column]).toStrictEqual([1, 11]);
    expect(error.message).toBe('line 1, column 11: value of label "b" must be a double-quoted string');
  });
});

describe('histogramQuantile', () => {
  const inf = Infinity;
  it.each([
    {
      what: 'interpolates inside the bucket holding the rank',
      buckets: [
        { le: 1, count: 2 },
        { le: 2, count: 6 },
        { le: 4, count: 10 },
        { le: inf, count: 10 },
      ],
      q: 0.5, // rank 5: 3 of the 4 observations in (1, 2]
      expected: 1.75,
    },
    {
      what: 'interpolates in a wide bucket',
      buckets: [
        { le: 1, count: 2 },
        { le: 2, count: 6 },
        { le: 4, count: 10 },
        { le: inf, count: 10 },
      ],
      q: 0.8, // rank 8: 2 of the 4 observations in (2, 4]
      expected: 3,
    },
    {
      what: 'starts the first bucket at 0',
      buckets: [
        { le: 10, count: 4 },
        { le: inf, count: 4 },
      ],
      q: 0.25,
      expected: 2.5,
    },
    {
      what: 'returns the first upper bound when it is not positive',
      buckets: [
        { le: -1, count: 2 },
        { le: 1, count: 4 },
        { le: inf, count: 4 },
      ],
      q: 0.25,
      expected: -1,
    },
    {
      what: 'interpolates from a negative first bound',
      buckets: [
        { le: -1, count: 2 },
        { le: 1, count: 4 },
        { le: inf, count: 4 },
      ],
      q: 0.75, // rank 3: 1 of the 2 observations in (-1, 1]
      expected: 0,
    },
    {
      what: 'returns the highest finite bound when the rank is in +Inf',
      buckets: [
        { le: 1, count: 1 },
        { le: 2, count: 2 },
        { le: inf, count: 10 },
      ],
      q: 0.5,
      expected: 2,
    },
    {
      what: 'returns the highest finite bound when every observation is in +Inf',
      buckets: [
        { le: 60, count: 0 },
        { le: 300, count: 0 },
        { le: inf, count: 5 },
      ],
      q: 0.1,
      expected: 300,
    },
    {
      what: 'reaches the top of the last populated bucket at q = 1',
      buckets: [
        { le: 1, count: 2 },
        { le: 2, count: 4 },
        { le: 3, count: 4 },
        { le: inf, count: 4 },
      ],
      q: 1,
      expected: 2,
    },
    {
      what: 'returns the lower bound of the first populated bucket at q = 0',
      buckets: [
        { le: 1, count: 0 },
        { le: 2, count: 3 },
        { le: inf, count: 3 },
      ],
      q: 0,
      expected: 1,
    },
    {
      what: 'sorts unsorted buckets',
      buckets: [
        { le: inf, count: 10 },
        { le: 4, count: 10 },
        { le: 1, count: 2 },
        { le: 2, count: 6 },
      ],
      q: 0.5,
      expected: 1.75,
    },
    {
      what: 'raises a count that goes down to the running maximum',
      buckets: [
        { le: 1, count: 1 },
        { le: 2, count: 5 },
        { le: 3, count: 3 },
        { le: 4, count: 7 },
        { le: inf, count: 8 },
      ],
      q: 0.75, // rank 6 in (3, 4] with the count at 3 raised to 5: 3 + 1 × (6 − 5) / (7 − 5)
      expected: 3.5,
    },
    {
      what: 'adds up buckets with the same upper bound',
      buckets: [
        { le: 1, count: 2 },
        { le: 1, count: 2 },
        { le: inf, count: 4 },
      ],
      q: 0.5,
      expected: 0.5,
    },
    {
      what: 'is undefined with no observations',
      buckets: [
        { le: 1, count: 0 },
        { le: inf, count: 0 },
      ],
      q: 0.5,
      expected: undefined,
    },
    { what: 'is undefined with no buckets', buckets: [], q: 0.5, expected: undefined },
    {
      what: 'is undefined without a +Inf bucket',
      buckets: [
        { le: 1, count: 3 },
        { le: 2, count: 4 },
      ],
      q: 0.5,
      expected: undefined,
    },
    { what: 'is undefined with only the +Inf bucket', buckets: [{ le: inf, count: 4 }], q: 0.5, expected: undefined },
    {
      what: 'is undefined for q = NaN',
      buckets: [
        { le: 1, count: 1 },
        { le: inf, count: 1 },
      ],
      q: NaN,
      expected: undefined,
    },
    {
      what: 'is -Infinity for q < 0',
      buckets: [
        { le: 1, count: 1 },
        { le: inf, count: 1 },
      ],
      q: -0.1,
      expected: -Infinity,
    },
    {
      what: 'is +Infinity for q > 1',
      buckets: [
        { le: 1, count: 1 },
        { le: inf, count: 1 },
      ],
      q: 1.1,
      expected: Infinity,
    },
  ])('$what', ({ buckets, q, expected }) => {
    expect(histogramQuantile(buckets, q)).toBe(expected);
  });

  it('does not modify its input', () => {
    const buckets = [
      { le: Infinity, count: 8 },
      { le: 2, count: 3 },
      { le: 1, count: 5 },
    ];
    histogramQuantile(buckets, 0.5);
    expect(buckets).toStrictEqual([
      { le: Infinity, count: 8 },
      { le: 2, count: 3 },
      { le: 1, count: 5 },
    ]);
  });
});

describe('summarizeMergeQueueMetrics', () => {
  it('summarizes the full service exposition per queue', () => {
    const expected: QueueMetrics[] = [
      {
        repo: 'acme/widgets',
        branch: 'main',
        queueType: 'main',
        depth: 7,
        awaitingMergeability: 3,
        testingSlotsActive: 4,
        restarts: 6,
        conclusions: { merged: 41, failed: 3, cancelled: 2, dequeued: 1 },
        histograms: {
          // Under 20 PRs, nearest rank, never past the least the largest can be (its bucket's start or
          // the mean). rank 5 in (60, 300]: 60 + 240 × 3/4; rank 9 = top of (300, 600], the largest in (600, 900]
          wait: { count: 10, sum: 2460, p50: 240, p90: 600 },
          // rank 5 in (900, 1800]: 900 + 900 × 1/4; rank 9 in (1800, 3600], where the largest is: over 1800
          test: { count: 10, sum: 12345.5, p50: 1125, p90: 1800 },
          // rank 6 in (1800, 3600]: 1800 + 1800 × 2/4; rank 11 is in +Inf → 7200
          timeInQueue: { count: 12, sum: 40000, p50: 2700, p90: 7200 },
        },
      },
      {
        repo: 'acme/widgets',
        branch: 'main',
        queueType: 'bisection',
        depth: 2,
        awaitingMergeability: 0,
        testingSlotsActive: 2,
        restarts: 1,
        conclusions: { merged: 0, failed: 2, cancelled: 0 },
        histograms: {
          // rank 5 = top of [0, 60]; rank 9 in (60, 300], as the largest, which is at least the mean, 90
          wait: { count: 10, sum: 900, p50: 60, p90: 90 },
          // rank 5 = top of (600, 900]; rank 9 in (900, 1800], as the largest: over 900
          test: { count: 10, sum: 9000, p50: 900, p90: 900 },
          timeInQueue: { count: 0, sum: 0 },
        },
      },
      {
        repo: 'acme/widgets',
        branch: 'release/2.x',
        queueType: 'main',
        depth: 1,
        awaitingMergeability: 1,
        testingSlotsActive: 1,
        restarts: 0,
        conclusions: { merged: 5, failed: 0, cancelled: 1 },
        histograms: {
          // two in (60, 300] summing 240: the larger is at least 120, the mean
          wait: { count: 2, sum: 240, p50: 120, p90: 120 },
          // the only observation is the sum
          test: { count: 1, sum: 9000, p50: 9000, p90: 9000 },
          // two in (1800, 3600] summing 5000: the larger is at least 2500
          timeInQueue: { count: 2, sum: 5000, p50: 2500, p90: 2500 },
        },
      },
      {
        repo: 'acme/widgets',
        branch: 'release/2.x',
        queueType: 'bisection',
        depth: 0,
        awaitingMergeability: 0,
        testingSlotsActive: 0,
        restarts: 0,
        conclusions: { merged: 0, failed: 0, cancelled: 0 },
        histograms: {
          wait: { count: 0, sum: 0 },
          test: { count: 0, sum: 0 },
          timeInQueue: { count: 0, sum: 0 },
        },
      },
    ];
    expect(summarizeMergeQueueMetrics(parse(SERVICE_EXPOSITION))).toStrictEqual(expected);
  });

  it('sorts by repo, then branch, then queue type with main first', () => {
    const lines = [
      ['zeta/tools', 'main', 'main'],
      ['acme/widgets', 'main', 'bisection'],
      ['acme/widgets', 'dev', 'main'],
      ['acme/widgets', 'main', 'speculative'],
      ['acme/widgets', 'main', 'main'],
      ['acme/api', 'main', 'bisection'],
    ].map(([repo, branch, type], i) => `mq_depth_current{repo="${repo}",branch="${branch}",queue_type="${type}"} ${i}`);
    const records = summarizeMergeQueueMetrics(parse(`# TYPE mq_depth_current gauge\n${lines.join('\n')}`));
    expect(records.map((r) => [r.repo, r.branch, r.queueType, r.depth])).toStrictEqual([
      ['acme/api', 'main', 'bisection', 5],
      ['acme/widgets', 'dev', 'main', 2],
      ['acme/widgets', 'main', 'main', 4],
      ['acme/widgets', 'main', 'bisection', 1],
      ['acme/widgets', 'main', 'speculative', 3],
      ['zeta/tools', 'main', 'main', 0],
    ]);
  });

  it('includes only the fields and histograms the service has series for', () => {
    const text = [
      '# TYPE mq_testing_slots_active gauge',
      `mq_testing_slots_active{${MM}} 3`,
      '# TYPE mq_pr_test_duration_1h_seconds histogram',
      histogramLines('mq_pr_test_duration_1h_seconds', MM, [0, 0, 0, 0, 2, 2, 2, 2, 2], 2000, 2),
    ].join('\n');
    expect(summarizeMergeQueueMetrics(parse(text))).toStrictEqual([
      {
        repo: 'acme/widgets',
        branch: 'main',
        queueType: 'main',
        testingSlotsActive: 3,
        conclusions: {},
        // two in (900, 1800] summing 2000: the larger is at least 1000
        histograms: { test: { count: 2, sum: 2000, p50: 1000, p90: 1000 } },
      },
    ]);
  });

  it('ignores unknown families, series without the queue labels, and untyped histogram series', () => {
    const text = [
      'mq_depth_current{repo="acme/widgets",branch="main"} 9',
      `mq_depth_current{${MM}} 4`,
      `mq_depth_total{${MM}} 100`,
      `mq_pr_conclusions_1h_total{${MM}} 8`,
      `mq_pr_wait_duration_1h_seconds_count{${MB}} 5`,
      `mq_pr_wait_duration_1h_seconds_sum{${MB}} 50`,
      `unrelated{${RB}} 1`,
    ].join('\n');
    expect(summarizeMergeQueueMetrics(parse(text))).toStrictEqual([
      { repo: 'acme/widgets', branch: 'main', queueType: 'main', depth: 4, conclusions: {}, histograms: {} },
    ]);
  });

  it('adds up series that differ in other labels, keeping odd conclusion names as data', () => {
    const text = [
      '# TYPE mq_depth_current gauge',
      `mq_depth_current{${MM},instance="a"} 2`,
      `mq_depth_current{${MM},instance="b"} 3`,
      '# TYPE mq_pr_conclusions_1h_total gauge',
      `mq_pr_conclusions_1h_total{${MM},conclusion="merged",instance="a"} 4`,
      `mq_pr_conclusions_1h_total{${MM},conclusion="merged",instance="b"} 6`,
      `mq_pr_conclusions_1h_total{${MM},conclusion="constructor"} 1`,
      `mq_pr_conclusions_1h_total{${MM},conclusion="__proto__"} 2`,
      '# TYPE mq_pr_wait_duration_1h_seconds histogram',
      histogramLines('mq_pr_wait_duration_1h_seconds', `${MM},instance="a"`, [1, 1, 1, 1, 1, 1, 1, 1, 1], 30, 1),
      histogramLines('mq_pr_wait_duration_1h_seconds', `${MM},instance="b"`, [0, 1, 1, 1, 1, 1, 1, 1, 1], 200, 1),
    ].join('\n');
    const [record] = summarizeMergeQueueMetrics(parse(text));
    expect(record?.depth).toBe(5);
    expect(Object.entries(record?.conclusions ?? {})).toStrictEqual([
      ['merged', 10],
      ['constructor', 1],
      ['__proto__', 2],
    ]);
    // Summed buckets: 1 at ≤60, 2 at ≤300. p50: rank 1 = top of [0, 60]; p90: rank 2, at least 230 - 60
    expect(record?.histograms).toStrictEqual({ wait: { count: 2, sum: 230, p50: 60, p90: 170 } });
  });

  it('falls back to the +Inf bucket for a missing _count, and reports a missing _sum as NaN', () => {
    const text = [
      '# TYPE mq_pr_wait_duration_1h_seconds histogram',
      ...LES.map((le, i) => `mq_pr_wait_duration_1h_seconds_bucket{${RM},le="${le}"} ${i < 1 ? 0 : 4}`),
    ].join('\n');
    expect(summarizeMergeQueueMetrics(parse(text))[0]?.histograms).toStrictEqual({
      // Four in (60, 300] and no sum: the largest is over 60, all that is known
      wait: { count: 4, sum: NaN, p50: 60, p90: 60 },
    });
  });

  it('ignores a histogram family that is not typed histogram', () => {
    const labels = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };
    const families: Family[] = [
      {
        name: 'mq_pr_wait_duration_1h_seconds',
        type: 'untyped',
        samples: [{ name: 'mq_pr_wait_duration_1h_seconds_count', labels, value: 3 }],
      },
    ];
    expect(summarizeMergeQueueMetrics(families)).toStrictEqual([]);
  });

  it('returns nothing when there are no merge-queue families', () => {
    expect(summarizeMergeQueueMetrics(parse('go_goroutines 4\n'))).toStrictEqual([]);
    expect(summarizeMergeQueueMetrics([])).toStrictEqual([]);
  });
});
