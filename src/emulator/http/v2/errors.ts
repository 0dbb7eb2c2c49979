/** v2's one error envelope, `{"error":{"code","message"}}`, and how engine refusals map onto its codes. */
import type { EngineError } from '../../engine/index.js';

export type V2Code =
  | 'VALIDATION_FAILED'
  | 'INVALID_CURSOR'
  | 'AUTHENTICATION_REQUIRED'
  | 'INVALID_TOKEN'
  | 'INSUFFICIENT_PERMISSIONS'
  | 'NOT_FOUND'
  | 'MERGE_QUEUE_NOT_FOUND'
  | 'PR_NOT_FOUND'
  | 'REPOSITORY_NOT_FOUND'
  | 'PROVIDER_URL_NOT_FOUND'
  | 'VERIFICATION_RUN_NOT_FOUND'
  | 'ESTIMATE_NOT_ENABLED'
  | 'PR_ALREADY_ENQUEUED'
  | 'PR_NOT_IN_ACTIVE_STATE'
  | 'QUEUE_ALREADY_EXISTS'
  | 'QUEUE_HAS_ACTIVE_ENTRIES'
  | 'MODE_CHANGE_IN_PROGRESS'
  | 'PR_TESTS_NOT_RESTARTABLE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INTERNAL_ERROR'
  // The emulator's own: Trunk's code list has none for these statuses (its edge answers them).
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'SERVICE_UNAVAILABLE';

const STATUS: Record<V2Code, number> = {
  VALIDATION_FAILED: 400,
  INVALID_CURSOR: 400,
  AUTHENTICATION_REQUIRED: 401,
  INVALID_TOKEN: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  NOT_FOUND: 404,
  MERGE_QUEUE_NOT_FOUND: 404,
  PR_NOT_FOUND: 404,
  REPOSITORY_NOT_FOUND: 404,
  PROVIDER_URL_NOT_FOUND: 404,
  VERIFICATION_RUN_NOT_FOUND: 404,
  ESTIMATE_NOT_ENABLED: 404,
  PR_ALREADY_ENQUEUED: 409,
  PR_NOT_IN_ACTIVE_STATE: 409,
  QUEUE_ALREADY_EXISTS: 409,
  QUEUE_HAS_ACTIVE_ENTRIES: 409,
  MODE_CHANGE_IN_PROGRESS: 409,
  PR_TESTS_NOT_RESTARTABLE: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  SERVICE_UNAVAILABLE: 503,
};

export class V2Error extends Error {
  readonly code: V2Code;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: V2Code, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'V2Error';
    this.code = code;
    this.status = STATUS[code];
    this.headers = headers;
  }
}

export const envelope = (code: string, message: string) => ({ error: { code, message } });

/** An engine refusal as v2 words it; `notFound` names what a 404 is about on this route. */
export function fromEngine(err: EngineError, notFound: V2Code = 'NOT_FOUND'): V2Error {
  if (err.kind === 'not_found') return new V2Error(notFound, err.message);
  if (err.kind === 'conflict') return new V2Error('QUEUE_ALREADY_EXISTS', err.message);
  return new V2Error('VALIDATION_FAILED', err.message);
}
