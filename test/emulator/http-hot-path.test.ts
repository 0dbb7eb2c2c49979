/**
 * The emulator's hot path keeps the general path's answers: the hand-written validators of the
 * common request shapes accept only what the zod schemas accept and return what they return, and
 * request targets routed without URL parsing (plain paths, from a cache) are answered as parsed ones.
 */
import { request } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { fastParserFor } from '../../src/emulator/http/fast-parse.js';
import { getPullRequestRequest, prRequest, queueRequest } from '../../src/emulator/http/schemas.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, queue, repo, startTestEmulator } from './http-helpers.js';

const long = 'x'.repeat(256);
const variants = (base: Record<string, unknown>): unknown[] => [
  base,
  { ...base, extra: 1 },
  { ...base, repo: { ...repo, host: '' } },
  { ...base, repo: { ...repo, owner: long } },
  { ...base, repo: { ...repo, name: 'x'.repeat(255) } },
  { ...base, repo: { ...repo, more: 'x' } },
  { ...base, repo: [repo] },
  { ...base, repo: null },
  { ...base, targetBranch: 5 },
  { ...base, targetBranch: '' },
  { ...base, targetBranch: long },
  { ...base, pr: { number: '12' } },
  { ...base, pr: { number: -1 } },
  { ...base, pr: { number: 1.5 } },
  { ...base, pr: { number: 4294967295 } },
  { ...base, pr: { number: 4294967296 } },
  { ...base, pr: { number: 3, sha: 'abc' } },
  { ...base, pr: 3 },
  { ...base, includeTimeline: true },
  { ...base, includeTimeline: 'yes' },
  { ...base, includeEstimatedTimeToMerge: false, includeTimeline: false },
  JSON.parse(`{"repo":${JSON.stringify(repo)},"targetBranch":"main","pr":{"number":1},"__proto__":{"x":1}}`),
  [],
  null,
  'text',
  {},
];

describe('fast validators', () => {
  for (const [name, schema, base] of [
    ['queueRequest', queueRequest, queue],
    ['prRequest', prRequest, { ...queue, pr: { number: 7 } }],
    ['getPullRequestRequest', getPullRequestRequest, { ...queue, pr: { number: 7 } }],
  ] as const) {
    it(`${name}: accepts only what the schema accepts, with the schema's result`, () => {
      const fast = fastParserFor(schema);
      expect(fast).toBeDefined();
      let accepted = 0;
      for (const body of [...variants(base), ...variants({ ...queue, pr: { number: 0 } })]) {
        const got = fast?.(body);
        if (got === undefined) continue;
        accepted++;
        const slow = schema.safeParse(body);
        expect(slow.success, JSON.stringify(body)).toBe(true);
        expect(got, JSON.stringify(body)).toStrictEqual(slow.data);
        expect(Object.keys(got as object)).toEqual(Object.keys(slow.data as object));
      }
      // The plain, common bodies do take the fast path.
      expect(fast?.(base)).toBeDefined();
      expect(accepted).toBeGreaterThan(1);
    });
  }
});

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function raw(url: string, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('routing without URL parsing', () => {
  it('answers plain and non-plain request targets as the URL parser reads them', async () => {
    const started = await startTestEmulator();
    emu = started.emu;
    const url = emu.url;
    const body = JSON.stringify(queue);
    expect((await raw(url, 'POST', '/v1/createQueue', body)).status).toBe(200);
    expect((await raw(url, 'POST', '/v1/getQueue', body)).status).toBe(200);
    expect((await raw(url, 'POST', '/v1/getQueue?x=1', body)).status).toBe(200);
    expect((await raw(url, 'POST', '/v1/./getQueue', body)).status).toBe(200);
    expect((await raw(url, 'POST', '/v1/x/../getQueue', body)).status).toBe(200);
    // `//host/path` is an authority: only the path after it counts.
    expect(await raw(url, 'POST', '//v1/getQueue', body)).toEqual({ status: 404, text: 'no such endpoint: /getQueue' });
    expect(await raw(url, 'POST', '/v1/get%51ueue', body)).toEqual({ status: 404, text: 'no such endpoint: /v1/get%51ueue' });
    expect(await raw(url, 'GET', '/v1/getQueue')).toEqual({ status: 405, text: 'method GET not allowed on /v1/getQueue; use POST' });
    expect((await raw(url, 'GET', '/v1/_emulator/clock')).status).toBe(200);
    // More distinct paths than the route cache holds: every answer is still right.
    for (let i = 0; i < 300; i++) {
      expect((await raw(url, 'POST', `/v1/nothing${i}`, body)).text).toBe(`no such endpoint: /v1/nothing${i}`);
    }
    expect((await raw(url, 'POST', '/v1/getQueue', body)).status).toBe(200);
  });
});
