/**
 * The action's inputs read in-process (readInputs): values the service would refuse are refused
 * before anything is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { InputError, readInputs } from '../../src/action/inputs.js';
import { Workflow } from '../../src/action/workflow.js';

const BASE: Record<string, string> = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'acme/app',
  GITHUB_REF: 'refs/pull/7/merge',
  GITHUB_BASE_REF: 'main',
  INPUT_TOKEN: 'tok_inputs_test_1234',
};

function read(env: Record<string, string>) {
  const all = { ...BASE, ...env };
  return readInputs(new Workflow({ env: all, write: () => {} }), all);
}

function refusal(env: Record<string, string>): InputError {
  try {
    read(env);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('PR numbers', () => {
  it('takes the run PR', () => expect(read({}).pr).toBe(7));

  it.each([
    ['input pr', { INPUT_PR: '0' }, /^input pr: "0" is not a PR number; expected an integer from 1 to 4294967295$/],
    ['GITHUB_REF', { GITHUB_REF: 'refs/pull/0/merge' }, /^GITHUB_REF: "0" is not a PR number/],
  ])('refuses PR 0 from %s (exit 2)', (_name, env, message) => {
    const err = refusal(env);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
  });
});

describe('the sha of impacted targets', () => {
  it('takes a commit id', () =>
    expect(read({ 'INPUT_IMPACTS-ALL': 'true', INPUT_SHA: 'abc1234' }).targets).toEqual({
      sha: 'abc1234',
      impactedTargets: 'ALL',
    }));

  it.each(['x', 'abc123', 'HEAD', 'a'.repeat(65)])('refuses %j (exit 2)', (sha) => {
    const err = refusal({ 'INPUT_IMPACTS-ALL': 'true', INPUT_SHA: sha });
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`input sha: ${JSON.stringify(sha)} is not a commit SHA; expected 7 to 64 hex digits`);
  });
});

describe("a fork PR's run", () => {
  const eventFile = (head: string): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'mq-inputs-')), 'event.json');
    const side = (fullName: string) => ({ repo: { full_name: fullName } });
    writeFileSync(
      path,
      JSON.stringify({
        pull_request: {
          number: 7,
          head: { ...side(head), sha: 'f'.repeat(40) },
          base: { ...side('acme/app'), ref: 'main' },
        },
      }),
    );
    return path;
  };
  const fork = (extra: Record<string, string> = {}) => ({
    GITHUB_RUN_ID: '9876543210',
    GITHUB_EVENT_PATH: eventFile('someone/app'),
    ...extra,
  });

  it('without a token: the run id is the credential of the upload', () => {
    const inputs = read(fork({ INPUT_TOKEN: '', 'INPUT_IMPACTS-ALL': 'true' }));
    expect(inputs).toMatchObject({
      token: '',
      forkedWorkflowRunId: '9876543210',
      targets: { sha: 'f'.repeat(40), impactedTargets: 'ALL' },
    });
  });

  it('with a token: the token alone, unless the input names a run', () => {
    expect(read(fork({ 'INPUT_IMPACTS-ALL': 'true' })).forkedWorkflowRunId).toBeUndefined();
    expect(read(fork({ 'INPUT_IMPACTS-ALL': 'true', 'INPUT_FORKED-WORKFLOW-RUN-ID': '123' })).forkedWorkflowRunId).toBe(
      '123',
    );
  });

  it.each([
    [
      'a same-repository PR without a token',
      { INPUT_TOKEN: '', 'INPUT_IMPACTS-ALL': 'true', GITHUB_EVENT_PATH: eventFile('acme/app') },
      /^input token: required \(/,
    ],
    [
      'a missing event file without a token',
      { INPUT_TOKEN: '', 'INPUT_IMPACTS-ALL': 'true', GITHUB_EVENT_PATH: '/nonexistent/event.json' },
      /^input token: required \(/,
    ],
    [
      'a fork without a token and no targets to upload',
      { INPUT_TOKEN: '' },
      /^input token: required to submit; without it a fork PR's run can only upload impacted targets/,
    ],
  ])('%s: exit 7', (_name, extra, message) => {
    const err = refusal(fork(extra));
    expect(err.exitCode).toBe(7);
    expect(err.message).toMatch(message);
  });

  it('refuses a forked-workflow-run-id that is not digits (exit 2)', () => {
    const err = refusal(fork({ 'INPUT_FORKED-WORKFLOW-RUN-ID': 'run-1', 'INPUT_IMPACTS-ALL': 'true' }));
    expect([err.exitCode, err.message]).toEqual([
      2,
      'input forked-workflow-run-id: "run-1" is not a workflow run id; expected digits (e.g. github.run_id)',
    ]);
  });
});

describe('requeue', () => {
  it('takes 1..10; empty or 0 is off (no key)', () => {
    expect(read({ INPUT_REQUEUE: '2' }).requeue).toBe(2);
    expect(read({ INPUT_REQUEUE: '10' }).requeue).toBe(10);
    expect(read({ INPUT_REQUEUE: '0' })).not.toHaveProperty('requeue');
    expect(read({})).not.toHaveProperty('requeue');
  });

  it.each(['11', '-1', 'two', '1.5'])('refuses %j (exit 2)', (text) => {
    const err = refusal({ INPUT_REQUEUE: text });
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `input requeue: ${JSON.stringify(text)} is not a number of requeues; expected an integer from 0 to 10 (0 turns it off)`,
    );
  });
});
