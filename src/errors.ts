// The error family and the exit-code table (`mq: <what>: <why>` + hints). The numbers are a public
// contract for scripts: never renumber them.
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  rejected: 5,
  unavailable: 6,
  config: 7,
  timeout: 8,
  leftQueue: 9,
  confirm: 10,
  threshold: 11,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES = [
  { code: 0, name: 'ok', meaning: 'success' },
  { code: 1, name: 'unexpected', meaning: 'unexpected error, or the service sent something mq cannot read' },
  { code: 2, name: 'usage', meaning: 'bad command line or input; nothing was sent' },
  { code: 3, name: 'not-found', meaning: 'the PR or queue does not exist (HTTP 404)' },
  { code: 4, name: 'auth', meaning: 'the token was refused (HTTP 401/403)' },
  { code: 5, name: 'rejected', meaning: 'the service rejected the request (HTTP 400/409/413/other 4xx)' },
  { code: 6, name: 'unavailable', meaning: 'service or network unavailable after retries, or the outcome is unknown' },
  { code: 7, name: 'config', meaning: 'configuration problem: no token, unknown profile, unreadable config file' },
  { code: 8, name: 'timeout', meaning: 'still pending when --timeout ran out' },
  { code: 9, name: 'left-queue', meaning: 'the PR left the queue without merging (failed or cancelled)' },
  {
    code: 10,
    name: 'confirm',
    meaning: 'confirmation not given: no terminal to ask on (pass --yes), another answer, or end of input',
  },
  { code: 11, name: 'threshold', meaning: 'a --fail-if threshold was crossed (mq queue stats)' },
  { code: 130, name: 'interrupted', meaning: 'interrupted (Ctrl-C)' },
] as const satisfies ReadonlyArray<{ code: ExitCodeValue; name: string; meaning: string }>;

/** An error's kind: the name of its exit code (`--json`'s `error.kind`, the library's `kind`). */
export type ErrorKind = Exclude<(typeof EXIT_CODES)[number]['name'], 'ok'>;

/** The kind of a failure exiting with `code` (a code outside the table is unexpected). */
export function errorKind(code: number): ErrorKind {
  const name = EXIT_CODES.find((e) => e.code === code)?.name;
  return name === undefined || name === 'ok' ? 'unexpected' : name;
}

export interface MqErrorOptions {
  hints?: string[];
  /** Arguments of an example command line; the presenter prefixes the command being run (`mq cancel 42`). */
  example?: string;
  cause?: unknown;
}

// Lazily loaded bundles each carry a copy of this module, so `instanceof` checks a global-symbol brand.
const KINDS = Symbol.for('mq.errorKinds');

function hasBrand(value: unknown, brand: string): boolean {
  const kinds = typeof value === 'object' && value !== null ? (value as { [KINDS]?: unknown })[KINDS] : undefined;
  return Array.isArray(kinds) && kinds.includes(brand);
}

export class MqError extends Error {
  /** The brand of this class (class names do not survive minification). */
  static readonly brand: string = 'MqError';
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass checked (UsageError, ...), not MqError
    return hasBrand(value, this.brand);
  }
  readonly [KINDS]: string[] = ['MqError'];
  readonly exitCode: ExitCodeValue;
  readonly what: string;
  readonly why: string;
  readonly hints: string[];
  readonly example?: string;
  constructor(exitCode: ExitCodeValue, what: string, why: string, options: MqErrorOptions = {}) {
    super(`${what}: ${why}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MqError';
    this.exitCode = exitCode;
    this.what = what;
    this.why = why;
    this.hints = options.hints ?? [];
    if (options.example !== undefined) this.example = options.example;
  }
  /** The name of its exit code: `not-found`, `config`, ... */
  get kind(): ErrorKind {
    return errorKind(this.exitCode);
  }
}

/** Exit 2: the command line or an input file is wrong. Raised before anything is sent. */
export class UsageError extends MqError {
  static override readonly brand: string = 'UsageError';
  constructor(why: string, options: MqErrorOptions = {}) {
    super(ExitCode.usage, 'usage', why, options);
    this.name = 'UsageError';
    this[KINDS].push('UsageError');
  }
}

/** Exit 7: missing token, unknown profile, unreadable config. */
export class ConfigError extends MqError {
  static override readonly brand: string = 'ConfigError';
  constructor(why: string, options: MqErrorOptions = {}) {
    super(ExitCode.config, 'configuration', why, options);
    this.name = 'ConfigError';
    this[KINDS].push('ConfigError');
  }
}

/** An HTTP answer the service gave (status kept so callers can tell 404 from 409). */
export class ApiError extends MqError {
  static override readonly brand: string = 'ApiError';
  readonly status: number;
  readonly body: string;
  /** v2's error code (`PR_ALREADY_ENQUEUED`), as sent. */
  readonly code?: string;
  /** The service's id for the failed request, for its support. */
  readonly requestId?: string;
  constructor(
    exitCode: ExitCodeValue,
    what: string,
    why: string,
    status: number,
    body: string,
    options: MqErrorOptions & { code?: string; requestId?: string } = {},
  ) {
    super(exitCode, what, why, options);
    this.name = 'ApiError';
    this[KINDS].push('ApiError');
    this.status = status;
    this.body = body;
    if (options.code !== undefined) this.code = options.code;
    if (options.requestId !== undefined) this.requestId = options.requestId;
  }
}

export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 429 || status >= 500) return ExitCode.unavailable;
  if (status >= 400) return ExitCode.rejected;
  return ExitCode.unexpected;
}

/** The most severe of several outcomes (for bulk commands): any failure beats success; higher codes beat lower. */
export function mostSevere(codes: Iterable<number>): number {
  let worst = 0;
  for (const c of codes) {
    if (c === ExitCode.interrupted) return c;
    if (c > worst) worst = c;
  }
  return worst;
}

/** The same error with one more hint (an ApiError keeps its status and body). */
export function withHint(err: MqError, hint: string): MqError {
  const options: MqErrorOptions = { hints: [...err.hints, hint], example: err.example, cause: err.cause };
  return err instanceof ApiError
    ? new ApiError(err.exitCode, err.what, err.why, err.status, err.body, {
        ...options,
        code: err.code,
        requestId: err.requestId,
      })
    : new MqError(err.exitCode, err.what, err.why, options);
}
