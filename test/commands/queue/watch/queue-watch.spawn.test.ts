import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv, BIN, runCli, tempDir } from '../../../helpers/run-cli.js';
import { entry, queueRecord } from '../../../helpers/test-context.js';

const fake = useFakeServer();

/** Runs `mq queue watch` piped until stdout has `lines` lines, then presses Ctrl-C. */
async function watchUntil(args: string[], lines: number) {
  const child = execa(process.execPath, [BIN, 'queue', 'watch', '--interval', '500ms', ...args], {
    env: baseEnv(fake.url),
    extendEnv: false,
    cwd: tempDir('mq-cwd-'),
    reject: false,
    timeout: 15_000,
    stdin: 'ignore',
  });
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.split('\n').length > lines) resolve();
    });
    void child.then(() => resolve());
  });
  child.kill('SIGINT');
  const r = await child;
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('mq queue watch', () => {
  it('piped: one line per change, Ctrl-C exits 130 cleanly', async () => {
    fake.on(
      'POST /getQueue',
      { status: 200, body: queueRecord({}, [entry(1, 'pending'), entry(2, 'testing', { prTitle: 'Second change' })]) },
      { status: 200, body: queueRecord({ state: 'paused' }, [entry(1, 'testing'), entry(3, 'pending')]) },
    );
    fake.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: { ...entry(2, 'merged'), isCurrentlySubmittedToQueue: false },
    });
    const r = await watchUntil([], 7);
    expect(r.exitCode).toBe(130);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    for (const row of rows) expect(row[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(rows.map((row) => row.slice(1).join('\t'))).toEqual([
      'queue\t\trunning\tmain',
      '1\t\tpending\tChange number 1',
      '2\t\ttesting\tSecond change',
      'queue\trunning\tpaused\tmain',
      '1\tpending\ttesting\tChange number 1',
      '3\t\tpending\tChange number 3',
      '2\ttesting\tmerged\tSecond change',
    ]);
    // PR 2 left the list: its final state was asked for.
    expect(fake.requests.find((q) => q.path === '/getSubmittedPullRequest')?.body).toMatchObject({ pr: { number: 2 } });
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--json: one JSON object per change and per line', async () => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord({}, [entry(4, 'testing')]) });
    const r = await watchUntil(['--json'], 2);
    expect(r.exitCode).toBe(130);
    const docs = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(docs.map(({ at: _at, ...rest }) => rest)).toEqual([
      { subject: 'queue', from: null, to: 'running', title: 'main' },
      { subject: 'pr', pr: 4, from: null, to: 'testing', title: 'Change number 4' },
    ]);
  });

  it('a too short --interval is a usage error', async () => {
    const r = await runCli(['queue', 'watch', '--interval', '10ms'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--interval: must be at least 500ms');
    expect(fake.requests).toHaveLength(0);
  });
});
