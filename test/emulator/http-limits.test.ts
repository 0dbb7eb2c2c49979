/**
 * The 20 MiB body limit: refused from Content-Length before reading, and for a streamed body as
 * soon as it crosses the limit — the answer arrives while the client is still uploading.
 */
import { request } from 'node:http';
import { beforeEach, expect, it } from 'vitest';

import { queue, useEmulator } from './http-helpers.js';

const MiB = 1024 * 1024;
const { emu, client: c } = useEmulator();

beforeEach(async () => {
  await c.post('createQueue', queue);
});

interface Upload {
  status: number;
  body: string;
  written: number;
}

/** Streams `total` bytes in 1 MiB chunks and stops writing as soon as a response arrives. */
function upload(headers: Record<string, string>, total: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(
      {
        host: emu.host,
        port: emu.port,
        method: 'POST',
        path: '/v1/setImpactedTargets',
        headers: { 'x-api-token': emu.token, ...headers },
      },
      (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, written });
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    // Once answered, the server cuts the connection; a write error after that is expected.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(MiB, 0x20);
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      // With nothing to stream (the declared-length case) the request is left open: the answer must
      // come without the server waiting for the body.
      if (!answered && total > 0) req.end();
    };
    req.write('{"impactedTargets": [');
    pump();
  });
}

it('refuses a declared Content-Length over 20 MiB with 413 before the body is sent', async () => {
  const res = await upload({ 'content-length': String(21 * MiB), 'content-type': 'application/json' }, 0);
  expect(res.status).toBe(413);
  expect(res.body).toBe('request body is larger than the 20 MiB limit');
  expect(res.written).toBe(0);
});

it('refuses a streamed body once it crosses 20 MiB, without waiting for the rest', async () => {
  const res = await upload({ 'transfer-encoding': 'chunked', 'content-type': 'application/json' }, 200 * MiB);
  expect(res.status).toBe(413);
  expect(res.body).toBe('request body is larger than the 20 MiB limit');
  // The answer came while the upload was far from done: the server did not read it all.
  expect(res.written).toBeGreaterThan(20 * MiB);
  expect(res.written).toBeLessThan(150 * MiB);
  // And the server is fine afterwards.
  expect((await c.post('getQueue', queue)).status).toBe(200);
});

it('accepts a body just under the limit', async () => {
  const targets = Array.from({ length: 20_000 }, (_, i) => `//t:${String(i).padStart(1000, '0')}`);
  const body = JSON.stringify({ ...queue, pr: { number: 1, sha: 'abc' }, impactedTargets: targets });
  expect(body.length).toBeGreaterThan(19 * MiB);
  expect(body.length).toBeLessThan(20 * MiB);
  const a = await c.post('setImpactedTargets', body);
  expect([a.status, a.text]).toEqual([200, 'OK']);
});

it('an ordinary client uploading 21 MiB reads the 413 and can keep using the server', async () => {
  const a = await c.post('setImpactedTargets', ' '.repeat(21 * MiB));
  expect([a.status, a.text]).toEqual([413, 'request body is larger than the 20 MiB limit']);
  expect((await c.post('getQueue', queue)).status).toBe(200);
});
