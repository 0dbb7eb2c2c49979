import { describe, expect, it } from 'vitest';
import { repoFromRemote, originUrl } from '../../src/config/git.js';
import {
  activeProfile,
  checkApiUrl,
  checkProfileName,
  checkToken,
  findProfile,
  parseRepo,
  resolveApiUrl,
  resolveProfileName,
  resolveToken,
} from '../../src/config/resolve.js';
import { parseDuration, formatDuration } from '../../src/util/duration.js';
import { parsePrList, parsePriority } from '../../src/cli/args.js';

describe('parseRepo', () => {
  it.each([
    ['acme/widgets', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['GitHub.com/acme/widgets', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['ghe.example.com:8443/a.b/c_d-e', { host: 'ghe.example.com:8443', owner: 'a.b', name: 'c_d-e' }],
    ['acme/widgets.git', { host: 'github.com', owner: 'acme', name: 'widgets' }],
  ])('%s', (text, expected) => expect(parseRepo(text, '--repo')).toEqual(expected));

  it.each(['widgets', '', 'a/b/c/d', 'acme/wid gets', 'acme/..', 'a//b'])('rejects %j', (text) => {
    expect(() => parseRepo(text, '--repo')).toThrow(/--repo: .* is not a repository; expected \[host\/\]owner\/name/);
  });
});

describe('git remotes', () => {
  it.each([
    ['git@github.com:acme/widgets.git', 'github.com/acme/widgets'],
    ['github.com:acme/widgets', 'github.com/acme/widgets'],
    ['https://github.com/acme/widgets', 'github.com/acme/widgets'],
    ['https://token@github.com/acme/widgets.git/', 'github.com/acme/widgets'],
    ['ssh://git@ghe.example.com:2222/team/app.git', 'ghe.example.com/team/app'],
    ['/local/path/repo', undefined],
  ])('%s', (url, expected) => expect(repoFromRemote(url)).toBe(expected));

  it('finds the origin url among several remotes', () => {
    const text =
      '[remote "upstream"]\n\turl = git@github.com:up/x.git\n[remote "origin"]\n\turl = git@github.com:me/x.git\n[branch "main"]\n\tremote = origin\n';
    expect(originUrl(text)).toBe('git@github.com:me/x.git');
  });
});

describe('precedence', () => {
  const data = {
    activeProfile: 'work',
    profiles: { work: { token: 'tok_profile', apiUrl: 'https://mq.example.com/v1' } },
  };
  it('profile: flag > env > active > default', () => {
    expect(resolveProfileName({ profile: 'a' }, { MQ_PROFILE: 'b' }, data)).toEqual({
      value: 'a',
      source: 'flag --profile',
    });
    expect(resolveProfileName({}, { MQ_PROFILE: 'b' }, data)).toEqual({ value: 'b', source: 'env MQ_PROFILE' });
    expect(resolveProfileName({}, { MQ_PROFILE: '' }, data)).toEqual({ value: 'work', source: 'config activeProfile' });
    expect(resolveProfileName({}, {}, { profiles: {} })).toEqual({ value: 'default', source: 'default' });
  });
  it('token: MQ_TOKEN > TRUNK_API_TOKEN > profile; empty is unset', () => {
    const p = data.profiles.work;
    expect(resolveToken({ MQ_TOKEN: 'a', TRUNK_API_TOKEN: 'b' }, p, 'work')?.source).toBe('env MQ_TOKEN');
    expect(resolveToken({ MQ_TOKEN: '', TRUNK_API_TOKEN: 'b' }, p, 'work')?.source).toBe('env TRUNK_API_TOKEN');
    expect(resolveToken({}, p, 'work')).toEqual({ value: 'tok_profile', source: 'profile "work"' });
    expect(resolveToken({}, {}, 'work')).toBeUndefined();
  });
  it('api url: flag > env > profile > default', () => {
    const p = data.profiles.work;
    expect(
      resolveApiUrl({ apiUrl: 'https://f.example/v1' }, { MQ_API_URL: 'https://e.example/v1' }, p, 'work').value,
    ).toBe('https://f.example/v1');
    expect(resolveApiUrl({}, { MQ_API_URL: 'https://e.example/v1/' }, p, 'work').value).toBe('https://e.example/v1');
    expect(resolveApiUrl({}, {}, p, 'work').source).toBe('profile "work"');
    expect(resolveApiUrl({}, {}, {}, 'work')).toEqual({ value: 'https://api.trunk.io/v1', source: 'default' });
  });
});

describe('checkApiUrl', () => {
  it('allows http only to loopback', () => {
    expect(checkApiUrl('http://127.0.0.1:9/v1', 'x', false)).toBe('http://127.0.0.1:9/v1');
    expect(checkApiUrl('http://localhost:9/v1', 'x', false)).toBe('http://localhost:9/v1');
    expect(checkApiUrl('http://[::1]:9/v1', 'x', false)).toBe('http://[::1]:9/v1');
    expect(() => checkApiUrl('http://10.0.0.1/v1', 'x', false)).toThrow(/plain http/);
    expect(checkApiUrl('http://10.0.0.1/v1', 'x', true)).toBe('http://10.0.0.1/v1');
  });
  it('refuses other schemes and embedded credentials', () => {
    expect(() => checkApiUrl('ftp://x/v1', 'x', false)).toThrow(/https:\/\/ or http:\/\//);
    expect(() => checkApiUrl('https://u:p@x/v1', 'x', false)).toThrow(/credentials/);
    expect(() => checkApiUrl('not a url', 'x', false)).toThrow(/not a URL/);
  });
});

describe('durations', () => {
  it.each([
    ['30', 30_000],
    ['1.5', 1500],
    ['250ms', 250],
    ['45s', 45_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['3d', 259_200_000],
  ])('%s', (t, ms) => expect(parseDuration(t, '--x')).toBe(ms));
  it.each(['', 'soon', '5 m', '-1s', '1y'])('rejects %j', (t) =>
    expect(() => parseDuration(t, '--x')).toThrow(/--x: .* is not a duration/),
  );
  it.each([
    [0, '0s'],
    [59_000, '59s'],
    [61_000, '1m 1s'],
    [3_600_000, '1h'],
    [90_061_000, '1d 1h'],
  ])('formats %d', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('argument parsers', () => {
  it('PR lists: de-duplicated, stdin split on white space and commas', () => {
    expect(parsePrList(['1', '#2', '-'], '3\n4 5,6\n\n1')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(() => parsePrList([])).toThrow(/no PR numbers/);
    expect(() => parsePrList(['1', '-1'])).toThrow(/"-1" is not a PR number/);
  });
  it('priorities', () => {
    expect(parsePriority('Urgent')).toBe('urgent');
    expect(parsePriority('0')).toBe(0);
    expect(parsePriority('255')).toBe(255);
    expect(() => parsePriority('256')).toThrow(/--priority/);
    expect(() => parsePriority('-1')).toThrow(/--priority/);
  });
});

describe('profile names', () => {
  it.each(['default', 'a', 'Work-2', 'ci.prod_eu', 'x'.repeat(64), '0'])('accepts %j', (name) =>
    expect(checkProfileName(name, 'flag --profile')).toBe(name),
  );
  it.each(['', '-rf', '.hidden', '_x', '__proto__', 'a b', '$(id)', ';rm', 'a/b', '../x', 'x'.repeat(65), 'é', 'a\n'])(
    'refuses %j',
    (name) => {
      expect(() => checkProfileName(name, 'flag --profile')).toThrow(/is not allowed/);
    },
  );
  it('a bad flag is a usage error, a bad environment value a configuration error', () => {
    expect(() => resolveProfileName({ profile: '$(id)' }, {}, { profiles: {} })).toThrow(
      expect.objectContaining({ exitCode: 2 }),
    );
    expect(() => resolveProfileName({}, { MQ_PROFILE: '`id`' }, { profiles: {} })).toThrow(
      expect.objectContaining({ exitCode: 7 }),
    );
  });
  it('looks profiles up as own entries only', () => {
    const data = JSON.parse('{"profiles": {"work": {"token": "t"}}}');
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(findProfile(data, name)).toBeUndefined();
      expect(() => activeProfile({ value: name, source: 'flag --profile' }, data)).toThrow(`unknown profile "${name}"`);
      expect(activeProfile({ value: name, source: 'config activeProfile' }, data)).toEqual({});
    }
    expect(findProfile(data, 'work')).toEqual({ token: 't' });
  });
});

describe('tokens', () => {
  it('accepts visible ASCII', () =>
    expect(checkToken('tok_AZaz09-._~!#$%&*+/=?^|', 'x')).toBe('tok_AZaz09-._~!#$%&*+/=?^|'));
  it.each([
    ['tok\u0000x', 'a control character (U+0000)'],
    ['tok\tx', 'a control character (U+0009)'],
    ['tok\rx', 'a control character (U+000D)'],
    ['tok\u007fx', 'a control character (U+007F)'],
    ['tok\u009bx', 'a control character (U+009B)'],
    ['tok x', 'a space (U+0020)'],
    ['tok\u202ex', 'a non-ASCII character (U+202E)'],
    ['tök', 'a non-ASCII character (U+00F6)'],
  ])('refuses %j, naming the source, exit 7', (token, what) => {
    expect(() => checkToken(token, 'env MQ_TOKEN')).toThrow(`the API token from env MQ_TOKEN contains ${what}`);
    expect(() => resolveToken({ MQ_TOKEN: token }, {}, 'p')).toThrow(expect.objectContaining({ exitCode: 7 }));
    expect(() => resolveToken({}, { token }, 'p')).toThrow('from profile "p"');
  });
});
