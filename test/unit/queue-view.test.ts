import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/api/schemas.js';
import { closeHttp } from '../../src/api/http.js';
import { runQueueDelete } from '../../src/commands/queue/delete.js';
import { parseSince } from '../../src/commands/queue/history.js';
import { parseTestRun } from '../../src/commands/queue/testing.js';
import { applySettings, settingsFromFlags } from '../../src/commands/queue/update.js';
import { diffQueue, eventPlainRow, eventRow } from '../../src/commands/queue/watch.js';
import { renderRows } from '../../src/output/render.js';
import { ExitCode, MqError } from '../../src/errors.js';
import { makeStyle } from '../../src/output/style.js';
import { histogramText, metricsRows, tidy, tidyQueue } from '../../src/views/metrics.js';
import { countsText, queueBanner, queueRows, settingChanges } from '../../src/views/queue.js';
import { checks } from '../../src/views/testing-details.js';
import { testDeps } from '../helpers/deps.js';
import { useFakeServer } from '../helpers/fake-server.js';
import { entry, FIXED_NOW, minutesAgo, queueRecord } from '../helpers/test-context.js';

const plain = makeStyle(false);
const q = (overrides: Record<string, unknown> = {}, prs: Array<Record<string, unknown>> = []) =>
  queueRecord(overrides, prs) as Queue;

describe('queue rows', () => {
  const entries = q({}, [
    entry(1, 'testing', {
      stateChangedAt: minutesAgo(65),
      priorityName: 'urgent',
      priorityValue: 0,
      skipTheLine: true,
    }),
    entry(2, 'pending', {
      stateChangedAt: 'not a date',
      priorityName: null,
      priorityValue: 42,
      prTitle: 'x'.repeat(100),
    }),
  ]).enqueuedPullRequests as NonNullable<Queue['enqueuedPullRequests']>;

  it('piped: raw values, seconds in state, the priority name and value apart, titles whole', () => {
    expect(queueRows(entries, FIXED_NOW, false)).toEqual([
      ['1', '1', 'testing', '3900', 'urgent', '0', 'true', 'false', 'octocat', 'Change number 1', ''],
      ['2', '2', 'pending', '', '', '42', 'false', 'false', 'octocat', 'x'.repeat(100), ''],
    ]);
  });

  it('on a terminal: readable durations, marks, titles cut to fit', () => {
    const rows = queueRows(entries, FIXED_NOW, true);
    expect(rows[0]?.slice(0, 2)).toEqual(['1', '#1']);
    expect(rows[0]?.slice(3, 5)).toEqual(['1h 5m', 'urgent (0), skip the line']);
    expect(rows[1]?.[6]).toBe(`${'x'.repeat(71)}…`);
  });

  it('counts read in the order work flows', () => {
    expect(countsText(entries)).toBe('2 PRs: 1 testing, 1 pending');
    expect(countsText([])).toBe('none');
  });

  it('a banner only for a queue that is not running', () => {
    expect(queueBanner('running')).toBeUndefined();
    expect(JSON.stringify(queueBanner('paused'))).toContain('⚠ QUEUE PAUSED');
    expect(JSON.stringify(queueBanner('switching_modes'))).toContain('SWITCHING MODES');
  });
});

describe('settingChanges', () => {
  const before = q();
  it('lists changed settings and requested ones, unchanged marked', () => {
    const after = q({ concurrency: 5, state: 'switching_modes', mode: 'parallel' });
    const changes = settingChanges(before, after, new Set(['mode', 'concurrency', 'batch']));
    expect(changes.map((c) => [c.key, c.from, c.to, c.changed, c.requested])).toEqual([
      ['state', 'running', 'switching_modes', true, false],
      ['mode', 'single', 'parallel', true, true],
      ['concurrency', '3', '5', true, true],
      ['batch', 'on', 'on', false, true],
    ]);
  });

  it('compares lists by content and shows null as not set', () => {
    const same = settingChanges(before, q({ requiredStatuses: ['ci/build'] }), new Set());
    expect(same).toEqual([]);
    const cleared = settingChanges(
      before,
      applySettings(before, { deleteRequiredStatuses: true }),
      new Set(['requiredStatuses']),
    );
    expect(cleared.map((c) => [c.from, c.to])).toEqual([['ci/build', 'not set']]);
  });

  it('with the queue unknown, shows only the requested values', () => {
    const changes = settingChanges(undefined, applySettings({} as Queue, { concurrency: 2 }), new Set(['concurrency']));
    expect(changes.map((c) => [c.key, c.from, c.to])).toEqual([['concurrency', '?', '2']]);
  });
});

describe('settingsFromFlags', () => {
  it('maps flag attributes to fields and keeps only those given', () => {
    expect(
      settingsFromFlags({ testingTimeout: 30, optimisticMerge: false, requiredStatus: ['a', 'b', 'a'], dryRun: true }),
    ).toEqual({
      testingTimeoutMinutes: 30,
      canOptimisticallyMerge: false,
      requiredStatuses: ['a', 'b'],
    });
  });
  it('refuses no setting, and a list with a clear', () => {
    expect(() => settingsFromFlags({ dryRun: true })).toThrow(/no setting given/);
    expect(() => settingsFromFlags({ requiredStatus: ['a'], clearRequiredStatuses: true })).toThrow(
      /cannot be used together/,
    );
  });
});

describe('diffQueue (watch)', () => {
  it('the first read lists the queue state and every PR as new', () => {
    const events = diffQueue(undefined, q({}, [entry(1, 'pending')]));
    expect(events).toEqual([
      { subject: 'queue', from: null, to: 'running', title: 'main' },
      { subject: 1, from: null, to: 'pending', title: 'Change number 1' },
    ]);
  });

  it('reports state changes, new PRs and PRs that left; nothing when nothing changed', () => {
    const a = q({}, [entry(1, 'pending'), entry(2, 'testing')]);
    const b = q({ state: 'draining' }, [entry(1, 'testing'), entry(3, 'pending')]);
    expect(diffQueue(a, a)).toEqual([]);
    expect(diffQueue(a, b).map((e) => [e.subject, e.from, e.to])).toEqual([
      ['queue', 'running', 'draining'],
      [1, 'pending', 'testing'],
      [3, null, 'pending'],
      [2, 'testing', 'left'],
    ]);
  });

  it('one tab-separated line per event, raw values piped', async () => {
    const ev = { subject: 7, from: null, to: 'pending', title: 'a\tb' } as const;
    const row = eventPlainRow(ev, '2026-01-01T00:00:00.000Z');
    expect(await renderRows([], [row], 'plain', plain)).toBe('2026-01-01T00:00:00.000Z\t7\t\tpending\ta b\n');
    expect(eventRow(ev, '2026-01-01T00:00:00.000Z')).toEqual([
      '2026-01-01T00:00:00.000Z',
      '#7',
      '-',
      'pending',
      'a\tb',
    ]);
  });
});

describe('argument parsers', () => {
  const id = '5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';
  it('test runs: the id, or the last part of the test branch', () => {
    expect(parseTestRun(id)).toEqual({ testRunId: id });
    expect(parseTestRun(`trunk-merge/pr-1815/${id}`)).toEqual({ testRunId: id, pr: 1815 });
    expect(() => parseTestRun('trunk-merge/pr-1815/')).toThrow(MqError);
  });

  it('--since: durations back from now, ISO dates as given, the future refused', () => {
    expect(parseSince('2h', FIXED_NOW)).toBe('2026-11-22T10:00:00.000Z');
    expect(parseSince('3d', FIXED_NOW)).toBe('2026-11-19T12:00:00.000Z');
    expect(parseSince('2026-11-01', FIXED_NOW)).toBe('2026-11-01T00:00:00.000Z');
    expect(() => parseSince('2027-01-01', FIXED_NOW)).toThrow(/in the future/);
    expect(() => parseSince('0s', FIXED_NOW)).toThrow(/greater than zero/);
    // Past what a date can hold: a usage error, not "Invalid time value" (found by the fuzzer).
    expect(() => parseSince('99999999999999999999', FIXED_NOW)).toThrow(
      /--since: "99999999999999999999" reaches back more than 36500 days/,
    );
  });
});

describe('testing details', () => {
  it('a completed check run reads as its conclusion; statuses join the list; required marked', () => {
    const list = checks({
      requiredStatuses: ['build'],
      checkSuites: [
        {
          checkRuns: [
            { name: 'build', url: 'u1', status: 'COMPLETED', conclusion: 'FAILURE' },
            { name: 'e2e', url: 'u2', status: 'QUEUED' },
          ],
        },
      ],
      statusChecks: [{ context: 'lint', state: 'PENDING' }],
    });
    expect(list.map((c) => [c.name, c.state, c.required])).toEqual([
      ['build', 'failure', true],
      ['e2e', 'queued', false],
      ['lint', 'pending', false],
    ]);
  });
});

describe('metrics view', () => {
  it('histograms: count and quantiles, or no PRs', () => {
    expect(histogramText({ count: 3, sum: 100, p50: 90, p90: 3600 })).toBe('3 PRs · p50 1m 30s · p90 1h');
    expect(histogramText({ count: 0, sum: 0 })).toBe('no PRs');
    expect(histogramText(undefined)).toBe('—');
  });
  it('plain rows skip what the service did not send', () => {
    const rows = metricsRows({
      repo: 'a/b',
      branch: 'main',
      queueType: 'main',
      depth: 2,
      conclusions: { failed: 1 },
      histograms: { test: { count: 1, sum: NaN, p50: 30 } },
    });
    expect(rows).toEqual([
      ['', 'a/b', 'main', 'main', 'depth', '2'],
      ['', 'a/b', 'main', 'main', 'conclusions_1h.failed', '1'],
      ['', 'a/b', 'main', 'main', 'test.count', '1'],
      ['', 'a/b', 'main', 'main', 'test.p50_seconds', '30'],
    ]);
  });

  it('no float noise: values are rounded to 3 decimals, in plain rows and in the JSON queues', () => {
    expect(0.1 + 0.2).toBe(0.30000000000000004);
    expect(tidy(0.1 + 0.2)).toBe(0.3);
    expect(tidy(53.99999999999999)).toBe(54);
    expect(tidy(1.0005e-7)).toBe(0);
    expect(tidy(-0.0000001)).toBe(0);
    expect(Object.is(tidy(-0.0000001), 0)).toBe(true);
    expect(tidy(12345678.1234567)).toBe(12345678.123);
    expect(tidy(Number.NaN)).toBeNaN();
    const noisy = {
      repo: 'a/b',
      branch: 'main',
      queueType: 'main',
      depth: 0.1 + 0.2,
      conclusions: { merged: 0.7 + 0.1 },
      histograms: { wait: { count: 3, sum: 0.1 + 0.7, p50: 1.1 * 3, p90: 60 + 240 * (7 / 8) * 1.0000000000000002 } },
    };
    expect(metricsRows(noisy, 'github.com').map((r) => r[5])).toEqual(['0.3', '0.8', '3', '0.8', '3.3', '270']);
    expect(metricsRows(noisy, 'github.com')[0]?.slice(0, 2)).toEqual(['github.com', 'a/b']);
    const text = JSON.stringify(tidyQueue(noisy));
    expect(text).not.toMatch(/\d\.\d{4,}/);
    expect(tidyQueue(noisy)).toMatchObject({
      depth: 0.3,
      conclusions: { merged: 0.8 },
      histograms: { wait: { count: 3, sum: 0.8, p50: 3.3, p90: 270 } },
    });
  });
});

describe('runQueueDelete confirmation (test context)', () => {
  const fake = useFakeServer();
  afterAll(async () => {
    await closeHttp();
  });
  beforeEach(() => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord() });
    fake.on('POST /deleteQueue', { status: 200, body: 'OK' });
  });
  const deletes = () => fake.requests.filter((r) => r.path === '/deleteQueue');
  const tty = { stdinIsTTY: true, stderrIsTTY: true };

  it('asks on a terminal and deletes when the branch name is typed', async () => {
    const { deps: ctx, io } = testDeps({ apiUrl: fake.url, ...tty, answers: ['  main '] });
    expect((await runQueueDelete({}, ctx)).exitCode).toBe(0);
    expect(io.prompts[0]).toContain('Type the branch name (main) to confirm');
    expect(deletes()).toHaveLength(1);
  });

  it('any other answer: exit 10, nothing deleted', async () => {
    const { deps: ctx } = testDeps({ apiUrl: fake.url, ...tty, answers: ['yes'] });
    await expect(runQueueDelete({}, ctx)).rejects.toMatchObject({ exitCode: ExitCode.confirm });
    expect(deletes()).toHaveLength(0);
  });

  it('no prompt when stderr is not a terminal, or CI is set', async () => {
    for (const opts of [
      { stdinIsTTY: true, stderrIsTTY: false },
      { ...tty, env: { CI: '1' } },
    ]) {
      const { deps: ctx, io } = testDeps({ apiUrl: fake.url, ...opts });
      await expect(runQueueDelete({}, ctx)).rejects.toMatchObject({ exitCode: ExitCode.confirm });
      expect(io.prompts).toEqual([]);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('--yes never asks', async () => {
    const { deps: ctx, io } = testDeps({ apiUrl: fake.url, ...tty });
    expect((await runQueueDelete({ yes: true }, ctx)).exitCode).toBe(0);
    expect(io.prompts).toEqual([]);
    expect(deletes()).toHaveLength(1);
  });
});
