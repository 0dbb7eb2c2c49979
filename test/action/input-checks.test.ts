/**
 * The action's inputs, in-process: the API URL, the token and the timeouts go through the CLI's own
 * checks (src/api/connection-checks.ts), so the action refuses what `mq` refuses, with the same
 * words and exit codes, before anything is sent.
 */
import { describe, expect, it } from 'vitest';

import { InputError, readInputs } from '../../src/action/inputs.js';
import { Workflow } from '../../src/action/workflow.js';
import { checkApiUrl } from '../../src/api/connection-checks.js';

const BASE = {
  GITHUB_REPOSITORY: 'acme/app',
  GITHUB_REF: 'refs/pull/7/merge',
  INPUT_BRANCH: 'main',
  INPUT_TOKEN: 'tok_1',
};

function refusal(env: Record<string, string>): InputError {
  const all = { ...BASE, ...env };
  try {
    readInputs(new Workflow({ env: all, write: () => {} }), all);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe("the action's inputs take the CLI's checks", () => {
  it('an API URL with a query string or a fragment: exit 2, the CLI wording', () => {
    for (const url of ['https://api.example/v1?tenant=x', 'https://api.example/v1#x']) {
      const err = refusal({ 'INPUT_API-URL': url });
      expect(err.exitCode, url).toBe(2);
      let cli = '';
      try {
        checkApiUrl(url, 'input api-url', false);
      } catch (e) {
        cli = (e as Error & { why: string }).why;
      }
      expect(err.message.split('\n')[0]).toBe(cli);
    }
    expect(refusal({ 'INPUT_API-URL': 'http://mq.internal/v1' }).message).toMatch(
      /plain http:\/\/ to mq\.internal \(from input api-url\)\nhint: use https:\/\//,
    );
  });

  it('a token with a line break or NUL inside: exit 7 (configuration), not a connection failure', () => {
    for (const token of ['tok\nx-evil: 1', 'tok\r\nx', 'to\u0000k']) {
      const err = refusal({ INPUT_TOKEN: token });
      expect(err.exitCode, JSON.stringify(token)).toBe(7);
      expect(err.message).toMatch(/^the API token from input token contains a control character \(U\+00(0A|0D|00)\)/);
    }
  });

  it('a timeout beyond what a timer holds, or zero: exit 2', () => {
    expect(refusal({ INPUT_TIMEOUT: '30d' })).toMatchObject({
      exitCode: 2,
      message: 'input timeout: must be at most 24 days',
    });
    expect(refusal({ INPUT_TIMEOUT: '0s' })).toMatchObject({
      exitCode: 2,
      message: 'input timeout: must be greater than zero',
    });
  });

  it('accepts a plain https URL and loopback http', () => {
    const read = (env: Record<string, string>) => readInputs(new Workflow({ env, write: () => {} }), env);
    expect(read({ ...BASE, 'INPUT_API-URL': 'http://127.0.0.1:9/v1' }).apiUrl).toBe('http://127.0.0.1:9/v1');
    expect(read(BASE).apiUrl).toBe('https://api.trunk.io/v1');
  });
});
