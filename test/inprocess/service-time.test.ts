/**
 * Ages and durations count from the service's clock, read from its `Date` header, not from the
 * local one. The local clock is fixed at FIXED_NOW; the fake service says it is 3 hours later. Every
 * PR changed state at 10:00, two hours before the local clock and five before the service's.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { run } from '../../src/run.js';
import { interrupted, type Clock } from '../../src/util/clock.js';
import { testDeps } from '../helpers/deps.js';
import { type Reply, useFakeServer } from '../helpers/fake-server.js';
import { entry, FIXED_NOW, queueRecord } from '../helpers/test-context.js';

const HOUR = 3_600_000;
const SERVICE_NOW = FIXED_NOW + 3 * HOUR;
const CHANGED_AT = new Date(FIXED_NOW - 2 * HOUR).toISOString();
/** What the service's clock implies: 5 hours (the header has whole seconds; the client takes the middle of that second). */
const SERVICE_AGE_S = 5 * 3600;
const LOCAL_AGE_S = 2 * 3600;

const PR = (n: number, state = 'testing') => ({
  ...entry(n, state, { stateChangedAt: CHANGED_AT }),
  isCurrentlySubmittedToQueue: true,
  readiness: {
    hasImpactedTargets: true,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'mergeable',
  },
});
const TEST_RUN = '5df78918-0d4c-4a55-9a0e-1e1b4f0a6c11';

const fake = useFakeServer();
let date: string;
const ok = (body: object): Reply => ({ status: 200, body, headers: { date } });

beforeEach(() => {
  date = new Date(SERVICE_NOW).toUTCString();
  script();
});

function script(): void {
  fake.requests.length = 0;
  fake.on('POST /getSubmittedPullRequest', ok(PR(42)));
  fake.on('POST /getSubmittedPullRequests', ok({ pullRequests: [PR(41), PR(42, 'pending')] }));
  fake.on('POST /getQueue', ok(queueRecord({}, [PR(41), PR(42, 'pending')])));
  fake.on('POST /listPullRequests', ok({ pullRequests: [PR(41, 'merged'), PR(42, 'failed')] }));
  fake.on('POST /listTestRuns', ok({ testRuns: [] }));
  fake.on(
    'POST /getMergeQueueTestingDetails',
    ok({ testRunId: TEST_RUN, createdAt: CHANGED_AT, testedPrs: [{ number: 41 }] }),
  );
}

async function mq(
  argv: string[],
  opts: { stdoutIsTTY?: boolean } = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const { deps: ctx, io } = testDeps({ apiUrl: fake.url, ...opts });
  const exitCode = await run(ctx, argv);
  return { exitCode, stdout: io.stdout, stderr: io.stderr };
}

describe('ages follow the service clock (Date 3 hours ahead of the local clock)', () => {
  it('mq status 42: in state for 5h, not 2h', async () => {
    const r = await mq(['status', '42']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^in_state_seconds\\t(${SERVICE_AGE_S}|${SERVICE_AGE_S + 1})$`, 'm'));
  });

  it('mq status 42 on a terminal', async () => {
    const r = await mq(['status', '42'], { stdoutIsTTY: true });
    expect(r.stdout).toMatch(/In state for\s+5h\n/);
    expect(r.stdout).not.toMatch(/In state for\s+2h\n/);
  });

  it('mq status 41 42: the For column', async () => {
    const r = await mq(['status', '41', '42'], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/#41[\s│]+testing[\s│]+5h[\s│]/);
    expect(r.stdout).toMatch(/#42[\s│]+pending[\s│]+5h[\s│]/);
  });

  it('mq queue show: piped ages are the service seconds', async () => {
    const r = await mq(['queue', 'show']);
    expect(r.exitCode).toBe(0);
    const ages = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => Number(l.split('\t')[3]));
    // The header names a whole second; the client takes its middle, so the age may be a second more.
    for (const age of ages) expect(age - SERVICE_AGE_S).toBeGreaterThanOrEqual(0);
    for (const age of ages) expect(age - SERVICE_AGE_S).toBeLessThanOrEqual(1);
  });

  it('mq queue show on a terminal', async () => {
    const r = await mq(['queue', 'show'], { stdoutIsTTY: true });
    expect(r.stdout).toMatch(/#41[\s│]+testing[\s│]+5h[\s│]/);
    expect(r.stdout).not.toMatch(/[\s│]2h[\s│]/);
  });

  it('mq queue history: "5h ago"', async () => {
    const r = await mq(['queue', 'history'], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/#41[\s│]+merged[\s│]+5h ago/);
    expect(r.stdout).toMatch(/#42[\s│]+failed[\s│]+5h ago/);
  });

  it('mq queue testing: created 5h ago', async () => {
    const r = await mq(['queue', 'testing', TEST_RUN], { stdoutIsTTY: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`${CHANGED_AT} (5h ago)`);
  });

  it('mq wait -o markdown: in state for, from the service clock', async () => {
    fake.on('POST /getSubmittedPullRequest', ok(PR(42, 'merged')));
    const r = await mq(['wait', '42', '-o', 'markdown']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/In state for\s*\|\s*5h\s*\|/);
  });

  it('mq queue watch: change times are the service time, the live table ages too', async () => {
    // One read, then Ctrl-C during the first pause.
    const watch = async (stdoutIsTTY: boolean, argv: string[]) => {
      const { deps: base, io } = testDeps({ apiUrl: fake.url, stdoutIsTTY });
      const stop = new AbortController();
      const clock: Clock = {
        now: () => FIXED_NOW,
        sleep: async () => {
          stop.abort();
          throw interrupted();
        },
      };
      const ctx = new Context({ env: base.env, io, cwd: base.cwd, clock, signal: stop.signal });
      const exitCode = await run(ctx, argv);
      return { exitCode, stdout: io.stdout };
    };
    const piped = await watch(false, ['queue', 'watch', '--json']);
    expect(piped.exitCode).toBe(130);
    const events = piped.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { at: string; subject: string; pr?: number });
    expect(events.map((e) => e.pr ?? e.subject)).toEqual(['queue', 41, 42]);
    for (const e of events) expect(Date.parse(e.at) - SERVICE_NOW).toBeGreaterThanOrEqual(0);
    for (const e of events) expect(Date.parse(e.at) - SERVICE_NOW).toBeLessThan(1000);

    const live = await watch(true, ['queue', 'watch']);
    expect(live.stdout).toMatch(/#41[\s│]+testing[\s│]+5h[\s│]/);
    expect(live.stdout).toContain(`updated ${new Date(SERVICE_NOW).toISOString().slice(11, 19)} UTC`);
  });
});

describe('pause, resume and drain say when by the service clock', () => {
  for (const verb of ['pause', 'resume', 'drain']) {
    it(`mq queue ${verb}: at is the service time, not the local time`, async () => {
      fake.on('POST /updateQueue', ok(queueRecord({ state: 'running' })));
      const r = await mq(['queue', verb, '--json']);
      expect(r.exitCode).toBe(0);
      const at = Date.parse(JSON.parse(r.stdout).at);
      // The header names a whole second; the client takes its middle.
      expect(at - SERVICE_NOW).toBeGreaterThanOrEqual(0);
      expect(at - SERVICE_NOW).toBeLessThan(1000);
      const table = await mq(['queue', verb, '-o', 'table']);
      expect(table.stdout).toContain(`  at:     ${new Date(at).toISOString()}`);
    });
  }
});

describe('without a usable Date header the local clock is the fallback', () => {
  beforeEach(() => {
    date = 'not a date';
    script();
  });

  it('an unreadable Date header: in state for 2h, by the local clock', async () => {
    const r = await mq(['status', '42']);
    expect(r.stdout).toMatch(new RegExp(`^in_state_seconds\\t${LOCAL_AGE_S}$`, 'm'));
  });
});
