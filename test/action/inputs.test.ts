/**
 * The action's inputs read in-process (readInputs): values the service would refuse are refused
 * before anything is sent.
 */
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
    expect(read({ 'INPUT_IMPACTS-ALL': 'true', INPUT_SHA: 'abc1234' }).targets).toEqual({ sha: 'abc1234', impactedTargets: 'ALL' }));

  it.each(['x', 'abc123', 'HEAD', 'a'.repeat(65)])('refuses %j (exit 2)', (sha) => {
    const err = refusal({ 'INPUT_IMPACTS-ALL': 'true', INPUT_SHA: sha });
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`input sha: ${JSON.stringify(sha)} is not a commit SHA; expected 7 to 64 hex digits`);
  });
});
