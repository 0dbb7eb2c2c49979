/**
 * The lazy bundles (scripts/build.mjs) are self-contained: each holds its own copy of the error
 * classes it throws. Errors are recognised by brand, so one made by another copy of its module is
 * still an instance for the core (the presenter, the HTTP layer's transport checks).
 */
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/api/transport.js';
import { ApiError, ExitCode, MqError, UsageError } from '../../src/errors.js';
import { presentError } from '../../src/output/present.js';
import { memoryIO } from '../helpers/memory-io.js';

/** A second instance of a module, as another bundle holds it (the query makes vitest load it again). */
async function copyOf<T>(path: string): Promise<T> {
  const copy = `${path}?copy`;
  return (await import(/* @vite-ignore */ copy)) as T;
}

describe('errors made in another bundle', () => {
  it('a TransportError of another copy of the transport module is a TransportError', async () => {
    const other = await copyOf<typeof import('../../src/api/transport.js')>('../../src/api/transport.ts');
    expect(other.TransportError).not.toBe(TransportError);
    const err = new other.TransportError('PROXY_AUTH', 'the proxy refused', { proxy: '127.0.0.1:3128' });
    expect(err instanceof TransportError).toBe(true);
    expect(new Error('ECONNRESET') instanceof TransportError).toBe(false);
    expect(Object.assign(new Error('x'), { code: 'ECONNRESET' }) instanceof TransportError).toBe(false);
  });

  it("an ApiError of another copy of src/errors.ts gets the core presenter's exit code and JSON kind", async () => {
    const other = await copyOf<typeof import('../../src/errors.js')>('../../src/errors.ts');
    expect(other.ApiError).not.toBe(ApiError);
    const err = new other.ApiError(ExitCode.notFound, 'get PR #1', 'HTTP 404', 404, 'not found');
    expect([err instanceof MqError, err instanceof ApiError, err instanceof UsageError]).toEqual([true, true, false]);
    const io = memoryIO();
    const code = presentError({ io, json: true, debug: false, commandPath: 'mq status' }, err);
    expect(code).toBe(ExitCode.notFound);
    expect((JSON.parse(io.stdout) as { error: { kind: string } }).error.kind).toBe('not-found');
  });
});
