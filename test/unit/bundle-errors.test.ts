/**
 * The lazy bundles (scripts/build.mjs) are self-contained: each holds its own copy of the error
 * classes it throws. Errors are recognised by brand, so one made by another copy of its module is
 * still an instance for the core's presenter.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ExitCode, MqError, UsageError } from '../../src/errors.js';
import { presentError } from '../../src/output/present-error.js';
import { memoryIO } from '../helpers/memory-io.js';

/** A second instance of a module, as another bundle holds it (the query makes vitest load it again). */
async function copyOf<T>(path: string): Promise<T> {
  const copy = `${path}?copy`;
  return (await import(/* @vite-ignore */ copy)) as T;
}

describe('errors made in another bundle', () => {
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
