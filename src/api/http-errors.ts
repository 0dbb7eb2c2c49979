// How the HTTP layer words a failure (status, network, proxy, non-API answer): one MqError with the
// table's exit code and a hint naming the setting to change.
import { ApiError, ExitCode, MqError, exitCodeForStatus } from '../errors.js';
import type { CallSpec, HttpResponse } from './http-types.js';
import { errorEnvelope, exitCodeForError } from './v2/error-codes.js';
import { TransportError } from './transport.js';

const ERROR_BODY_CAP = 2048;

export type Attempt =
  | { kind: 'response'; response: HttpResponse; retryAfterMs?: number }
  | { kind: 'error'; error: unknown; code: string; timedOutMs?: number };

export function truncate(text: string, cap = ERROR_BODY_CAP): string {
  return text.length > cap ? `${text.slice(0, cap)}… (${text.length - cap} more characters)` : text;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}

export function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** A write's 2xx must be empty, `OK` or JSON; anything else (a sign-in page) means the wrong server. */
export function checkWriteAnswer(res: HttpResponse, what: string): void {
  const text = res.body.trim();
  const html = /text\/html/i.test(res.contentType) || /^<(!doctype|html)/i.test(text);
  if (!html) {
    if (text === '' || /^ok$/i.test(text)) return;
    try {
      JSON.parse(text);
      return;
    } catch {
      // not JSON: below
    }
  }
  const start = text.slice(0, 60).replace(/\s+/g, ' ');
  const why = html ? 'an HTML page, not an API answer' : `not JSON (starts with ${JSON.stringify(start)})`;
  throw new MqError(ExitCode.unexpected, what, `the service sent something unexpected: ${why}`, {
    hints: [
      'check that the API URL (--api-url, MQ_API_URL or the profile) points at the merge queue service; ' +
        'rerun with --debug to see the answer',
    ],
  });
}

function describeBody(res: HttpResponse): string {
  const body = res.body.trim();
  if (body === '') return '';
  if (/^\s*<(!doctype|html)/i.test(body) || res.contentType.includes('text/html'))
    return '(an HTML page, not an API answer)';
  return truncate(body.replace(/\s+/g, ' '));
}

/** A base URL whose path does not end in `/v1` (the service's endpoints all live under it). */
export function missingV1(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    return !/\/v1$/.test(new URL(baseUrl).pathname.replace(/\/+$/, ''));
  } catch {
    return false;
  }
}

/** The service has no such endpoint (405, or 404 for the path), not a not-found about a PR, queue or run. */
export function endpointMissing(err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 405) return true;
  return err.status === 404 && !/\b(pull requests?|PRs?|(merge )?queues?|test runs?)\b/i.test(err.body);
}

export function statusError(spec: CallSpec, res: HttpResponse, retried: boolean, baseUrl?: string): MqError {
  if (res.status >= 300 && res.status < 400) {
    const where = res.body ? ` to ${truncate(res.body, 200)}` : '';
    return new ApiError(
      ExitCode.unexpected,
      spec.what,
      `the service answered HTTP ${res.status}, a redirect${where}; mq never follows redirects`,
      res.status,
      res.body,
      {
        hints: ['check the API URL (--api-url, MQ_API_URL or the profile); it must point at the service itself'],
      },
    );
  }
  const envelope = errorEnvelope(res.body);
  const text = envelope ? truncate(`${envelope.code}: ${envelope.message}`.replace(/\s+/g, ' ')) : describeBody(res);
  const asked = res.requestId ? ` (request id ${res.requestId})` : '';
  const why = `the service answered HTTP ${res.status}${text ? `: ${text}` : ''}${asked}`;
  const hints: string[] = [];
  if (res.status === 404 && baseUrl && missingV1(baseUrl)) {
    const suggested = `${baseUrl.replace(/\/+$/, '')}/v1`;
    hints.push(
      `the API URL ${baseUrl} does not end in /v1, where the service's endpoints are: try ` +
        `--api-url ${suggested} (or MQ_API_URL, or the profile's api-url)`,
    );
  }
  if (envelope?.code === 'INSUFFICIENT_PERMISSIONS' && spec.permission) {
    hints.push(
      `this needs an API key with the "${spec.permission}" permission (Settings → Developer → API Keys); ` +
        'see the key with `mq auth status`',
    );
  } else if (res.status === 401 || res.status === 403)
    hints.push('check the token with `mq auth status`; log in again with `mq auth login` or set MQ_TOKEN');
  if (res.status === 413) hints.push('the request body is over the service limit (20 MiB)');
  if (res.status >= 500 && !spec.idempotent) {
    hints.push(
      'the service failed while handling this change, so it may or may not have taken effect: check (e.g. ' +
        '`mq status <pr>`) before trying again',
    );
  } else if (res.status === 429 || res.status >= 500) {
    hints.push(
      retried
        ? 'the service kept failing after retries; try again later'
        : 'the service is unavailable; try again later',
    );
  }
  const exitCode = envelope ? exitCodeForError(envelope.code, res.status) : exitCodeForStatus(res.status);
  return new ApiError(exitCode, spec.what, why, res.status, res.body, {
    hints,
    ...(envelope ? { code: envelope.code } : {}),
    ...(res.requestId ? { requestId: res.requestId } : {}),
  });
}

export function networkError(
  spec: CallSpec,
  outcome: Extract<Attempt, { kind: 'error' }>,
  ctx: { baseUrl: string; timeoutSource?: string; redact: (text: string) => string },
  preSend: boolean,
  attempt: number,
  cutByDeadline = false,
): MqError {
  const { error, code } = outcome;
  const host = new URL(ctx.baseUrl).host;
  const proxy = error instanceof TransportError ? error.proxy : undefined;
  if (code === 'PROXY_AUTH') {
    return new MqError(
      ExitCode.auth,
      spec.what,
      `the proxy${proxy ? ` ${proxy}` : ''} refused the credentials (HTTP 407); nothing reached the service`,
      {
        hints: [
          'check the user and password in HTTPS_PROXY / HTTP_PROXY (http://user:password@proxy:port), or ' +
            'bypass the proxy for this host with NO_PROXY',
        ],
        cause: error,
      },
    );
  }
  const detail = error instanceof TransportError ? error.detail : undefined;
  const reason =
    outcome.timedOutMs !== undefined
      ? `no answer from ${host} within ${formatMs(outcome.timedOutMs)}`
      : code === 'PARSE'
        ? `the answer from ${host} is not valid HTTP (${ctx.redact(detail ?? 'parser error')})`
        : code === 'PROXY_DROPPED'
          ? `the proxy ${proxy ?? ''} closed the connection before opening a tunnel to ${host}`
          : code === 'PROXY_REFUSED'
            ? `the proxy ${proxy ?? ''} refused the tunnel to ${host} (${detail ?? 'not 200'})`
            : proxy
              ? `cannot connect to the proxy ${proxy} (${code})`
              : preSend
                ? `cannot connect to ${host} (${code})`
                : `the connection to ${host} failed (${code})`;
  if (!spec.idempotent && !preSend) {
    return new MqError(
      ExitCode.unavailable,
      spec.what,
      `outcome unknown: ${reason} after the request was sent, so it may or may not have taken effect`,
      {
        hints: ['check the result before trying again (for a PR: `mq status <pr>`)'],
        cause: error,
      },
    );
  }
  const tries = attempt + 1;
  const hint =
    outcome.timedOutMs !== undefined
      ? cutByDeadline
        ? 'the wait ran out of time (--timeout bounds the whole wait); give it longer with --timeout'
        : `raise the limit with ${ctx.timeoutSource ?? '--timeout or MQ_TIMEOUT'}, or try again later`
      : code === 'PARSE'
        ? 'check the API URL: it must point at the merge queue service (https:// or http://, and the right port)'
        : 'check the API URL and your network or proxy settings (HTTPS_PROXY, NO_PROXY)';
  return new MqError(ExitCode.unavailable, spec.what, `${reason}${tries > 1 ? ` (${tries} attempts)` : ''}`, {
    hints: [hint],
    cause: error,
  });
}
