/** Which API mq speaks (issue 30.1): the explicit choice, then the key and the URL; v2's base URL. */
import { describe, expect, it } from 'vitest';
import { chooseApi } from '../../src/config/api-choice.js';
import { ConfigError, UsageError } from '../../src/errors.js';

const KEY = 'trunk_v2_abc';
const ORG = 'org-token-123';
const url = (value: string, source = 'env MQ_API_URL') => ({ value, source });
const DEFAULT = url('https://api.trunk.io/v1', 'default');

describe('chooseApi', () => {
  const rows: Array<[string, Parameters<typeof chooseApi>[0], string, string, string]> = [
    [
      'org token, default URL',
      { env: {}, profileName: 'p', apiUrl: DEFAULT, token: ORG },
      'v1',
      'https://api.trunk.io/v1',
      'auto: default',
    ],
    [
      'v2 key, default URL: Trunk origin',
      { env: {}, profileName: 'p', apiUrl: DEFAULT, token: KEY },
      'v2',
      'https://api.trunk.io',
      'auto: the token is a v2 API key',
    ],
    [
      'v2 key, URL ending /v1: the origin',
      { env: {}, profileName: 'p', apiUrl: url('http://127.0.0.1:9/v1'), token: KEY },
      'v2',
      'http://127.0.0.1:9',
      'auto: the token is a v2 API key',
    ],
    [
      'org token, URL with /v1',
      { env: {}, profileName: 'p', apiUrl: url('http://127.0.0.1:9/v1/'), token: ORG },
      'v1',
      'http://127.0.0.1:9/v1/',
      'auto: the API URL ends in /v1',
    ],
    [
      'URL without a version segment',
      { env: {}, profileName: 'p', apiUrl: url('https://mq.example.com'), token: ORG },
      'v2',
      'https://mq.example.com',
      'auto: the API URL has no version segment',
    ],
    [
      '--api v1 beats a bare URL',
      { flag: 'v1', env: { MQ_API: 'v2' }, profileName: 'p', apiUrl: url('http://127.0.0.1:9'), token: ORG },
      'v1',
      'http://127.0.0.1:9',
      'flag --api',
    ],
    [
      'MQ_API beats the profile',
      { env: { MQ_API: 'v2' }, profile: { api: 'v1' }, profileName: 'p', apiUrl: DEFAULT, token: ORG },
      'v2',
      'https://api.trunk.io',
      'env MQ_API',
    ],
    [
      'the profile',
      {
        env: {},
        profile: { api: 'v2' },
        profileName: 'work',
        apiUrl: url('http://h:1/v2', 'profile "work"'),
        token: ORG,
      },
      'v2',
      'http://h:1',
      'profile "work"',
    ],
    [
      'auto as a value is auto',
      { flag: 'auto', env: {}, profileName: 'p', apiUrl: DEFAULT, token: KEY },
      'v2',
      'https://api.trunk.io',
      'auto: the token is a v2 API key',
    ],
  ];
  for (const [name, input, api, baseUrl, source] of rows) {
    it(name, () => expect(chooseApi(input)).toEqual({ api, baseUrl, source }));
  }

  it('a v2 key on v1 is refused before anything is sent (exit 7)', () => {
    expect(() => chooseApi({ flag: 'v1', env: {}, profileName: 'p', apiUrl: DEFAULT, token: KEY })).toThrow(
      ConfigError,
    );
  });

  it('a bad --api is a usage error; a bad MQ_API or profile value a config error', () => {
    expect(() => chooseApi({ flag: 'v3', env: {}, profileName: 'p', apiUrl: DEFAULT })).toThrow(UsageError);
    expect(() => chooseApi({ env: { MQ_API: 'v3' }, profileName: 'p', apiUrl: DEFAULT })).toThrow(ConfigError);
    expect(() => chooseApi({ env: {}, profile: { api: 'x' }, profileName: 'p', apiUrl: DEFAULT })).toThrow(
      /profile "p": "x" is not an API version; expected v1, v2 or auto/,
    );
  });
});
