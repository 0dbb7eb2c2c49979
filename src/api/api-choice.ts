// Which API version mq speaks: `--api`, MQ_API or the profile's `api` (v1, v2 or auto), else auto: a
// v2 key (`trunk_v2_…`) or an API URL without a version segment means v2, anything else v1. v2's
// paths carry their version, so its base URL is the origin (Trunk's by default).
import { ConfigError, UsageError } from '../errors.js';

type Sourced<T> = { value: T; source: string };

export type ApiVersion = 'v1' | 'v2';
export const API_CHOICES = ['v1', 'v2', 'auto'] as const;
export const V2_KEY_PREFIX = 'trunk_v2_';
export const DEFAULT_V2_API_URL = 'https://api.trunk.io';

export interface ApiChoice {
  api: ApiVersion;
  /** Why: `flag --api`, `env MQ_API`, `profile "x"`, or what auto went by. */
  source: string;
  /** Where requests go: v1's URL as given; for v2 the URL without a trailing version segment. */
  baseUrl: string;
}

function checkChoice(value: string, source: string): ApiVersion | 'auto' {
  if ((API_CHOICES as readonly string[]).includes(value)) return value as ApiVersion | 'auto';
  const why = `${source}: "${value.slice(0, 40)}" is not an API version; expected v1, v2 or auto`;
  const hints = ['v2 takes the API keys made under Settings → Developer → API Keys; v1 the organization token'];
  throw source.startsWith('profile') || source.startsWith('env')
    ? new ConfigError(why, { hints })
    : new UsageError(why, { hints });
}

const versionOf = (url: string): string | undefined => /\/(v\d+)\/*$/.exec(new URL(url).pathname)?.[1];

export function chooseApi(c: {
  flag?: string;
  env: NodeJS.ProcessEnv;
  profile?: { api?: string };
  profileName: string;
  apiUrl: Sourced<string>;
  token?: string;
}): ApiChoice {
  const asked: Sourced<string> | undefined =
    c.flag !== undefined
      ? { value: c.flag, source: 'flag --api' }
      : c.env.MQ_API
        ? { value: c.env.MQ_API, source: 'env MQ_API' }
        : c.profile?.api
          ? { value: c.profile.api, source: `profile "${c.profileName}"` }
          : undefined;
  const explicit = asked ? checkChoice(asked.value, asked.source) : 'auto';
  const version = versionOf(c.apiUrl.value);
  const v2Key = c.token?.startsWith(V2_KEY_PREFIX) === true;
  let api: ApiVersion;
  let source: string;
  if (explicit !== 'auto') {
    api = explicit;
    source = (asked as Sourced<string>).source;
  } else if (v2Key) {
    [api, source] = ['v2', 'auto: the token is a v2 API key'];
  } else if (version === undefined && c.apiUrl.source !== 'default') {
    [api, source] = ['v2', 'auto: the API URL has no version segment'];
  } else {
    [api, source] = ['v1', c.apiUrl.source === 'default' ? 'auto: default' : `auto: the API URL ends in /${version}`];
  }
  if (api === 'v1' && v2Key) {
    throw new ConfigError(`a v2 API key (${V2_KEY_PREFIX}…) works only on the v2 API, and ${source} asks for v1`, {
      hints: ["drop --api v1 (or MQ_API, or the profile's api), or use an organization token for v1"],
    });
  }
  if (api === 'v1') return { api, source, baseUrl: c.apiUrl.value };
  const baseUrl =
    c.apiUrl.source === 'default' ? DEFAULT_V2_API_URL : c.apiUrl.value.replace(/\/+$/, '').replace(/\/v\d+$/, '');
  return { api, source, baseUrl };
}
