/**
 * A 404 that a hint can explain (issue 25): submit to a branch with no queue. Only that 404 gets a
 * hint; any other stays as it was (restart: test/commands/restart/).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv } from '../../helpers/run-cli.js';
import { runMq } from '../../helpers/in-process.js';
import { queueRecord } from '../../helpers/test-context.js';

const fake = useFakeServer();
const env = () => baseEnv(fake.url);
const noQueue = { status: 404, body: 'no merge queue exists for branch "main" of github.com/acme/widgets' };
const CREATE = 'hint: there is no merge queue for main: create one with `mq queue create`';

describe('submit to a branch with no queue', () => {
  beforeEach(() => {
    fake.on('POST /submitPullRequest', noQueue);
    fake.on('POST /getQueue', noQueue);
  });

  it('one PR: the 404, then how to create the queue; exit 3', async () => {
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(`mq: submit PR #42: the service answered HTTP 404: ${noQueue.body}\n${CREATE}\n`);
    const json = await runMq(['submit', '42', '--json'], { env: env() });
    expect(JSON.parse(json.stdout).error.hints).toEqual([CREATE.slice('hint: '.length)]);
  });

  it('--branch given: the hint names it', async () => {
    const r = await runMq(['submit', '42', '--branch', 'release'], { env: env() });
    expect(r.stderr).toContain(
      'hint: there is no merge queue for release: create one with `mq queue create --branch release`\n',
    );
  });

  it('several PRs: one line each, the count, then the hint once', async () => {
    const r = await runMq(['submit', '1', '2'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `✗ #1 submit failed: the service answered HTTP 404: ${noQueue.body}`,
      `✗ #2 submit failed: the service answered HTTP 404: ${noQueue.body}`,
      '0 of 2 succeeded, 2 failed',
      CREATE,
    ]);
  });

  it('a 404 while the queue exists is not about the queue: no hint', async () => {
    fake.on('POST /submitPullRequest', { status: 404, body: 'pull request #42 not found' });
    fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'running' }) });
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe('mq: submit PR #42: the service answered HTTP 404: pull request #42 not found\n');
  });
});
