/**
 * The one error class the library throws. It carries what `mq` would print and exit with: the
 * exit code and its name (`kind`), the HTTP status when the service answered, and hints. Internal
 * errors are converted at the library's edge, so callers never meet the CLI's error family.
 */
import { errorKind, MqError } from '../errors.js';

/** The names of mq's exit codes (see `mq help exit-codes`); the compiler checks errorKind gives no other. */
export type ErrorKind =
  | 'unexpected'
  | 'usage'
  | 'not-found'
  | 'auth'
  | 'rejected'
  | 'unavailable'
  | 'config'
  | 'timeout'
  | 'left-queue'
  | 'confirm'
  | 'threshold'
  | 'interrupted';

export class MergeQueueError extends Error {
  /** mq's exit code for this failure (2 usage, 3 not found, 4 auth, 5 rejected, 6 unavailable, ...). */
  readonly exitCode: number;
  /** The exit code's name: 'not-found', 'auth', 'unavailable', ... */
  readonly kind: ErrorKind;
  /** The HTTP status when the service answered (404, 409, 503, ...); undefined otherwise. */
  readonly status: number | undefined;
  /** The body of that answer (capped), when there was one. */
  readonly body: string | undefined;
  /** What was being done: `submit PR #42`. */
  readonly what: string;
  /** Why it failed. */
  readonly why: string;
  readonly hints: readonly string[];

  constructor(init: {
    exitCode: number;
    what: string;
    why: string;
    status?: number;
    body?: string;
    hints?: readonly string[];
    cause?: unknown;
  }) {
    super(`${init.what}: ${init.why}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'MergeQueueError';
    this.exitCode = init.exitCode;
    this.kind = errorKind(init.exitCode);
    this.status = init.status;
    this.body = init.body;
    this.what = init.what;
    this.why = init.why;
    this.hints = init.hints ?? [];
  }
}

/** Converts whatever an internal call threw into a MergeQueueError (other errors pass through). */
export function toPublicError(err: unknown): unknown {
  if (err instanceof MergeQueueError || !(err instanceof MqError)) return err;
  const api = err as MqError & { status?: unknown; body?: unknown };
  return new MergeQueueError({
    exitCode: err.exitCode,
    what: err.what,
    why: err.why,
    ...(typeof api.status === 'number' ? { status: api.status } : {}),
    ...(typeof api.body === 'string' ? { body: api.body.slice(0, 2048) } : {}),
    hints: err.hints,
    cause: err,
  });
}

/** @internal A refused argument of the library (exit code 2, kind `usage`). */
export function usage(why: string): MergeQueueError {
  return new MergeQueueError({ exitCode: 2, what: 'usage', why });
}
