import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv } from '../../../helpers/run-cli.js';
import { runMq } from '../../../helpers/in-process.js';
import { entry, minutesAgo, queueRecord } from '../../../helpers/test-context.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

// A busy queue: PRs in every state, in queue order, as the service lists them. The built binary
// reads the real clock, so times are relative to now.
const ago = (m: number) => minutesAgo(m, Date.now());
const makePrs = () => [
  entry(101, 'testing', {
    stateChangedAt: ago(185),
    prTitle: 'Urgent hotfix for the login page',
    prAuthor: 'alice',
    priorityName: 'urgent',
    priorityValue: 0,
    skipTheLine: true,
  }),
  entry(102, 'tests_passed', { stateChangedAt: ago(5), prAuthor: 'bob', priorityName: 'high', priorityValue: 10 }),
  entry(103, 'testing', { prAuthor: 'carol', noBatch: true }),
  entry(104, 'pending_failure', {
    stateChangedAt: ago(5),
    prAuthor: 'dave',
    prTitle: 'Tabs\tand\nnewlines in a title',
  }),
  entry(105, 'pending', { prAuthor: 'erin' }),
  entry(106, 'pending', { prAuthor: 'frank', priorityName: 'low', priorityValue: 200 }),
  entry(107, 'not_ready', { prAuthor: 'grace' }),
  entry(108, 'failed', { prAuthor: 'heidi' }),
  entry(109, 'cancelled', { prAuthor: 'ivan' }),
  entry(110, 'merged', { prAuthor: 'judy' }),
];
let QUEUE: Record<string, unknown>;

const fake = useFakeServer();
beforeEach(() => {
  QUEUE = queueRecord({}, makePrs());
  fake.on('POST /getQueue', { status: 200, body: QUEUE });
  // The service leaves not-ready PRs out of getQueue; queue show lists them apart.
  fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [] } });
});
const env = () => baseEnv(fake.url);

describe('mq queue show', () => {
  it('asks getQueue for the target queue', async () => {
    const r = await runMq(['queue', 'show', '--branch', 'release'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]?.path).toBe('/getQueue');
    expect(fake.requests[0]?.body).toEqual({ repo: REPO, targetBranch: 'release' });
    expect(fake.requests[1]?.path).toBe('/listPullRequests');
    expect(fake.requests[1]?.body).toEqual({ repo: REPO, targetBranch: 'release', state: 'not_ready', take: 100 });
  });

  it('piped: one tab-separated line per PR in queue order, nothing else on stdout', async () => {
    const r = await runMq(['queue', 'show'], { env: env() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(
      /^1\t101\ttesting\t111(0[0-9])\turgent\t0\ttrue\tfalse\talice\tUrgent hotfix for the login page\t$/,
    );
    expect(lines[1]).toMatch(/^2\t102\ttests_passed\t30[0-9]\thigh\t10\tfalse\tfalse\tbob\tChange number 102\t$/);
    expect(lines[2]).toMatch(/^3\t103\ttesting\t\d+\tmedium\t100\tfalse\ttrue\tcarol\t/);
    expect(lines[3]).toMatch(
      /^4\t104\tpending_failure\t30[0-9]\tmedium\t100\tfalse\tfalse\tdave\tTabs and newlines in a title\t$/,
    );
    expect(lines.map((l) => l.split('\t')[2])).toEqual([
      'testing',
      'tests_passed',
      'testing',
      'pending_failure',
      'pending',
      'pending',
      'not_ready',
      'failed',
      'cancelled',
      'merged',
    ]);
    for (const l of lines) expect(l.split('\t')).toHaveLength(11);
    // The queue's state goes to stderr for the human watching the pipe.
    expect(r.stderr).toContain(
      'queue main of github.com/acme/widgets: running · 10 PRs: 2 testing, 2 pending, 1 waiting to merge, 1 pending failure, 1 not ready',
    );
  });

  it('as a table: header with the key settings, then the PRs with time in state and priority', async () => {
    const r = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
    expect(r.exitCode).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/Queue\s+main · github\.com\/acme\/widgets/);
    expect(out).toMatch(/State\s+running/);
    expect(out).toMatch(/Mode\s+single · concurrency 3 · merge method squash/);
    expect(out).toMatch(/Batching\s+on: at least 2 PRs, waits up to 5m · bisection concurrency 2/);
    expect(out).toMatch(/Testing\s+timeout 1h · optimistic merge on · pending failure depth 2/);
    expect(out).toMatch(/Required\s+ci\/build/);
    expect(out).toMatch(/PRs\s+10 PRs: 2 testing/);
    const row = (pr: number) => out.split('\n').find((l) => l.includes(`#${pr} `)) ?? '';
    expect(row(101)).toMatch(
      /│?\s*1\s.*#101\s.*testing\s.*3h 5m\s.*urgent \(0\), skip the line\s.*alice\s.*Urgent hotfix/,
    );
    expect(row(102)).toMatch(/#102\s.*tests_passed\s.*5m( \ds)?\s.*high \(10\)\s.*bob/);
    expect(row(103)).toMatch(/medium \(100\), no batch/);
    expect(row(110)).toMatch(/10\s.*#110\s.*merged/);
    // queue order is kept
    expect(out.indexOf('#101')).toBeLessThan(out.indexOf('#102'));
    expect(out.indexOf('#109')).toBeLessThan(out.indexOf('#110'));
    expect(out).not.toContain('QUEUE PAUSED');
  });

  for (const [state, words] of [
    ['paused', 'QUEUE PAUSED — no PRs are tested or merged'],
    ['draining', 'QUEUE DRAINING — PRs already in the queue are tested and merged; no new PRs enter'],
    ['switching_modes', 'QUEUE SWITCHING MODES'],
  ] as const) {
    it(`a ${state} queue gets a banner: first line on a terminal, on stderr when piped`, async () => {
      fake.on('POST /getQueue', { status: 200, body: { ...QUEUE, state: state.toUpperCase() } });
      const table = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
      expect(table.stdout.split('\n')[0]).toContain(`⚠ ${words}`);
      expect(table.stdout).toMatch(new RegExp(`State\\s+ ${state.toUpperCase()} `));
      const piped = await runMq(['queue', 'show'], { env: env() });
      expect(piped.stdout).not.toContain('QUEUE');
      expect(piped.stderr.split('\n')[0]).toContain(`⚠ ${words}`);
      const asJson = await runMq(['queue', 'show', '--json'], { env: env() });
      expect(JSON.parse(asJson.stdout).state).toBe(state);
      expect(asJson.stderr).toContain(`⚠ ${words}`);
    });
  }

  it('--json prints the whole record, unknown fields kept', async () => {
    const r = await runMq(['queue', 'show', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.enqueuedPullRequests).toHaveLength(10);
    expect(doc.enqueuedPullRequests[0].prNumber).toBe(101);
    expect(doc.labelCommandsEnabled).toBe(true);
    expect(doc.mergeMethod).toBe('squash');
  });

  it('--settings piped: key<TAB>value lines keyed like the update flags', async () => {
    const r = await runMq(['queue', 'show', '--settings'], { env: env() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of [
      'branch\tmain',
      'state\trunning',
      'concurrency\t3',
      'testing-timeout\t60',
      'optimistic-merge\ttrue',
      'batch\ttrue',
      'merge-method\tsquash',
      'required-statuses\tci/build',
      'enqueued\t10',
    ]) {
      expect(lines).toContain(l);
    }
  });

  it('markdown for a step summary: settings and a PR table', async () => {
    fake.on('POST /getQueue', { status: 200, body: { ...QUEUE, state: 'paused' } });
    const r = await runMq(['queue', 'show', '-o', 'markdown'], { env: env() });
    expect(r.stdout).toContain('> **⚠ QUEUE PAUSED');
    expect(r.stdout).toContain('### Merge queue main');
    expect(r.stdout).toContain('| # | PR | State | In state | Priority | Author | Title |');
    expect(r.stdout).toMatch(
      /\| 4 \| #104 \| pending_failure \| 5m( \ds)? \| medium \(100\) \| dave \| Tabs and newlines in a title \|/,
    );
  });

  it('an empty queue: no rows piped, a note on a terminal', async () => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord({ requiredStatuses: null }) });
    const piped = await runMq(['queue', 'show'], { env: env() });
    expect(piped.stdout).toBe('');
    expect(piped.stderr).toContain('running · none');
    const table = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
    expect(table.stdout).toContain('No PRs in the queue.');
    expect(table.stdout).toMatch(/Required\s+not set \(branch protection or repo config decides\)/);
  });

  it('a missing queue exits 3 with the server message', async () => {
    fake.on('POST /getQueue', { status: 404, body: 'merge queue not found' });
    const r = await runMq(['queue', 'show'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('mq: get the queue for main: the service answered HTTP 404: merge queue not found');
  });

  describe('PRs submitted but not ready (left out of getQueue by the service)', () => {
    const readiness = (extra: Record<string, unknown>) => ({
      hasImpactedTargets: true,
      requiresImpactedTargets: true,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
      ...extra,
    });
    beforeEach(() => {
      fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'running' }, [entry(101, 'testing')]) });
      fake.on(
        'POST /listPullRequests',
        { status: 200, body: { pullRequests: [entry(201, 'not_ready'), entry(202, 'not_ready')], nextCursor: 'c1' } },
        {
          status: 200,
          body: { pullRequests: [entry(203, 'not_ready', { prBaseBranch: 'dev' }), entry(101, 'testing')] },
        },
      );
      fake.on('POST /getSubmittedPullRequests', {
        status: 200,
        body: {
          pullRequests: [
            { ...entry(201, 'not_ready'), readiness: readiness({ hasImpactedTargets: false }) },
            { ...entry(202, 'not_ready'), readiness: readiness({ gitHubMergeability: 'in_progress' }) },
            {
              ...entry(203, 'not_ready', { prBaseBranch: 'dev' }),
              readiness: readiness({ doesBaseBranchMatch: false }),
            },
          ],
          notFound: [],
        },
      });
    });

    it('on a terminal: a second table with why each PR waits; the count includes them', async () => {
      const r = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/PRs\s+4 PRs: 1 testing, 3 not ready/);
      expect(r.stdout).toContain('Not ready (3): submitted, waiting to enter the queue');
      const row = (pr: number) => r.stdout.split('\n').find((l) => l.includes(`#${pr} `)) ?? '';
      expect(row(201)).toContain('impacted targets missing');
      expect(row(202)).toContain('checks pending');
      expect(row(203)).toContain('base branch mismatch (dev, not main)');
      // cursor paging, one readiness lookup for all three
      const lists = fake.requests.filter((q) => q.path === '/listPullRequests');
      expect(lists.map((q) => (q.body as { cursor?: string }).cursor)).toEqual([undefined, 'c1']);
      const lookups = fake.requests.filter((q) => q.path === '/getSubmittedPullRequests');
      expect(lookups).toHaveLength(1);
      expect(lookups[0]?.body).toMatchObject({ prs: [{ number: 201 }, { number: 202 }, { number: 203 }] });
      expect((lookups[0]?.body as { prs: unknown[] } | undefined)?.prs).toEqual([
        { number: 201 },
        { number: 202 },
        { number: 203 },
      ]);
    });

    it('an otherwise empty queue never says "No PRs in the queue." while PRs wait', async () => {
      fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'paused' }) });
      const r = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
      expect(r.stdout).not.toContain('No PRs in the queue.');
      expect(r.stdout).toContain('No PRs in the queue yet.');
      expect(r.stdout).toContain('Not ready (3)');
    });

    it('a ready PR in a paused queue waits for the queue', async () => {
      fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'paused' }) });
      fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [entry(201, 'not_ready')] } });
      fake.on('POST /getSubmittedPullRequests', {
        status: 200,
        body: { pullRequests: [{ ...entry(201, 'not_ready'), readiness: readiness({}) }] },
      });
      const r = await runMq(['queue', 'show', '--json'], { env: env() });
      expect(JSON.parse(r.stdout).notReadyPullRequests[0].waitingFor).toEqual(['queue is paused: no PRs enter']);
    });

    it('piped: not-ready rows follow, no position, the reason in the waiting_for column; --json lists them apart', async () => {
      const r = await runMq(['queue', 'show'], { env: env() });
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]?.split('\t').slice(0, 3)).toEqual(['1', '101', 'testing']);
      expect(lines[1]).toMatch(
        /^\t201\tnot_ready\t\d+\tmedium\t100\tfalse\tfalse\toctocat\tChange number 201\timpacted targets missing$/,
      );
      expect(lines[3]?.split('\t')[10]).toBe('base branch mismatch (dev, not main)');
      expect(r.stderr).toContain('running · 4 PRs: 1 testing, 3 not ready');
      fake.on('POST /listPullRequests', {
        status: 200,
        body: { pullRequests: [entry(201, 'not_ready'), entry(202, 'not_ready'), entry(203, 'not_ready')] },
      });
      const doc = JSON.parse((await runMq(['queue', 'show', '--json'], { env: env() })).stdout);
      expect(doc.enqueuedPullRequests.map((e: { prNumber: number }) => e.prNumber)).toEqual([101]);
      expect(doc.notReadyPullRequests.map((e: { prNumber: number }) => e.prNumber)).toEqual([201, 202, 203]);
      expect(doc.notReadyPullRequests[1]).toMatchObject({
        state: 'not_ready',
        readiness: { gitHubMergeability: 'in_progress' },
        waitingFor: ['checks pending'],
      });
    });

    it('a service without listPullRequests: the queue is shown, with a warning on stderr', async () => {
      fake.on('POST /listPullRequests', { status: 404, body: 'no such endpoint' });
      const r = await runMq(['queue', 'show', '-o', 'table'], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('#101');
      expect(r.stderr).toContain(
        'warning: PRs submitted but not ready are not shown: the service answered HTTP 404: no such endpoint',
      );
    });
  });
});
