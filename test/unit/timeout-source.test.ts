import { describe, expect, it } from 'vitest';
import { timeoutSourceOf } from '../../src/context.js';

describe('the setting a per-request timeout hint names', () => {
  it.each([
    [{ timeout: '5s' }, {}, false, '--timeout'],
    [{}, { MQ_TIMEOUT: '5s' }, false, 'MQ_TIMEOUT'],
    [{}, {}, false, '--timeout or MQ_TIMEOUT (default 30s)'],
    // While waiting, --timeout bounds the whole wait: only MQ_TIMEOUT sets each request's limit.
    [{ timeout: '2h' }, {}, true, 'MQ_TIMEOUT (each request of a wait; default 30s)'],
    [{ timeout: '2h' }, { MQ_TIMEOUT: '10s' }, true, 'MQ_TIMEOUT'],
  ])('%j with %j (waiting: %s) -> %s', (options, env, waiting, expected) => {
    expect(timeoutSourceOf(options, env, waiting)).toBe(expected);
  });
});
