/**
 * A 404 that a hint can explain (issue 25): restart of a PR that already left the queue. Only that
 * 404 gets a hint; any other stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv } from '../../helpers/run-cli.js';
import { runMq } from '../../helpers/in-process.js';

const fake = useFakeServer();
const env = () => baseEnv(fake.url);

describe('restart of a PR that left the queue', () => {
  const notInQueue = { status: 404, body: 'pull request #42 is not in the merge queue' };
  const record = (state: string) => ({
    status: 200,
    body: { prNumber: 42, state, stateChangedAt: '2026-11-22T10:00:00.000Z' },
  });
  const BARE = `mq: restart PR #42: the service answered HTTP 404: ${notInQueue.body}\n`;

  it('failed: the 404, then resubmit with `mq submit 42`; exit 3', async () => {
    fake.on('POST /restartTestsOnPullRequest', notInQueue);
    fake.on('POST /getSubmittedPullRequest', record('failed'));
    const r = await runMq(['restart', '42'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(
      `${BARE}hint: PR #42 failed and left the queue, so no tests run to restart: resubmit it with \`mq submit 42\`\n`,
    );
    const branch = await runMq(['restart', '42', '--branch', 'main'], { env: env() });
    expect(branch.stderr).toContain('resubmit it with `mq submit 42 --branch main`\n');
  });

  it('cancelled: the same hint', async () => {
    fake.on('POST /restartTestsOnPullRequest', notInQueue);
    fake.on('POST /getSubmittedPullRequest', record('cancelled'));
    const r = await runMq(['restart', '42'], { env: env() });
    expect(r.stderr).toContain(
      'hint: PR #42 was cancelled and left the queue, so no tests run to restart: resubmit it with `mq submit 42`',
    );
  });

  it('merged, or never submitted: the 404 alone', async () => {
    fake.on('POST /restartTestsOnPullRequest', notInQueue);
    fake.on('POST /getSubmittedPullRequest', record('merged'));
    expect(await runMq(['restart', '42'], { env: env() })).toMatchObject({ exitCode: 3, stderr: BARE });
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'never submitted' });
    expect(await runMq(['restart', '42'], { env: env() })).toMatchObject({ exitCode: 3, stderr: BARE });
  });
});
