import { describe, expect, it } from 'vitest';
import { queueSchema, submitRequest, submittedPullRequestSchema, updateQueueRequest } from '../../src/api/schemas.js';
import { parseRetryAfter } from '../../src/api/http.js';
import { renderFields, renderRows } from '../../src/output/render.js';
import { makeStyle } from '../../src/output/style.js';
import { colorWanted } from '../../src/output/io.js';
import { readinessText } from '../../src/views/pull-request.js';

const plain = makeStyle(false);

describe('request schemas enforce the spec bounds', () => {
  const base = { repo: { host: 'github.com', owner: 'a', name: 'b' }, targetBranch: 'main' };
  it.each([0, 4294967295])('pr.number %d is accepted', (n) =>
    expect(submitRequest.safeParse({ ...base, pr: { number: n } }).success).toBe(true),
  );
  it.each([-1, 4294967296, 1.5])('pr.number %d is refused', (n) =>
    expect(submitRequest.safeParse({ ...base, pr: { number: n } }).success).toBe(false),
  );
  it('queue settings are 1..4294967295 and enums are lowercase', () => {
    expect(updateQueueRequest.safeParse({ ...base, concurrency: 0 }).success).toBe(false);
    expect(updateQueueRequest.safeParse({ ...base, concurrency: 4294967295 }).success).toBe(true);
    expect(updateQueueRequest.safeParse({ ...base, state: 'switching_modes' }).success).toBe(false);
    expect(updateQueueRequest.safeParse({ ...base, mergeMethod: 'SQUASH' }).success).toBe(false);
    expect(updateQueueRequest.safeParse({ ...base, mergeMethod: 'squash' }).success).toBe(true);
  });
  it('priority is a name or 0..255', () => {
    expect(submitRequest.safeParse({ ...base, pr: { number: 1 }, priority: 'high' }).success).toBe(true);
    expect(submitRequest.safeParse({ ...base, pr: { number: 1 }, priority: 256 }).success).toBe(false);
  });
});

describe('response decoders are lenient', () => {
  it('keeps unknown fields and lowercases enums', () => {
    const pr = submittedPullRequestSchema.parse({
      state: 'TESTS_PASSED',
      readiness: { gitHubMergeability: 'MERGEABLE' },
      extra: 1,
    });
    expect(pr.state).toBe('tests_passed');
    expect(pr.readiness?.gitHubMergeability).toBe('mergeable');
    expect((pr as Record<string, unknown>).extra).toBe(1);
  });
  it('reads the older queue field names', () => {
    const q = queueSchema.parse({
      state: 'RUNNING',
      testingTimeoutMins: 60,
      batchingMaxWaitTimeMins: 5,
      batchingMode: 'SPECULATIVE',
      requiredStatuses: null,
    });
    expect(q).toMatchObject({
      state: 'running',
      testingTimeoutMinutes: 60,
      batchingMaxWaitTimeMinutes: 5,
      batch: true,
      requiredStatuses: null,
    });
    expect(queueSchema.parse({ isBatching: false, batchingMode: 'SPECULATIVE' }).batch).toBe(false);
    expect(queueSchema.parse({ isBatching: true }).batch).toBe(true);
  });
  it('the current name wins over an older one; null counts as absent; older names are not kept', () => {
    const timeouts = { testingTimeoutMinutes: 30, testingTimeoutMins: 60 };
    const waits = { batchingMaxWaitTimeMinutes: 2, batchingMaxWaitTimeMins: 5 };
    const q = queueSchema.parse({ ...timeouts, ...waits, batch: false, isBatching: true, batchingMode: 'SPECULATIVE' });
    expect(q).toEqual({ testingTimeoutMinutes: 30, batchingMaxWaitTimeMinutes: 2, batch: false });
    const nulls = { testingTimeoutMinutes: null, testingTimeoutMins: 60, batch: null, isBatching: true };
    expect(queueSchema.parse(nulls)).toEqual({ testingTimeoutMinutes: 60, batch: true });
  });
  it('still refuses a wrong type', () => {
    expect(queueSchema.safeParse({ concurrency: 'ten' }).success).toBe(false);
  });
});

describe('rendering', () => {
  const fields = [
    { key: 'state', label: 'State', value: 'testing' },
    { key: 'title', label: 'Title', value: 'a | b\tc' },
  ];
  it('plain: key<TAB>value, tabs folded', () => {
    expect(renderFields(fields, 'plain', plain)).toBe('state\ttesting\ntitle\ta | b c\n');
  });
  it('markdown: escaped pipe table', () => {
    expect(renderFields(fields, 'markdown', plain, 'PR #1')).toBe(
      '### PR #1\n\n| Field | Value |\n| --- | --- |\n| State | testing |\n| Title | a \\| b c |\n',
    );
  });
  it('table: aligned labels', () => {
    expect(renderFields(fields, 'table', plain)).toBe('State  testing\nTitle  a | b c\n');
  });
  it('rows as tsv and markdown', async () => {
    expect(await renderRows(['A', 'B'], [['1', { value: 'x', paint: (_s, t) => `*${t}*` }]], 'plain', plain)).toBe(
      '1\tx\n',
    );
    expect(await renderRows(['A', 'B'], [['1', 'x']], 'markdown', plain)).toBe('| A | B |\n| --- | --- |\n| 1 | x |\n');
    const table = await renderRows(['A', 'B'], [['1', { value: 'x', paint: (_s, t) => `*${t}*` }]], 'table', plain);
    expect(table).toContain('*x*');
    expect(table).toContain('A');
  });
});

describe('colour decision', () => {
  it.each([
    [{}, true, undefined, true],
    [{}, false, undefined, false],
    [{ NO_COLOR: '1' }, true, undefined, false],
    [{ NO_COLOR: '' }, true, undefined, true],
    [{ FORCE_COLOR: '1' }, false, undefined, true],
    [{ FORCE_COLOR: '0' }, true, undefined, false],
    [{ TERM: 'dumb' }, true, undefined, false],
    [{ FORCE_COLOR: '1' }, true, false, false],
  ] as const)('%j tty=%s flag=%s -> %s', (env, tty, flag, expected) =>
    expect(colorWanted(env, tty, flag)).toBe(expected),
  );
});

describe('Retry-After', () => {
  it('seconds, dates and the 60 s cap', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('3600', 0)).toBe(60_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('readiness', () => {
  it('names what is missing', () => {
    expect(
      readinessText({
        readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false },
      }),
    ).toBe('yes');
    expect(
      readinessText({
        readiness: {
          doesBaseBranchMatch: false,
          gitHubMergeability: 'in_progress',
          requiresImpactedTargets: true,
          hasImpactedTargets: false,
        },
      }),
    ).toBe('no: base branch differs from the queue; not mergeable (in_progress); impacted targets not uploaded');
  });
});

describe('error brands survive separate copies of the errors module', () => {
  it('instanceof checks the brand, not the class object', async () => {
    const { copyFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const copy = join(mkdtempSync(join(tmpdir(), 'mq-errors-')), 'errors.ts');
    copyFileSync(new URL('../../src/errors.ts', import.meta.url), copy);
    const a = await import('../../src/errors.js');
    const b = (await import(copy)) as typeof a;
    expect(a.MqError).not.toBe(b.MqError);
    const err = new b.ApiError(5, 'x', 'y', 409, '');
    expect(err instanceof a.MqError).toBe(true);
    expect(err instanceof a.ApiError).toBe(true);
    expect(err instanceof a.UsageError).toBe(false);
    expect(new a.UsageError('z') instanceof b.MqError).toBe(true);
    expect(new Error('plain') instanceof a.MqError).toBe(false);
    expect((null as unknown) instanceof a.MqError).toBe(false);
  });
});
