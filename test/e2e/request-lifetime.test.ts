/**
 * No request outlives its command: the built binary against a fake that answers nothing (or
 * answers one request at once and leaves the others hanging) ends within the time its own
 * requests may take, plus a margin, instead of waiting out requests still in flight.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { startFakeServer, type Reply } from '../helpers/fake-server.js';
import { baseEnv, BIN, runCli } from '../helpers/run-cli.js';
import { queueRecord } from '../helpers/test-context.js';

const MARGIN_MS = 2000;
/** Per-request limit of the commands that do not wait; a read is tried 4 times. */
const REQUEST_MS = 500;
const READS = 4 * REQUEST_MS;
const WAIT = ['--timeout', '2s'];
/** The default per-request limit: a request left in flight would keep the process for minutes. */
const SLOW = { MQ_TIMEOUT: '30s' };

interface Row {
  args: string[];
  exit: number;
  /** What the command's own requests may take. */
  budgetMs: number;
  /** Routes answered at once; every other route never answers. */
  replies?: Record<string, Reply>;
  env?: Record<string, string>;
}

const named = (rows: Row[]) => rows.map((row) => [row.args.join(' '), row] as const);

async function timed(row: Row): Promise<{ exitCode: number; stderr: string; ms: number }> {
  const fake = await startFakeServer({ hang: true });
  try {
    for (const [route, reply] of Object.entries(row.replies ?? {})) fake.on(route, reply);
    const env = { ...baseEnv(fake.url), MQ_TIMEOUT: `${REQUEST_MS}ms`, ...row.env };
    const started = Date.now();
    // Killed well past the bound, so a leak fails the assertion below, not the test's timeout.
    const r = await runCli(row.args, { env, timeoutMs: row.budgetMs + MARGIN_MS + 8000 });
    return { ...r, ms: Date.now() - started };
  } finally {
    await fake.close();
  }
}

const silent: Row[] = [
  { args: ['submit', '5', '--wait', ...WAIT], exit: 6, budgetMs: 2000, env: SLOW },
  { args: ['submit', '5'], exit: 6, budgetMs: READS },
  { args: ['submit', '5', '6'], exit: 6, budgetMs: READS },
  { args: ['wait', '5', ...WAIT], exit: 6, budgetMs: 2000, env: SLOW },
  { args: ['status', '5'], exit: 6, budgetMs: READS },
  { args: ['status', '5', '6'], exit: 6, budgetMs: READS },
  { args: ['cancel', '5'], exit: 6, budgetMs: READS },
  { args: ['restart', '5'], exit: 6, budgetMs: READS },
  { args: ['queue', 'pause'], exit: 6, budgetMs: READS },
  { args: ['queue', 'resume'], exit: 6, budgetMs: READS },
  { args: ['queue', 'drain'], exit: 6, budgetMs: READS },
  { args: ['queue', 'drain', '--wait', ...WAIT], exit: 6, budgetMs: 2000, env: SLOW },
  { args: ['queue', 'update', '--concurrency', '2'], exit: 6, budgetMs: READS },
  { args: ['queue', 'create'], exit: 6, budgetMs: READS },
  { args: ['queue', 'delete', '--yes'], exit: 6, budgetMs: READS },
  { args: ['queue', 'show'], exit: 6, budgetMs: READS },
  { args: ['queue', 'history'], exit: 6, budgetMs: READS },
  { args: ['queue', 'stats'], exit: 6, budgetMs: READS },
  { args: ['queue', 'simulate', '--from-history', '1d'], exit: 6, budgetMs: READS },
];

// One request answers at once (mostly a 401, not retried) while the others of the command never do.
const REFUSED: Reply = { status: 401, body: 'bad token' };
const halfSilent: Row[] = [
  // The issue: the queue-state read beside the submit went on after the command had failed.
  { args: ['submit', '5'], replies: { 'POST /submitPullRequest': REFUSED }, exit: 4, budgetMs: 0, env: SLOW },
  {
    args: ['status', '5', '6'],
    replies: { 'POST /getSubmittedPullRequests': REFUSED },
    exit: 4,
    budgetMs: 0,
    env: SLOW,
  },
  // Nothing refused: the submit and the poll answer, the state read does not (it held the wait up).
  {
    args: ['submit', '5', '--wait', ...WAIT],
    replies: {
      'POST /submitPullRequest': { status: 200, body: 'OK' },
      'POST /getSubmittedPullRequest': { status: 200, body: { prNumber: 5, state: 'merged' } },
    },
    exit: 0,
    budgetMs: 0,
    env: SLOW,
  },
  {
    args: ['queue', 'stats'],
    replies: { 'POST /getQueue': { status: 200, body: queueRecord() }, 'POST /listPullRequests': REFUSED },
    exit: 4,
    budgetMs: 0,
    env: SLOW,
  },
];

describe.concurrent('no request outlives its command', () => {
  it.each(named(silent))('a silent service: mq %s ends within the time its requests may take + 2 s', async (_, row) => {
    const r = await timed(row);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.exitCode).toBe(row.exit);
    expect(r.ms).toBeLessThan(row.budgetMs + MARGIN_MS);
  });

  it.each(named(halfSilent))('one request answered, the others silent: mq %s ends at once', async (_, row) => {
    const r = await timed(row);
    expect(r.exitCode).toBe(row.exit);
    if (row.exit !== 0) expect(r.stderr).toContain('HTTP 401');
    expect(r.ms).toBeLessThan(row.budgetMs + MARGIN_MS);
  });

  it('queue watch, which polls until Ctrl-C, stops its request in flight at once', async () => {
    const fake = await startFakeServer({ hang: true });
    try {
      const child = execa(process.execPath, [BIN, 'queue', 'watch', '--json'], {
        env: { ...baseEnv(fake.url), ...SLOW },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 15_000,
      });
      while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
      const started = Date.now();
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(Date.now() - started).toBeLessThan(MARGIN_MS);
    } finally {
      await fake.close();
    }
  });

  it('every request in flight listens to the command signal: 30 at once raise no listener warning', async () => {
    const fake = await startFakeServer({ slow: { status: 200, chunks: ['O', 'K'], everyMs: 150 } });
    try {
      const prs = Array.from({ length: 40 }, (_, i) => String(i + 1));
      const r = await runCli(['submit', ...prs, '--parallel', '30'], { env: baseEnv(fake.url) });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain('40 of 40 succeeded');
      expect(r.stderr).not.toContain('MaxListenersExceededWarning');
    } finally {
      await fake.close();
    }
  });
});
