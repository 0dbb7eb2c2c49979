/**
 * The emulator's hot path keeps the general path's answers: request targets routed without URL
 * parsing (plain paths, from a cache) are answered as parsed ones.
 */
import { request } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import type { RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, queue, startTestEmulator } from './http-helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function raw(url: string, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
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
    expect(await raw(url, 'POST', '/v1/get%51ueue', body)).toEqual({
      status: 404,
      text: 'no such endpoint: /v1/get%51ueue',
    });
    expect(await raw(url, 'GET', '/v1/getQueue')).toEqual({
      status: 405,
      text: 'method GET not allowed on /v1/getQueue; use POST',
    });
    expect((await raw(url, 'GET', '/v1/_emulator/clock')).status).toBe(200);
    // More distinct paths than the route cache holds: every answer is still right.
    for (let i = 0; i < 300; i++) {
      expect((await raw(url, 'POST', `/v1/nothing${i}`, body)).text).toBe(`no such endpoint: /v1/nothing${i}`);
    }
    expect((await raw(url, 'POST', '/v1/getQueue', body)).status).toBe(200);
  });
});
