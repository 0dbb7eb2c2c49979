// v2's error envelope `{"error":{"code","message"}}`: which exit code each documented code means.
// A code mq does not know keeps the exit code of its HTTP status (Trunk may add codes within v2).
import { ExitCode, type ExitCodeValue, exitCodeForStatus } from '../../errors.js';

export const V2_ERROR_CODES: Readonly<Record<string, ExitCodeValue>> = {
  VALIDATION_FAILED: ExitCode.rejected,
  INVALID_CURSOR: ExitCode.rejected,
  AUTHENTICATION_REQUIRED: ExitCode.auth,
  INVALID_TOKEN: ExitCode.auth,
  INSUFFICIENT_PERMISSIONS: ExitCode.auth,
  NOT_FOUND: ExitCode.notFound,
  MERGE_QUEUE_NOT_FOUND: ExitCode.notFound,
  PR_NOT_FOUND: ExitCode.notFound,
  REPOSITORY_NOT_FOUND: ExitCode.notFound,
  VERIFICATION_RUN_NOT_FOUND: ExitCode.notFound,
  PROVIDER_URL_NOT_FOUND: ExitCode.notFound,
  ESTIMATE_NOT_ENABLED: ExitCode.notFound,
  PR_ALREADY_ENQUEUED: ExitCode.rejected,
  PR_NOT_IN_ACTIVE_STATE: ExitCode.rejected,
  QUEUE_ALREADY_EXISTS: ExitCode.rejected,
  QUEUE_HAS_ACTIVE_ENTRIES: ExitCode.rejected,
  MODE_CHANGE_IN_PROGRESS: ExitCode.rejected,
  PR_NOT_ENQUEUEABLE: ExitCode.rejected,
  PR_TESTS_NOT_RESTARTABLE: ExitCode.rejected,
  MERGE_QUEUE_NOT_CREATABLE: ExitCode.rejected,
  ALLOWED_BOT_SUBMITTERS_FROZEN: ExitCode.rejected,
  IMPACTED_TARGETS_UNSUPPORTED: ExitCode.rejected,
  RATE_LIMIT_EXCEEDED: ExitCode.unavailable,
  INTERNAL_ERROR: ExitCode.unavailable,
  UPSTREAM_ERROR: ExitCode.unavailable,
};

export interface Envelope {
  code: string;
  message: string;
}

/** The envelope of an error answer, if it has one; the code is kept only when it is a plain upper-case word. */
export function errorEnvelope(body: string): Envelope | undefined {
  if (!body.startsWith('{"error"') && !/^\s*\{\s*"error"/.test(body)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (error === null || typeof error !== 'object') return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]{0,63}$/.test(code)) return undefined;
  return { code, message: typeof message === 'string' ? message : '' };
}

export function exitCodeForError(code: string, status: number): ExitCodeValue {
  return Object.hasOwn(V2_ERROR_CODES, code) ? (V2_ERROR_CODES[code] as ExitCodeValue) : exitCodeForStatus(status);
}
