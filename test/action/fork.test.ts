/**
 * The action in a fork PR's run (in-process runAction against the recording fake server): without
 * a token it uploads the impacted targets as the fork's workflow run and submits nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAction } from '../../src/action/main.js';
import { useFakeServer } from '../helpers/fake-server.js';

const SHA = 'f'.repeat(40);
const RUN_ID = '9876543210';

const fake = useFakeServer();
let dir: string;
beforeEach(() => {
  fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
  dir = mkdtempSync(join(tmpdir(), 'mq-action-fork-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(inputs: Record<string, string>) {
  const event = join(dir, 'event.json');
  const side = (fullName: string) => ({ repo: { full_name: fullName } });
  writeFileSync(
    event,
    JSON.stringify({
      pull_request: {
        number: 7,
        head: { ...side('someone/app'), sha: SHA },
        base: { ...side('acme/app'), ref: 'main' },
      },
    }),
  );
  const output = join(dir, 'output');
  const summary = join(dir, 'summary.md');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'acme/app',
    GITHUB_REF: 'refs/pull/7/merge',
    GITHUB_RUN_ID: RUN_ID,
    GITHUB_EVENT_PATH: event,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    'INPUT_API-URL': fake.url,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  let log = '';
  const { exitCode } = await runAction({ env, write: (t) => void (log += t) });
  return { exitCode, log, output: readFileSync(output, 'utf8'), summary: readFileSync(summary, 'utf8') };
}

describe("the action in a fork PR's run", () => {
  it('without a token: uploads the targets as the run (empty token, its run id), submits nothing, exit 0', async () => {
    const r = await run({ 'impacted-targets': '//svc/api' });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.map((q) => q.path)).toEqual(['/setImpactedTargets']);
    expect(fake.requests[0]?.headers['x-api-token']).toBe('');
    expect(fake.requests[0]?.headers['x-forked-workflow-run-id']).toBe(RUN_ID);
    expect(fake.requests[0]?.body).toMatchObject({ pr: { number: 7, sha: SHA }, impactedTargets: ['//svc/api'] });
    expect(r.log).toContain(
      `set impacted targets of PR #7 at ${SHA.slice(0, 12)}: 1 target (as fork workflow run ${RUN_ID})`,
    );
    expect(r.log).not.toContain('::add-mask::');
    expect(r.summary).toContain(
      `### ⬆️ impacted targets of PR #7 uploaded as fork run ${RUN_ID}; not submitted (no token)`,
    );
    expect(r.output).toMatch(/^exit-code<<.*\n0\n/m);
  });

  it('the service refusing the run id fails the step (exit 4)', async () => {
    fake.on('POST /setImpactedTargets', { status: 401, body: 'not a running fork workflow' });
    const r = await run({ 'impacts-all': 'true' });
    expect(r.exitCode).toBe(4);
    expect(r.log).toMatch(/^::error title=mq%3A set impacted targets of PR #7::.*HTTP 401/m);
  });

  it('with a token and forked-workflow-run-id: the upload as the run, the submit with the token', async () => {
    fake.on('POST /submitPullRequest', { status: 200, body: 'OK' });
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 7 } });
    fake.on('POST /getQueue', { status: 200, body: { state: 'running', enqueuedPullRequests: [{ prNumber: 7 }] } });
    const r = await run({
      token: 'tok_fork_test_12345',
      'forked-workflow-run-id': '123',
      'impacts-all': 'true',
      wait: 'false',
    });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.map((q) => [q.path, q.headers['x-api-token'], q.headers['x-forked-workflow-run-id']])).toEqual(
      [
        ['/setImpactedTargets', '', '123'],
        ['/submitPullRequest', 'tok_fork_test_12345', undefined],
        ['/getSubmittedPullRequest', 'tok_fork_test_12345', undefined],
        // Where the PR stands (the output `position`).
        ['/getQueue', 'tok_fork_test_12345', undefined],
      ],
    );
  });
});
