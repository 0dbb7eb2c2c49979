/**
 * Tables as a person sees them in a real terminal: the built binary in a private tmux server of 60
 * columns, the screen read back with wrapped lines joined (so a line the terminal had to wrap shows
 * as one long line). `queue show` fits; `queue watch` draws on the alternate screen, follows a
 * resize, and after Ctrl-C the screen and its scrollback hold the last frame once.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv } from '../helpers/run-cli.js';
import { entry, queueRecord } from '../helpers/test-context.js';
import { hasTmux, terminal as tmuxTerminal, widest } from '../helpers/tmux.js';

if (!hasTmux) console.warn('tty-fit: tmux not installed; the real-terminal tests are skipped');

const TITLES = [
  'Add a retry budget to the HTTP client so bursts of 503s stop failing whole pipelines',
  'Cache compiled templates and render them lazily on first use, behind a flag',
  'Rename the billing job',
  'Bump the TLS library to the latest patch release with the CVE fix',
  'Document the release train and who to page when it stalls overnight',
  'Drop the legacy exporter',
];
const QUEUE = queueRecord(
  { branch: 'release/2026-q4-hotfix-train' },
  TITLES.map((t, i) => ({
    ...entry(101 + i, i === 0 ? 'testing' : 'pending'),
    prTitle: t,
    prAuthor: 'margaret-hamilton',
  })),
);

const fake = useFakeServer();
beforeAll(async () => {
  fake.on('POST /getQueue', { status: 200, body: QUEUE });
  fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [] } });
});
const sessions: Array<() => void> = [];
afterEach(() => {
  for (const kill of sessions.splice(0)) kill();
});

/** `mq <args>` in a tmux window of `cols` x `rows`, against the fake server. */
function terminal(args: string[], cols: number, rows: number) {
  const t = tmuxTerminal(args, cols, rows, baseEnv(fake.url));
  sessions.push(t.kill);
  return t;
}

describe.skipIf(!hasTmux)('tables in a 60-column terminal', () => {
  it('mq queue show: no line wider than 60 cells, titles cut with …', async () => {
    const t = terminal(['queue', 'show'], 60, 40);
    const s = await t.until(/exit=\d+/);
    expect(s).toContain('exit=0');
    expect(s).toContain('#106');
    expect(s).toMatch(/Add a retry[^│\n]*…/);
    expect(widest(s)).toBeLessThanOrEqual(60);
  });

  it('mq queue watch: alternate screen, fits a resize, only the last frame left after Ctrl-C', async () => {
    // 14 rows: the queue summary and six PRs do not fit, so frames are clipped, never scrolled.
    const t = terminal(['queue', 'watch', '--interval', '500ms'], 60, 14);
    const first = await t.until(/… \d+ more/);
    expect(first).toMatch(/… \d+ more/);
    expect(first.trimEnd().split('\n').length).toBeLessThanOrEqual(14);
    expect(widest(first)).toBeLessThanOrEqual(60);
    // While it runs, nothing went to the normal screen's scrollback.
    expect(t.screen(true).trimEnd()).toBe(first.trimEnd());

    t.tmux('resize-window', '-x', '48', '-y', '14');
    const narrow = await t.until(/^Queue {6}\S.{0,40}$/m);
    expect(widest(narrow)).toBeLessThanOrEqual(48);

    t.tmux('send-keys', 'C-c');
    const after = await t.until(/exit=130/, true);
    expect(after).toContain('exit=130');
    // The whole history: one frame (the last, not clipped), then the exit line.
    expect(after.match(/every 500ms · Ctrl-C to/g)).toHaveLength(1);
    expect(after.match(/│ PR /g)).toHaveLength(1);
    expect(after).toContain('#106');
    expect(after).not.toMatch(/… \d+ more/);
    expect(widest(after)).toBeLessThanOrEqual(48);
  });
});

describe.skipIf(!hasTmux)('queue stats and queue testing in 60- and 80-column terminals', () => {
  const RUN = '5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';
  const T0 = Date.parse('2026-11-18T00:00:00Z');
  const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
  beforeAll(() => {
    // Seven days; PRs only from the fourth day on, one every 50 minutes, 20 to 110 minutes in the queue.
    const prs = Array.from({ length: 90 }, (_, i) => {
      const done = 3 * 1440 + i * 50;
      return {
        prNumber: 500 + i,
        state: i % 10 === 9 ? 'failed' : 'merged',
        submittedAt: at(done - 20 - (i % 10) * 10),
        stateChangedAt: at(done),
      };
    });
    const results = prs.map((p, i) => ({
      prNumber: p.prNumber,
      testRunId: `run-${i}`,
      createdAt: at(3 * 1440 + i * 50 - 15),
      completedAt: p.stateChangedAt,
      testRunStatus: p.state === 'failed' ? 'failed' : 'succeeded',
      cycleConclusion: p.state,
    }));
    fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: prs } });
    fake.on('POST /listMergeQueueTestingResults', {
      status: 200,
      body: { testingResults: results, totalItems: results.length },
    });
    const run = {
      name: 'integration-tests / linux-x86_64 (node 22, postgres 16)',
      url: `https://ci.example.com/acme/widgets/actions/runs/9912345678/job/1`,
      status: 'COMPLETED',
      conclusion: 'SUCCESS',
    };
    const status = { context: run.name, url: run.url, state: 'SUCCESS' };
    fake.on('POST /getMergeQueueTestingDetails', {
      status: 200,
      body: {
        requiredStatuses: [run.name],
        testBranch: `trunk-merge/pr-1815/${RUN}`,
        status: 'IN_PROGRESS',
        checkSuites: [{ checkRuns: Array.from({ length: 76 }, () => run) }],
        statusChecks: Array.from({ length: 76 }, () => status),
        testedPullRequests: [{ prNumber: 1815, prUrl: 'https://github.com/acme/widgets/pull/1815', title: TITLES[0] }],
      },
    });
  });

  for (const cols of [60, 80]) {
    it(`mq queue stats at ${cols} columns: every line fits, the axis labels and notes are whole words`, async () => {
      const t = terminal(['queue', 'stats', '--since', at(0), '--until', at(7 * 1440)], cols, 80);
      const s = await t.until(/exit=\d+/);
      expect(s).toContain('exit=0');
      expect(widest(s)).toBeLessThanOrEqual(cols);
      for (const group of ['Throughput', 'Time to merge', 'CI cost', 'Reliability'])
        expect(s).toMatch(new RegExp(`^${group}$`, 'm'));
      expect(s).toMatch(/^merges per hour \(UTC, a column per \d+ h\):?/m);
      expect(s).toContain('┄ ceiling of the settings: ');
      expect(s).toMatch(/^ +0 └[─┬]+$/m);
      expect(s).toMatch(/^ {6,}Nov 1[89] +Nov \d\d/m);
      expect(s.replace(/\n/g, ' ')).toContain(
        'no data before Nov 21 00:00 UTC: nothing left the queue earlier in the window',
      );
    });

    it(`mq queue testing at ${cols} columns: every line fits, a repeated check is one row per kind with its count`, async () => {
      const t = terminal(['queue', 'testing', RUN], cols, 40);
      const s = await t.until(/exit=\d+/);
      expect(s).toContain('exit=0');
      // A URL is never cut: alone on its line, it may be wider than the terminal.
      expect(widest(s.replace(/^ *https:\/\/\S+$/gm, ''))).toBeLessThanOrEqual(cols);
      // A long branch breaks after a `/`, the run id whole.
      expect(s).toMatch(/^Test branch {2}trunk-merge\/pr-1815\/(\n {13})?5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31$/m);
      const rows = s.split('\n').filter((l) => /^│ integratio/.test(l));
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatch(/│ check run │ success +│ (yes +│ )?76 +│/);
      expect(rows[1]).toMatch(/│ status +│ success +│ (yes +│ )?76 +│/);
    });
  }
});
