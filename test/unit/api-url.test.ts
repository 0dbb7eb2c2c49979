import { describe, expect, it } from 'vitest';
import { tokenDestinationError, withoutCredentials } from '../../src/config/api-url.js';
import { checkApiUrl } from '../../src/config/resolve.js';

const base = { profileName: 'work', defaultApiUrl: 'https://api.trunk.io/v1' };

describe('tokenDestinationError', () => {
  const check = (url: string, tokenSource: string | undefined, profileApiUrl?: string) =>
    tokenDestinationError({ ...base, apiUrl: { value: url, source: 'flag --api-url' }, tokenSource, profileApiUrl });

  it('a profile token goes only to the origin of its profile URL', () => {
    expect(check('https://mq.example.com/v2', 'profile "work"', 'https://mq.example.com/v1')).toBeUndefined();
    expect(check('https://mq.example.com:443/v1', 'profile "work"', 'https://MQ.example.com/v1/')).toBeUndefined();
    for (const url of [
      'https://mq.example.com:8443/v1',
      'http://mq.example.com/v1',
      'https://evil.example.com/v1',
      'https://mq.example.com.evil.io/v1',
    ]) {
      expect(check(url, 'profile "work"', 'https://mq.example.com/v1')?.exitCode, url).toBe(7);
    }
  });

  it('a profile without a URL holds a token for the default service', () => {
    expect(check('https://api.trunk.io/v1', 'profile "work"')).toBeUndefined();
    expect(check('http://127.0.0.1:8080/v1', 'profile "work"')?.why).toContain('is for https://api.trunk.io');
  });

  it('a token from the environment, or no token, goes where the URL says', () => {
    expect(check('https://anywhere.example/v1', 'env MQ_TOKEN', 'https://mq.example.com/v1')).toBeUndefined();
    expect(check('https://anywhere.example/v1', 'env TRUNK_API_TOKEN', 'https://mq.example.com/v1')).toBeUndefined();
    expect(check('https://anywhere.example/v1', undefined, 'https://mq.example.com/v1')).toBeUndefined();
  });

  it('a profile URL that is not a URL keeps its token home', () => {
    expect(check('https://mq.example.com/v1', 'profile "work"', 'not a url')?.exitCode).toBe(7);
  });
});

describe('API URL parts', () => {
  it('refuses query strings, fragments and credentials: 2 from flag or environment, 7 from a profile', () => {
    for (const url of [
      'https://x.example/v1?a=1',
      'https://x.example/v1?',
      'https://x.example/v1#f',
      'https://u:p@x.example/v1',
      'https://u@x.example/v1',
    ]) {
      for (const [source, code] of [
        ['flag --api-url', 2],
        ['env MQ_API_URL', 2],
        ['profile "work"', 7],
      ] as const) {
        let caught: { exitCode?: number; message?: string } = {};
        try {
          checkApiUrl(url, source, false);
        } catch (err) {
          caught = err as typeof caught;
        }
        expect(caught.exitCode, `${url} from ${source}`).toBe(code);
        expect(caught.message).not.toContain('u:p');
      }
    }
  });

  it('withoutCredentials strips user:password@ from URLs and from text that is not one', () => {
    expect(withoutCredentials('https://u:p@x.example/v1')).toBe('https://x.example/v1');
    expect(withoutCredentials('http://alice:s3@[bad/v1')).toBe('http://[bad/v1');
    expect(withoutCredentials('https://x.example/v1?next=a@b')).toBe('https://x.example/v1?next=a@b');
    // A scheme that does not parse still loses the password.
    expect(withoutCredentials('ht^tp://user:secret@host/v1')).toBe('ht^tp://host/v1');
    expect(withoutCredentials('1http://user:secret@host')).toBe('1http://host');
    expect(withoutCredentials('http//user:secret@host')).toBe('http//host');
    expect(withoutCredentials(':::user:secret@host')).toBe('host');
    expect(withoutCredentials('https://u:p@a@b.example')).toBe('https://b.example');
  });
});
