import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv } from '../../helpers/run-cli.js';
import { runMq } from '../../helpers/in-process.js';
import { entry, queueRecord } from '../../helpers/test-context.js';

const TARGET = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

const fake = useFakeServer();
const env = () => baseEnv(fake.url);
const updates = () => fake.requests.filter((r) => r.path === '/updateQueue');

describe('pause, resume, drain send the state and print before -> after', () => {
  const cases = [
    { verb: 'pause', from: 'running', to: 'paused' },
    { verb: 'resume', from: 'paused', to: 'running' },
    { verb: 'drain', from: 'running', to: 'draining' },
  ] as const;
  for (const c of cases) {
    it(`mq queue ${c.verb}`, async () => {
      fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: c.from }) });
      fake.on('POST /updateQueue', {
        status: 200,
        body: queueRecord({ state: c.to, enqueuedPullRequests: undefined }),
      });
      const r = await runMq(['queue', c.verb], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue', '/updateQueue']);
      expect(updates()[0]?.body).toEqual({ ...TARGET, state: c.to });
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toContain(`before\t${c.from}`);
      expect(lines).toContain(`after\t${c.to}`);
      const table = await runMq(['queue', c.verb, '-o', 'table'], { env: env() });
      expect(table.stdout).toMatch(new RegExp(`✓ main of github\\.com/acme/widgets: ${c.from} -> +${c.to}`, 'i'));
    });
  }

  it('pause --reason is shown and recorded in the output but not sent', async () => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'running' }) });
    fake.on('POST /updateQueue', { status: 200, body: queueRecord({ state: 'paused' }) });
    const r = await runMq(['queue', 'pause', '--reason', 'main is red: INC-1234', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(updates()[0]?.body).toEqual({ ...TARGET, state: 'paused' });
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      repo: 'github.com/acme/widgets',
      targetBranch: 'main',
      action: 'pause',
      before: 'running',
      after: 'paused',
      changed: true,
      reason: 'main is red: INC-1234',
    });
    expect(Date.parse(doc.at)).not.toBeNaN();
    expect(r.stderr).toContain('⚠ QUEUE PAUSED');
    expect(r.stderr).toContain('hint: resume the queue with `mq queue resume`');
    const table = await runMq(['queue', 'pause', '--reason', 'main is red: INC-1234', '-o', 'table'], { env: env() });
    expect(table.stdout).toContain('reason: main is red: INC-1234');
  });

  it('pause --help says the reason is not sent', async () => {
    const r = await runMq(['queue', 'pause', '--help']);
    expect(r.stdout).toContain('The API has no field for a reason');
  });

  it('--dry-run reads the state but sends no update', async () => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'running' }) });
    const r = await runMq(['queue', 'drain', '--dry-run', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(updates()).toHaveLength(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ dryRun: true, before: 'running', after: 'draining', action: 'drain' });
    expect(JSON.parse(doc.request.body)).toEqual({ ...TARGET, state: 'draining' });
  });
});

describe('mq queue drain --wait', () => {
  const draining = (...prs: Array<Record<string, unknown>>) => ({
    status: 200,
    body: queueRecord({ state: 'draining' }, prs),
  });

  it('polls until no PR is pending, testing or waiting to merge, with progress on stderr', async () => {
    fake.on(
      'POST /getQueue',
      { status: 200, body: queueRecord({ state: 'running' }, [entry(1, 'testing'), entry(2, 'pending')]) },
      draining(entry(1, 'testing'), entry(2, 'pending')),
      draining(entry(1, 'tests_passed'), entry(2, 'testing')),
      draining(entry(2, 'testing')),
      draining(),
    );
    fake.on('POST /updateQueue', { status: 200, body: queueRecord({ state: 'draining' }) });
    const r = await runMq(['queue', 'drain', '--wait', '--interval', '100ms'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(updates()).toHaveLength(1);
    expect(fake.requests.filter((q) => q.path === '/getQueue')).toHaveLength(5);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('draining main:'));
    expect(progress.map((l) => l.replace(/ \(.*\)$/, ''))).toEqual([
      'draining main: 2 PRs: 1 testing, 1 pending',
      'draining main: 2 PRs: 1 testing, 1 waiting to merge',
      'draining main: 1 PR: 1 testing',
      'draining main: no PR in flight',
    ]);
    expect(r.stderr).toContain('✓ drained main: no PR is pending, testing or waiting to merge');
  });

  it('exits 8 at --timeout with the PRs still in flight; --json gives one document', async () => {
    fake.on('POST /getQueue', draining(entry(5, 'testing'), entry(6, 'pending')));
    fake.on('POST /updateQueue', { status: 200, body: queueRecord({ state: 'draining' }) });
    const r = await runMq(['queue', 'drain', '--wait', '--interval', '100ms', '--timeout', '400ms', '--json'], {
      env: env(),
    });
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toMatch(/✗ still 2 PRs: 1 testing, 1 pending after \d+s \(--timeout\): #5, #6/);
    const doc = JSON.parse(r.stdout);
    expect(doc.wait.outcome).toBe('timeout');
    expect(doc.wait.remaining.map((e: { prNumber: number }) => e.prNumber)).toEqual([5, 6]);
    expect(doc.after).toBe('draining');
  });

  it('--wait with --dry-run is a usage error, nothing sent', async () => {
    const r = await runMq(['queue', 'drain', '--wait', '--dry-run'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--wait cannot be used with --dry-run');
    expect(fake.requests).toHaveLength(0);
  });
});
