// Where requests may go: the API URL is a plain URL, and a profile's token goes only to that profile's origin.
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

/** Whether the token may go to the API URL: a profile's only to its origin; an environment token anywhere. */
export function tokenDestinationError(d: TokenDestination): MqError | undefined {
  if (d.tokenSource === undefined || !fromProfile(d.tokenSource)) return undefined;
  const home = originOf(d.profileApiUrl ?? d.defaultApiUrl);
  const target = originOf(d.apiUrl.value);
  if (home !== undefined && home === target) return undefined;
  return new ConfigError(
    `the token of profile "${d.profileName}" is for ${home ?? 'its own service'}; mq will not send it ` +
      `to ${target ?? 'another service'} (API URL from ${d.apiUrl.source})`,
    {
      hints: [
        'set MQ_TOKEN to a token for that service',
        `or make a profile for it: mq --profile NAME --api-url ${target ?? 'URL'} auth login`,
      ],
    },
  );
}
