import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Reply, useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv, BIN, runCli, tempDir, TOKEN } from '../../helpers/run-cli.js';

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /submitPullRequest', { status: 200, body: 'OK' });
});

const env = () => baseEnv(fake.url);
let clock = Date.parse('2026-11-22T10:00:00Z');
function pr(state: string, extra: Record<string, unknown> = {}): Reply {
  clock += 60_000;
  return {
    status: 200,
    body: {
      state,
      stateChangedAt: new Date(clock).toISOString(),
      prNumber: 42,
      isCurrentlySubmittedToQueue: !['merged', 'failed', 'cancelled'].includes(state),
      ...extra,
    },
  };
}
/** `mq <args>` as a child process, once a chunk of its stderr holds `text`. */
async function spawnUntil(args: string[], text: string) {
  const child = execa(process.execPath, [BIN, ...args], {
    env: env(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  await new Promise<void>((resolve) => {
    child.stderr?.on('data', (d: Buffer) => {
      if (d.toString().includes(text)) resolve();
    });
  });
  return { child }; // wrapped: awaiting the child itself would wait for its exit
}
const polls = () => fake.requests.filter((r) => r.path === '/getSubmittedPullRequest').length;

describe('mq wait', () => {
  it('pending -> testing -> merged: exit 0, each change on stderr, one JSON document', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('pending'), pr('testing'), pr('tests_passed'), pr('merged'));
    const r = await runCli(['wait', '42', '--interval', '100ms', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('PR #42: pending\n');
    expect(r.stderr).toMatch(/PR #42: pending → testing \(after 1m in pending\)/);
    expect(r.stderr).toMatch(/tests_passed → merged/);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ pr: 42, outcome: 'merged', exitCode: 0, state: 'merged' });
    expect(doc.transitions.map((t: { to: string }) => t.to)).toEqual(['pending', 'testing', 'tests_passed', 'merged']);
    expect(doc.transitions[1].afterMs).toBe(60_000);
  });

  for (const state of ['failed', 'cancelled']) {
    it(`-> ${state}: exit 9`, async () => {
      fake.on('POST /getSubmittedPullRequest', pr('testing'), pr(state));
      const r = await runCli(['wait', '42', '--interval', '100ms'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain(`PR #42 ${state}`);
    });
  }

  it('no longer submitted while pending: exit 9 and says which', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('pending'), pr('pending', { isCurrentlySubmittedToQueue: false }));
    const r = await runCli(['wait', '42', '--interval', '100ms', '--json'], { env: env() });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('is no longer in the queue, though its state is pending');
    expect(JSON.parse(r.stdout).outcome).toBe('left_queue');
  });

  it('never terminal: exit 8 at --timeout', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('testing'));
    const started = Date.now();
    const r = await runCli(['wait', '42', '--interval', '100ms', '--timeout', '1s'], { env: env() });
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toMatch(/still testing after \d+s \(--timeout\)/);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(polls()).toBeGreaterThan(3);
  });

  it('503s in the middle are retried and never the outcome', async () => {
    const busy: Reply = { status: 503, body: 'busy' };
    fake.on('POST /getSubmittedPullRequest', pr('testing'), busy, busy, busy, busy, busy, pr('merged'));
    const r = await runCli(['wait', '42', '--interval', '100ms'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('poll failed');
    expect(r.stderr).toContain('PR #42 merged');
  });

  it('--timeout bounds the whole wait, even when a poll hangs', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('testing'), { hang: true });
    const started = Date.now();
    const r = await runCli(['wait', '42', '--interval', '100ms', '--timeout', '1500ms'], { env: env() });
    expect(r.exitCode).toBe(8);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('Ctrl-C during a hanging poll exits 130 at once', async () => {
    fake.on('POST /getSubmittedPullRequest', { hang: true });
    const { child } = await spawnUntil(['wait', '42', '--debug'], '> POST');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = Date.now();
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(Date.now() - sent).toBeLessThan(3000);
  });

  it('401 ends the wait with exit 4, 404 with exit 3', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('testing'), { status: 401, body: 'no' });
    expect((await runCli(['wait', '42', '--interval', '100ms'], { env: env() })).exitCode).toBe(4);
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'never submitted' });
    expect((await runCli(['wait', '42', '--interval', '100ms'], { env: env() })).exitCode).toBe(3);
  });

  it('Ctrl-C exits 130', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('testing'));
    const { child } = await spawnUntil(['wait', '42', '--interval', '5s'], 'PR #42: testing');
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
  });

  it('markdown output for a step summary', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('testing'), pr('merged', { prTitle: 'Cache widgets' }));
    const r = await runCli(['wait', '42', '--interval', '100ms', '-o', 'markdown'], { env: env() });
    expect(r.stdout).toContain('### PR #42: merged');
    expect(r.stdout).toContain('| At | From | To | After |');
    expect(r.stdout).toMatch(/\| testing \| merged \| 1m \|/);
  });
});

describe('mq submit --wait', () => {
  it('submits, then waits in one step', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('pending'), pr('merged'));
    const r = await runCli(['submit', '42', '--wait', '--interval', '100ms', '--timeout', '30s', '--json'], {
      env: env(),
    });
    expect(r.exitCode).toBe(0);
    // The queue's state is read alongside the submit, so the order of the two on the wire is not fixed.
    expect(fake.requests.map((q) => q.path).filter((p) => p !== '/getQueue')[0]).toBe('/submitPullRequest');
    expect(JSON.parse(r.stdout)).toMatchObject({ pr: 42, outcome: 'merged', submitted: true });
  });
});

describe('bulk', () => {
  it('200 PRs from stdin reach the server exactly once each', async () => {
    const numbers = Array.from({ length: 200 }, (_, i) => 1000 + i);
    const r = await runCli(['submit', '-', '--json'], {
      env: env(),
      input: `${numbers.slice(0, 100).join('\n')}\n${numbers.slice(100).join(' ')}\n`,
    });
    expect(r.exitCode).toBe(0);
    const sent = fake.requests
      .filter((q) => q.path === '/submitPullRequest')
      .map((q) => (q.body as { pr: { number: number } }).pr.number);
    expect(sent).toHaveLength(200);
    expect(new Set(sent)).toEqual(new Set(numbers));
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.results).toHaveLength(200);
    expect(doc.results.every((d: { ok: boolean }) => d.ok)).toBe(true);
  });

  it('reports exactly which PRs failed and exits with the most severe code', async () => {
    fake.on(
      'POST /cancelPullRequest',
      { status: 200, body: 'OK' },
      { status: 404, body: 'not in queue' },
      { status: 200, body: 'OK' },
    );
    // #2 left the queue by merging (an already-cancelled PR would be a success)
    fake.on('POST /getSubmittedPullRequest', pr('cancelled'), pr('merged'), pr('cancelled'));
    const r = await runCli(['cancel', '1', '2', '3', '--parallel', '1', '--json'], { env: env() });
    expect(r.exitCode).toBe(3);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      exitCode: number;
      results: Array<{ pr: number; ok: boolean; exitCode: number }>;
    };
    expect([doc.ok, doc.exitCode]).toEqual([false, 3]);
    expect(doc.results.map((d) => [d.pr, d.ok, d.exitCode])).toEqual([
      [1, true, 0],
      [2, false, 3],
      [3, true, 0],
    ]);
    expect(r.stderr).toContain('✗ #2 cancel failed: ');
    expect(r.stderr).toContain('2 of 3 succeeded, 1 failed');
  });
});

describe('--dry-run sends nothing', () => {
  const cases = [
    ['submit', '42', '--priority', 'urgent'],
    ['cancel', '42'],
    ['restart', '42'],
    ['targets', '42', '--sha', 'abc1234', '--target', '//x'],
  ];
  for (const args of cases) {
    it(args.join(' '), async () => {
      const r = await runCli([...args, '--dry-run', '--debug'], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(fake.requests).toHaveLength(0);
      expect(r.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/v1\/\w+/);
      expect(r.stdout).toContain('x-api-token: ***');
      expect(r.stdout).toContain('curl -sS -X POST');
      expect(r.stdout).toContain('"x-api-token: $MQ_TOKEN"');
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      expect(r.stderr).toContain('dry run: nothing was sent');
    });
  }

  it('with --json, the request is the document', async () => {
    const r = await runCli(['submit', '42', '--dry-run', '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ dryRun: true, request: { method: 'POST', headers: { 'x-api-token': '***' } } });
    expect(JSON.parse(doc.request.body)).toEqual({
      repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
      targetBranch: 'main',
      pr: { number: 42 },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('needs no token', async () => {
    const r = await runCli(['submit', '42', '--dry-run'], { env: { ...env(), MQ_TOKEN: '' } });
    expect(r.exitCode).toBe(0);
  });
});

describe('GitHub Actions', () => {
  it('takes the PR number from GITHUB_REF', async () => {
    fake.on('POST /getSubmittedPullRequest', pr('pending'));
    const r = await runCli(['status'], { env: { ...env(), GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/pull/77/merge' } });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.find((q) => q.path === '/getSubmittedPullRequest')?.body).toMatchObject({
      pr: { number: 77 },
    });
  });

  it('takes the PR number from the event payload', async () => {
    const file = join(tempDir(), 'event.json');
    writeFileSync(file, JSON.stringify({ action: 'labeled', pull_request: { number: 88, head: { sha: 'abc' } } }));
    const r = await runCli(['submit'], {
      env: { ...env(), GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/heads/feature', GITHUB_EVENT_PATH: file },
    });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.find((q) => q.path === '/submitPullRequest')?.body).toMatchObject({ pr: { number: 88 } });
  });

  it('outside Actions the PR number is required (exit 2)', async () => {
    const r = await runCli(['status'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no PR number given');
  });
});
