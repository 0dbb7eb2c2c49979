/** `mq emulator start` hands out a v2 key beside the v1 token, and makes the `--api-key` keys. */
import { expect, it } from 'vitest';

import { runEmulatorStart } from '../../src/emulator/start-command.js';
import { queue } from './http-helpers.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) } };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

it('prints MQ_V2_API_KEY after MQ_TOKEN; the key works on /v2 only, the token on /v1 only', async () => {
  const { out, err, io } = capture();
  const stop = new AbortController();
  const done = runEmulatorStart({ port: 0, clock: 'manual', apiKeySpecs: ['dash=none'], signal: stop.signal }, io);
  try {
    await until(() => out.length >= 4);
    const lines = out.join('').split('\n');
    const url = /^export MQ_API_URL=(.*)$/.exec(lines[1] ?? '')?.[1] as string;
    const token = /^export MQ_TOKEN=(.*)$/.exec(lines[2] ?? '')?.[1] as string;
    const key = /^export MQ_V2_API_KEY=(trunk_v2_[0-9a-f]{48})$/.exec(lines[3] ?? '')?.[1] as string;
    expect(key).toBeDefined();
    const dash = /v2 API key "dash" \(read only\): (trunk_v2_[0-9a-f]{48})/.exec(err.join(''))?.[1] as string;
    expect(dash).toBeDefined();
    const origin = url.replace(/\/v1$/, '');
    const get = (k: string, headers: Record<string, string> = { authorization: `Bearer ${k}` }) =>
      fetch(`${origin}/v2/merge-queues`, { headers });
    expect((await get(key)).status).toBe(200);
    expect((await get(dash)).status).toBe(200);
    expect((await get(token)).status).toBe(401);
    expect((await get('', { 'x-api-token': token })).status).toBe(401);
    const create = (headers: Record<string, string>) =>
      fetch(`${url}/createQueue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(queue),
      });
    expect((await create({ 'x-api-token': key })).status).toBe(401);
    expect((await create({ authorization: `Bearer ${key}` })).status).toBe(401);
    expect((await create({ 'x-api-token': token })).status).toBe(200);
  } finally {
    stop.abort();
    expect(await done).toBe(0);
  }
});

it('refuses a malformed --api-key with exit 2, a message naming the flag and a hint', async () => {
  for (const spec of ['nameonly', 'ci=merge,fly']) {
    const { out, err, io } = capture();
    expect(await runEmulatorStart({ port: 0, apiKeySpecs: [spec] }, io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toMatch(/^mq: emulator: --api-key: .+\nhint: mq emulator start --api-key/);
  }
});
