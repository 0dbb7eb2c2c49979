/**
 * Fork PRs (issue 25): `mq targets` authenticates the upload with `x-forked-workflow-run-id` and an
 * empty `x-api-token`, as Trunk documents, given the flag or in a fork PR's run without a token;
 * every other call still needs the token. Headers as the recording fake server received them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MergeQueueClient } from '../../../src/lib/client.js';
import { useFakeServer } from '../../helpers/fake-server.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv, tempDir, TOKEN } from '../../helpers/run-cli.js';

const SHA = '6b91931aedddd30582f9a457ddf459c5d3a97d1d';
const RUN_ID = '9876543210';

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
  fake.on('POST /getSubmittedPullRequest', {
    status: 200,
    body: { state: 'pending', prNumber: 42, prSha: 'f'.repeat(40) },
  });
});

/** The fake's environment without MQ_TOKEN (a fork's run gets no secrets). */
const noToken = () => ({ ...baseEnv(fake.url), MQ_TOKEN: undefined });

/** A pull_request run of PR 42 whose head is in `head` and base in acme/widgets. */
function actionsEnv(head: string, eventPath?: string): Record<string, string | undefined> {
  const path = eventPath ?? join(tempDir('mq-event-'), 'event.json');
  if (!eventPath) {
    const side = (fullName: string) => ({ repo: { full_name: fullName } });
    writeFileSync(
      path,
      JSON.stringify({
        number: 42,
        pull_request: { number: 42, head: { ...side(head), sha: SHA }, base: side('acme/widgets') },
      }),
    );
  }
  return {
    ...noToken(),
    GITHUB_ACTIONS: 'true',
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_RUN_ID: RUN_ID,
    GITHUB_EVENT_PATH: path,
  };
}

function expectForkUpload(): void {
  expect(fake.requests.map((q) => q.path)).toEqual(['/setImpactedTargets']);
  const sent = fake.requests[0];
  expect(sent?.headers['x-api-token']).toBe('');
  expect(sent?.headers['x-forked-workflow-run-id']).toBe(RUN_ID);
  expect(sent?.body).toMatchObject({ pr: { number: 42, sha: SHA }, impactedTargets: ['//a'] });
}

describe('--forked-workflow-run-id', () => {
  it('sends the run id and an empty token, and no read (the run id cannot read)', async () => {
    const r = await runMq(['targets', '42', '--sha', SHA, '-t', '//a', '--forked-workflow-run-id', RUN_ID], {
      env: baseEnv(fake.url),
    });
    expect(r.exitCode).toBe(0);
    expectForkUpload();
    expect(r.stderr).toBe(
      `✓ set impacted targets of PR #42 at ${SHA.slice(0, 12)}: 1 target (as fork workflow run ${RUN_ID})\n`,
    );
    expect(r.stderr + r.stdout).not.toContain(TOKEN);
  });

  it('needs no token', async () => {
    const r = await runMq(['targets', '42', '--sha', SHA, '-t', '//a', '--forked-workflow-run-id', RUN_ID], {
      env: noToken(),
    });
    expect(r.exitCode).toBe(0);
    expectForkUpload();
  });

  it('--dry-run shows both headers', async () => {
    const r = await runMq(
      ['targets', '42', '--sha', SHA, '-t', '//a', '--forked-workflow-run-id', RUN_ID, '--dry-run', '--json'],
      { env: noToken() },
    );
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).request.headers).toMatchObject({
      'x-api-token': '',
      'x-forked-workflow-run-id': RUN_ID,
    });
    expect(fake.requests).toEqual([]);
  });
});

describe("in a fork PR's workflow run", () => {
  it('without a token: the run id (GITHUB_RUN_ID) authenticates the upload', async () => {
    const r = await runMq(['targets', '--sha', SHA, '-t', '//a'], { env: actionsEnv('someone/widgets') });
    expect(r.exitCode).toBe(0);
    expectForkUpload();
    expect(r.stderr).toContain(`(as fork workflow run ${RUN_ID})`);
  });

  it('with a token: the token, as before', async () => {
    const r = await runMq(['targets', '--sha', SHA, '-t', '//a'], {
      env: { ...actionsEnv('someone/widgets'), MQ_TOKEN: TOKEN },
    });
    expect(r.exitCode).toBe(0);
    const sent = fake.requests.find((q) => q.path === '/setImpactedTargets');
    expect(sent?.headers['x-api-token']).toBe(TOKEN);
    expect(sent?.headers['x-forked-workflow-run-id']).toBeUndefined();
  });

  it.each([
    ['a same-repository PR', () => actionsEnv('acme/widgets')],
    ['a missing event file', () => actionsEnv('someone/widgets', join(tempDir('mq-event-'), 'absent.json'))],
    ['an event file that is not JSON', () => actionsEnv('someone/widgets', tempFile('{"pull_'))],
  ])('%s without a token: no token is no token (exit 7), nothing sent', async (_name, env) => {
    const r = await runMq(['targets', '42', '--sha', SHA, '-t', '//a'], { env: env() });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^mq: .*no API token/);
    expect(fake.requests).toEqual([]);
  });
});

function tempFile(content: string): string {
  const path = join(tempDir('mq-event-'), 'event.json');
  writeFileSync(path, content);
  return path;
}

describe('the library', () => {
  const client = () =>
    new MergeQueueClient({ apiUrl: fake.url, token: '', forkedWorkflowRunId: RUN_ID, maxRetries: 0 });
  const target = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

  it('uploads with the run id alone', async () => {
    await client().setImpactedTargets({ ...target, pr: { number: 42, sha: SHA }, impactedTargets: ['//a'] });
    expectForkUpload();
  });

  it('refuses any other call without a token (exit 7), sending nothing', async () => {
    await expect(client().submitPullRequest({ ...target, pr: { number: 42 } })).rejects.toMatchObject({ exitCode: 7 });
    expect(fake.requests).toEqual([]);
  });

  it('with a token too, the upload still goes as the fork run and other calls take the token', async () => {
    const both = new MergeQueueClient({ apiUrl: fake.url, token: TOKEN, forkedWorkflowRunId: RUN_ID });
    await both.setImpactedTargets({ ...target, pr: { number: 42, sha: SHA }, impactedTargets: ['//a'] });
    await both.getSubmittedPullRequest({ ...target, pr: { number: 42 } });
    expect(fake.requests.map((q) => [q.path, q.headers['x-api-token'], q.headers['x-forked-workflow-run-id']])).toEqual(
      [
        ['/setImpactedTargets', '', RUN_ID],
        ['/getSubmittedPullRequest', TOKEN, undefined],
      ],
    );
  });

  it.each(['', 'abc', '0'])('refuses forkedWorkflowRunId %j', (id) => {
    expect(() => new MergeQueueClient({ apiUrl: fake.url, token: '', forkedWorkflowRunId: id })).toThrow(
      /forkedWorkflowRunId: expected a workflow run id/,
    );
  });
});
