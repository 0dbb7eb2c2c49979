// Connection checks shared by the CLI, the library and the Action: http(s) URL without query, fragment
// or credentials (http only to loopback unless allowed), visible-ASCII token, timer-sized timeout.
// Typed values fail with exit 2, stored ones with 7; a bad token is always 7.
import { ConfigError, UsageError, type MqError } from '../errors.js';

export const DEFAULT_API_URL = 'https://api.trunk.io/v1';

/** `raw` with any `user:password@` part removed, for messages (works on text that is not a URL). */
export function withoutCredentials(raw: string): string {
  const slashes = raw.indexOf('//');
  const from = slashes === -1 ? 0 : slashes + 2;
  const end = raw.slice(from).search(/[/?#]/);
  const authority = end === -1 ? raw.slice(from) : raw.slice(from, from + end);
  const at = authority.lastIndexOf('@');
  return at === -1 ? raw : raw.slice(0, from) + raw.slice(from + at + 1);
}

const fromProfile = (source: string) => source.startsWith('profile');
const typed = (source: string) => /^(flag|--|option |input )/.test(source) || source === 'api-url';

/** Query, fragment or credentials in the API URL: refused before sending (exit 2 typed/env, 7 profile). */
export function checkUrlParts(url: URL, raw: string, source: string): void {
  const parts = [
    url.username || url.password ? 'credentials (user:password@)' : '',
    url.search || url.href.includes('?') ? 'a query string (?…)' : '',
    url.hash || raw.includes('#') ? 'a fragment (#…)' : '',
  ].filter(Boolean);
  if (parts.length === 0) return;
  const why = `the API URL (from ${source}) must be a plain URL, without ${parts.join(', ')}`;
  const hints = [
    ...(url.username || url.password ? ['put the token in MQ_TOKEN or `mq auth login`, never in the URL'] : []),
    `for example ${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`,
  ];
  throw fromProfile(source) ? new ConfigError(why, { hints }) : new UsageError(why, { hints });
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** A usable base URL (see the header); `insecureHint` says how to allow http where the value came from. */
export function checkApiUrl(
  raw: string,
  source: string,
  insecureHttp: boolean,
  insecureHint = 'use https://, or pass --insecure-http if this network is trusted',
): string {
  const bad = (why: string, hints?: string[]): MqError =>
    typed(source) ? new UsageError(why, { hints }) : new ConfigError(why, { hints });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(`the API URL ${JSON.stringify(withoutCredentials(raw))} (from ${source}) is not a URL`, [
      `expected something like ${DEFAULT_API_URL}`,
    ]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // `user:secret@host` parses with the scheme `user:`: never echo what may be a user name.
    throw bad(
      `the API URL (from ${source}) must use https:// or http://${raw.includes('@') ? '' : `, not ${url.protocol}`}`,
    );
  }
  checkUrlParts(url, raw, source);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !insecureHttp) {
    throw bad(`refusing to send the token over plain http:// to ${url.host} (from ${source})`, [insecureHint]);
  }
  return url.href.replace(/\/+$/, '');
}

/** Tokens are visible ASCII: anything else would fail later as a bad header or a network error. */
const TOKEN_TEXT = /^[\x21-\x7e]+$/;

/** Refuses a token with white space, control or non-ASCII characters (exit 7), naming its source. */
export function checkToken(token: string, source: string): string {
  if (TOKEN_TEXT.test(token)) return token;
  const bad = [...token].find((c) => !TOKEN_TEXT.test(c)) ?? '';
  const code = bad.codePointAt(0) ?? 0;
  const what =
    code === 0x20
      ? 'a space'
      : code < 0x20 || (code >= 0x7f && code < 0xa0)
        ? 'a control character'
        : 'a non-ASCII character';
  throw new ConfigError(
    `the API token from ${source} contains ${what} ` +
      `(U+${code.toString(16).toUpperCase().padStart(4, '0')}); a token is visible ASCII only`,
    {
      hints: ['copy the token again, without surrounding text or line breaks'],
    },
  );
}

/** Timers take at most 2^31-1 ms (about 24.8 days); anything longer is refused, not wrapped. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkedTimeout(ms: number, source: string): number {
  if (typeof ms !== 'number' || Number.isNaN(ms)) throw new UsageError(`${source}: must be a number of milliseconds`);
  if (ms <= 0) throw new UsageError(`${source}: must be greater than zero`);
  if (ms > MAX_TIMEOUT_MS) throw new UsageError(`${source}: must be at most 24 days`);
  return ms;
}
