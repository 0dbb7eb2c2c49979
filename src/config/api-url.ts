/**
 * Rules about where requests may go, as pure functions: the API URL is just a URL (no query, no
 * fragment, no credentials), and a token stored in a profile goes only to the origin of that
 * profile's API URL.
 */
import { ConfigError, type MqError } from '../errors.js';

export { checkUrlParts, withoutCredentials } from '../api/connection-checks.js';

const fromProfile = (source: string) => source.startsWith('profile');

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
