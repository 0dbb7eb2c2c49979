/**
 * runEmulatorStart: the banner contract, loopback safety, clean shutdown with state persisted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runEmulatorStart } from '../../src/emulator/index.js';
import { isLoopback, shellQuote } from '../../src/emulator/start-command.js';
import { loadState } from '../../src/emulator/store.js';
import { Client, capture, queue, until } from './http-helpers.js';

describe('runEmulatorStart', () => {
  it('prints the banner, serves until stopped, then closes cleanly and persists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mq-emu-start-'));
    try {
      const { out, err, io } = capture();
      const stop = new AbortController();
      const done = runEmulatorStart({ port: 0, dataDir: dir, clock: 'manual', signal: stop.signal }, io);
      await until(() => out.length >= 3);
      const lines = out.join('').split('\n');
      const m = /^mq emulator listening on (http:\/\/127\.0\.0\.1:(\d+)\/v1)$/.exec(lines[0] ?? '');
      expect(m).not.toBeNull();
      const url = m![1]!;
      expect(lines[1]).toBe(`export MQ_API_URL=${url}`);
      const token = /^export MQ_TOKEN=([0-9a-f]{48})$/.exec(lines[2] ?? '')?.[1];
      expect(token).toBeDefined();

      const c = new Client({ url, token: token! });
      expect((await c.post('createQueue', queue)).status).toBe(200);
      stop.abort();
      expect(await done).toBe(0);
      expect(err.join('')).toContain('stopping');
      expect(Object.keys((await loadState(dir))!.queues)).toHaveLength(1);
      await expect(fetch(`${url}/getQueue`)).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses the given token and refuses a non-loopback host unless it was passed explicitly', async () => {
    const { out, err, io } = capture();
    expect(await runEmulatorStart({ host: '0.0.0.0', port: 0 }, io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain('refusing to listen on non-loopback host 0.0.0.0');

    const ok = capture();
    const stop = new AbortController();
    const done = runEmulatorStart({ port: 0, token: "it's secret", signal: stop.signal }, ok.io);
    await until(() => ok.out.length >= 3);
    expect(ok.out[2]).toBe(`export MQ_TOKEN='it'\\''s secret'\n`);
    stop.abort();
    expect(await done).toBe(0);
  });

  it('exits 1 with a message when it cannot listen', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { err, io } = capture();
      expect(await runEmulatorStart({ port }, io)).toBe(1);
      expect(err.join('')).toMatch(/^mq: emulator: could not start: .*EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });
});

describe('helpers', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['127.255.255.254', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0::1', true],
    ['[0:0:0:0:0:0:0:1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['128.0.0.1', false],
    ['126.255.255.255', false],
    ['::ffff:10.0.0.1', false],
    ['192.168.1.4', false],
    ['::', false],
    ['example.com', false],
  ])('isLoopback(%s) = %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });

  it('quotes only when the shell needs it', () => {
    expect(shellQuote('http://127.0.0.1:4000/v1')).toBe('http://127.0.0.1:4000/v1');
    expect(shellQuote('a b$c')).toBe("'a b$c'");
  });
});
