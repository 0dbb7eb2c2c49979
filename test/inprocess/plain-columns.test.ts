/**
 * Plain output is a contract with scripts: every line a command prints piped has the fields its
 * --help documents (from the same spec constants that build the rows), and no value is dressed for
 * people (`#42`, `4m ago`, `medium (100)`, `not found`). Runs each command against an in-process
 * emulator on a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELETE_PLAIN } from '../../src/commands/queue/delete.js';
import { STATE_CHANGE_PLAIN } from '../../src/commands/queue/set-state.js';
import { WATCH_PLAIN } from '../../src/commands/queue/watch.js';
import { AUTH_STATUS_PLAIN } from '../../src/commands/auth/index.js';
import { PROFILE_LIST_PLAIN, PROFILE_SHOW_PLAIN } from '../../src/commands/profile/index.js';
import { HISTORY_PLAIN } from '../../src/commands/queue/history.js';
import { STATUS_MANY_PLAIN } from '../../src/commands/status.js';
import { WAIT_PLAIN } from '../../src/commands/wait.js';
import { startEmulator, type EmulatorFixture } from '../../src/lib/emulator.js';
import { plainSpecText, plainWidth, type PlainSpec } from '../../src/output/plain.js';
import { METRICS_PLAIN } from '../../src/views/metrics.js';
import { PR_PLAIN } from '../../src/views/pull-request.js';
import { CHANGE_PLAIN, QUEUE_PR_PLAIN, QUEUE_SETTINGS_PLAIN } from '../../src/views/queue.js';
import { SIMULATE_PLAIN } from '../../src/views/simulate.js';
import { STATS_PLAIN } from '../../src/views/stats.js';
import { ETA_CHECK_PLAIN } from '../../src/views/eta-check.js';
import { POSITION_PLAIN, STORY_PLAIN } from '../../src/views/story.js';
import { TESTING_PLAIN } from '../../src/views/testing-details.js';
import { runMq } from '../helpers/in-process.js';
import { tempDir } from '../helpers/run-cli.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
let emu: EmulatorFixture;
let env: Record<string, string>;
let failedRun = '';

const mq = (args: string[], input?: string) => runMq(args, { env, input });

beforeAll(async () => {
  emu = await startEmulator({ clock: 'manual', seed: 7, startTime: '2026-11-23T10:00:00Z' });
  env = {
    MQ_API_URL: emu.url,
    MQ_TOKEN: emu.token,
    MQ_REPO: 'github.com/acme/widgets',
    MQ_BRANCH: 'main',
    MQ_CONFIG_DIR: tempDir('mq-plain-config-'),
    MQ_RETRY_BASE_MS: '5',
  };
  expect((await mq(['queue', 'create', '--concurrency', '2'])).exitCode).toBe(0);
  await emu.createPullRequest({ repo: REPO, number: 41, title: 'first', outcomes: ['fail'], testMinutes: 10 });
  await emu.createPullRequest({ repo: REPO, number: 42, title: 'second', testMinutes: 30 });
  await emu.createPullRequest({ repo: REPO, number: 43, title: 'third', testMinutes: 30 });
  for (const n of ['41', '42']) expect((await mq(['submit', n])).exitCode).toBe(0);
  expect((await mq(['submit', '43', '--priority', 'high'])).exitCode).toBe(0);
  await emu.advance(15);
  const runs = await emu.listRuns();
  failedRun = runs.find((r) => r.status === 'failed')?.id ?? runs[0]?.id ?? '';
  await emu.advance(2);
}, 30_000);

afterAll(async () => {
  await emu?.stop();
});

/** Which spec a line belongs to: a tagged one by its first field, a key spec by its key, else the untagged columns. */
function specOf(line: string, specs: readonly PlainSpec[]): PlainSpec | undefined {
  const first = line.split('\t')[0];
  const tagged = specs.find((s) => s.kind === 'columns' && s.tag !== undefined && s.tag === first);
  if (tagged) return tagged;
  const keyed = specs.find((s) => s.kind === 'keys' && (s.keys as readonly string[]).includes(first ?? ''));
  if (keyed) return keyed;
  return specs.find((s) => s.kind === 'columns' && s.tag === undefined);
}

function fieldsOf(spec: PlainSpec): number {
  if (spec.kind === 'columns') return plainWidth(spec);
  return spec.kind === 'keys' ? 2 : 0;
}

/** Every line of stdout matches a documented spec and has its number of fields; returns the lines split. */
function checkLines(stdout: string, specs: readonly PlainSpec[]): string[][] {
  const lines = stdout === '' ? [] : stdout.replace(/\n$/, '').split('\n');
  for (const line of lines) {
    const spec = specOf(line, specs);
    expect(spec, `no documented plain line for ${JSON.stringify(line)}`).toBeDefined();
    expect(
      line.split('\t'),
      `fields of ${JSON.stringify(line)} against "${plainSpecText(spec as PlainSpec)}"`,
    ).toHaveLength(fieldsOf(spec as PlainSpec));
    // Nothing dressed for people: no `#42`, no padding, no ellipsis, no ages.
    expect(line).not.toMatch(/(^|\t)#\d/);
    expect(line).not.toMatch(/…| \t|\t | ago(\t|$)/);
  }
  return lines.map((l) => l.split('\t'));
}

async function helpOf(path: string[]): Promise<string> {
  const r = await mq([...path, '--help']);
  return r.stdout;
}

interface Case {
  name: string;
  args: () => string[];
  help: string[];
  specs: PlainSpec[];
  exitCodes?: number[];
  /** At least this many lines. */
  min?: number;
  check?: (rows: string[][]) => void;
}

const CASES: Case[] = [
  {
    name: 'status 41 (a failed PR: fields, story, failing checks)',
    args: () => ['status', '41'],
    help: ['status'],
    specs: [PR_PLAIN, STORY_PLAIN.trip, STORY_PLAIN.step, STORY_PLAIN.check],
    min: 5,
    check: (rows) => {
      expect(rows).toContainEqual(['pr', '41']);
      expect(rows).toContainEqual(['priority', 'medium']);
      expect(rows).toContainEqual(['priority_value', '100']);
      expect(rows.find((r) => r[0] === 'in_state_seconds')?.[1]).toMatch(/^\d+$/);
    },
  },
  {
    name: 'status 42 (testing)',
    args: () => ['status', '42'],
    help: ['status'],
    specs: [PR_PLAIN, STORY_PLAIN.trip, STORY_PLAIN.step, STORY_PLAIN.check, POSITION_PLAIN],
    check: (rows) => {
      expect(rows).toContainEqual(['submitted', 'true']);
      expect(rows).toContainEqual(['ready', 'true']);
      expect(rows.at(-1)?.[0]).toBe('position');
    },
  },
  {
    name: 'status 41 42 99',
    args: () => ['status', '41', '42', '99'],
    help: ['status'],
    specs: [STATUS_MANY_PLAIN],
    exitCodes: [3],
    min: 3,
    check: (rows) => {
      expect(rows.map((r) => r[0])).toEqual(['41', '42', '99']);
      expect(rows[2]?.[1]).toBe('not_found');
      expect(rows[1]?.[2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    },
  },
  {
    name: 'queue show',
    args: () => ['queue', 'show'],
    help: ['queue', 'show'],
    specs: [QUEUE_PR_PLAIN],
    min: 2,
    check: (rows) => {
      const high = rows.find((r) => r[1] === '43');
      expect(high?.slice(4, 6)).toEqual(['high', '10']);
      expect(high?.[3]).toMatch(/^\d+$/);
    },
  },
  {
    name: 'queue show --settings',
    args: () => ['queue', 'show', '--settings'],
    help: ['queue', 'show'],
    specs: [QUEUE_SETTINGS_PLAIN],
    min: 10,
  },
  {
    name: 'queue history',
    args: () => ['queue', 'history'],
    help: ['queue', 'history'],
    specs: [HISTORY_PLAIN],
    min: 3,
    check: (rows) => expect(rows.find((r) => r[0] === '42')?.slice(4, 6)).toEqual(['medium', '100']),
  },
  {
    name: 'queue stats',
    args: () => ['queue', 'stats', '--since', '1h'],
    help: ['queue', 'stats'],
    specs: [STATS_PLAIN],
    min: 20,
  },
  {
    name: 'queue eta-check',
    args: () => ['queue', 'eta-check', '--since', '1h'],
    help: ['queue', 'eta-check'],
    specs: [ETA_CHECK_PLAIN],
    min: 3,
  },
  {
    name: 'queue testing',
    args: () => ['queue', 'testing', failedRun],
    help: ['queue', 'testing'],
    specs: [TESTING_PLAIN.fields, TESTING_PLAIN.pr, TESTING_PLAIN.check],
    min: 2,
    check: (rows) => expect(rows.find((r) => r[0] === 'pr')?.[1]).toBe('41'),
  },
  {
    name: 'queue update',
    args: () => ['queue', 'update', '--concurrency', '3', '--batch'],
    help: ['queue', 'update'],
    specs: [CHANGE_PLAIN],
    min: 1,
    check: (rows) => {
      expect(rows).toContainEqual(['concurrency', '2', '3', 'true']);
      expect(rows).toContainEqual(['batch', 'false', 'true', 'true']);
    },
  },
  {
    name: 'queue pause',
    args: () => ['queue', 'pause', '--reason', 'tests'],
    help: ['queue', 'pause'],
    specs: [STATE_CHANGE_PLAIN],
    check: (rows) => expect(rows).toContainEqual(['repo', 'github.com/acme/widgets']),
  },
  {
    name: 'queue drain',
    args: () => ['queue', 'drain'],
    help: ['queue', 'drain'],
    specs: [STATE_CHANGE_PLAIN],
    min: 5,
  },
  {
    name: 'queue resume',
    args: () => ['queue', 'resume'],
    help: ['queue', 'resume'],
    specs: [STATE_CHANGE_PLAIN],
    min: 5,
  },
  {
    name: 'queue create',
    args: () => ['queue', 'create', '--branch', 'release'],
    help: ['queue', 'create'],
    specs: [QUEUE_SETTINGS_PLAIN],
    min: 10,
  },
  {
    name: 'queue delete',
    args: () => ['queue', 'delete', '--branch', 'release', '--yes'],
    help: ['queue', 'delete'],
    specs: [DELETE_PLAIN],
    min: 1,
  },
  {
    name: 'queue simulate',
    args: () => [
      'queue',
      'simulate',
      '--arrivals',
      '4/h',
      '--test-time',
      '20m',
      '--failure-rate',
      '5%',
      '--baseline',
      'defaults',
      '--runs',
      '2',
      '--duration',
      '1d',
      '--compare',
      'concurrency=4',
      '--jobs',
      '1',
    ],
    help: ['queue', 'simulate'],
    specs: [
      SIMULATE_PLAIN.estimate,
      SIMULATE_PLAIN.withinError,
      SIMULATE_PLAIN.backtest,
      SIMULATE_PLAIN.recommendation,
    ],
    min: 3,
  },
  {
    name: 'wait (a PR that already failed)',
    args: () => ['wait', '41'],
    help: ['wait'],
    specs: [WAIT_PLAIN],
    exitCodes: [9],
    check: (rows) => expect(rows[0]?.slice(0, 2)).toEqual(['41', 'failed']),
  },
  { name: 'auth status', args: () => ['auth', 'status'], help: ['auth', 'status'], specs: [AUTH_STATUS_PLAIN], min: 5 },
  {
    name: 'metrics -o plain',
    args: () => ['metrics', '-o', 'plain', '--repo', 'acme/widgets'],
    help: ['metrics'],
    specs: [METRICS_PLAIN],
    min: 5,
    check: (rows) => expect(rows[0]?.slice(0, 2)).toEqual(['github.com', 'acme/widgets']),
  },
  {
    name: 'profile list (the name second: completions cut -f2)',
    args: () => ['profile', 'list'],
    help: ['profile', 'list'],
    specs: [PROFILE_LIST_PLAIN],
    min: 1,
    check: (rows) => expect(rows[0]?.slice(0, 2)).toEqual(['true', 'default']),
  },
  {
    name: 'profile show',
    args: () => ['profile', 'show'],
    help: ['profile', 'show'],
    specs: [PROFILE_SHOW_PLAIN],
    min: 3,
  },
  { name: 'cancel', args: () => ['cancel', '42'], help: ['cancel'], specs: [], min: 0 },
];

describe('plain output matches the columns each command documents', () => {
  beforeAll(async () => {
    // A profile for `profile list|show`.
    expect((await mq(['auth', 'login', '--with-token'], `${emu.token}\n`)).exitCode).toBe(0);
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const r = await mq(c.args());
      expect(c.exitCodes ?? [0], r.stderr).toContain(r.exitCode);
      const rows = checkLines(r.stdout, c.specs);
      expect(rows.length).toBeGreaterThanOrEqual(c.min ?? 1);
      c.check?.(rows);
      const help = await helpOf(c.help);
      expect(help).toContain('Plain output (piped, or -o plain):');
      for (const s of c.specs) expect(help).toContain(plainSpecText(s));
    });
  }

  it('queue watch documents its change lines', async () => {
    expect(await helpOf(['queue', 'watch'])).toContain(plainSpecText(WATCH_PLAIN));
  });
});

describe('every command documents its plain output', () => {
  const leaves = [
    'submit',
    'cancel',
    'restart',
    'status',
    'wait',
    'targets',
    'metrics',
    'queue show',
    'queue history',
    'queue stats',
    'queue testing',
    'queue update',
    'queue create',
    'queue delete',
    'queue pause',
    'queue resume',
    'queue drain',
    'queue watch',
    'queue simulate',
    'queue eta-check',
    'auth status',
    'profile list',
    'profile show',
    'profile use',
    'profile set',
    'profile remove',
    'auth login',
    'auth logout',
    'demo',
  ];
  for (const path of leaves) {
    it(path, async () => {
      expect(await helpOf(path.split(' '))).toMatch(/\nPlain output \(piped, or -o plain\): .*\n {2}\S/);
    });
  }
});
