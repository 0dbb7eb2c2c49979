/**
 * Rules about where requests may go, as pure functions: the API URL is just a URL (no query, no
 * fragment, no credentials), and a token stored in a profile goes only to the origin of that
 * profile's API URL.
 */
import { ConfigError, UsageError, type MqError } from '../errors.js';

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

/**
 * A query string, a fragment or credentials in the API URL: refused before anything is sent.
 * Exit 2 when typed (flag) or exported (environment), 7 when stored in a profile.
 */
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

function originOf(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface TokenDestination {
  /** The API URL requests will go to, and where it came from. */
  apiUrl: { value: string; source: string };
  /** Where the token came from (`env MQ_TOKEN`, `profile "work"`…), if there is one. */
  tokenSource: string | undefined;
  profileName: string;
  /** The API URL stored in that profile, if any. */
  profileApiUrl: string | undefined;
  /** The service a profile without an API URL stands for. */
  defaultApiUrl: string;
}

/**
 * Whether the token may go to the API URL; the refusal to raise when not. A token from a profile
 * belongs to the origin (scheme, host, port) of that profile's API URL; a token from the
 * environment goes where the URL says, since the caller chose both.
 */
export function tokenDestinationError(d: TokenDestination): MqError | undefined {
  if (d.tokenSource === undefined || !fromProfile(d.tokenSource)) return undefined;
  const home = originOf(d.profileApiUrl ?? d.defaultApiUrl);
  const target = originOf(d.apiUrl.value);
  if (home !== undefined && home === target) return undefined;
  return new ConfigError(
    `the token of profile "${d.profileName}" is for ${home ?? 'its own service'}; mq will not send it to ${target ?? 'another service'} (API URL from ${d.apiUrl.source})`,
    {
      hints: ['set MQ_TOKEN to a token for that service', `or make a profile for it: mq --profile NAME --api-url ${target ?? 'URL'} auth login`],
    },
  );
}
