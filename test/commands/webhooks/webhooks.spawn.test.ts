/**
 * End to end: the emulator delivers real, signed events to the built `mq webhooks listen`, which
 * verifies, forwards them to a local handler and records them; `mq webhooks replay` re-sends the
 * recordings to another receiver (valid, same bytes) and to the listener (reported as duplicates).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { verifyWebhook } from '../../../src/lib/index.js';
import { queue, startTestEmulator } from '../../emulator/http-helpers.js';
import { BIN, baseEnv, runCli, tempDir } from '../../helpers/run-cli.js';
import { Receiver, SECRET, until } from './helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('mq webhooks listen / replay against the emulator', () => {
  it('verifies, forwards and records real deliveries; replays them re-signed; reports duplicates', async () => {
    const handler = new Receiver();
    const handlerUrl = await handler.start();
    cleanups.push(() => handler.close());
    const dir = join(tempDir('mq-webhooks-'), 'rec');
    const env = { ...baseEnv(), MQ_WEBHOOK_SECRET: SECRET };
    const child = execa(
      process.execPath,
      [BIN, 'webhooks', 'listen', '--forward', handlerUrl, '--record', dir, '--json'],
      { env, extendEnv: false, reject: false, stdin: 'ignore' },
    );
    cleanups.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const docs = () =>
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l));
    await until(() => out.includes('\n'), 'the listening line');
    const listening = docs()[0].listening as string;
    expect(listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const started = await startTestEmulator({ webhooks: [{ url: listening, secret: SECRET }] });
    const emu: RunningEmulator = started.emu;
    cleanups.push(() => emu.close());
    const c = started.client;
    await c.post('createQueue', { ...queue, concurrency: 2 });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    await c.advance(30);
    const merged = () => docs().filter((d) => d.type === 'pull_request.merged').length;
    await until(() => merged() === 2, 'both PRs merged');
    await emu.close();
    // Everything printed was forwarded and recorded.
    await until(
      () => handler.got.length === docs().length - 1 && readdirSync(dir).length === handler.got.length,
      'quiet',
    );
    const lines = docs().slice(1);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.every((d) => d.status === 200 && d.result === 'valid' && d.forward?.status === 204)).toBe(true);
    // The handler got the emulator's bytes and headers unchanged: they verify.
    for (const g of handler.got) {
      expect(verifyWebhook(g.raw, g.headers as Record<string, string>, SECRET).ok).toBe(true);
    }
    const recorded = readdirSync(dir).sort();

    // Replay to another receiver: same bodies in order, re-signed, same ids.
    const other = new Receiver();
    const otherUrl = await other.start();
    cleanups.push(() => other.close());
    const replay = await runCli(['webhooks', 'replay', dir, '--to', otherUrl], { env });
    expect(replay.exitCode).toBe(0);
    expect(replay.stdout.trim().split('\n')).toHaveLength(recorded.length);
    expect(other.got.map((g) => g.raw.toString())).toEqual(handler.got.map((g) => g.raw.toString()));
    expect(other.got.map((g) => g.headers['svix-id'])).toEqual(lines.map((d) => d.id));
    for (const g of other.got) expect(verifyWebhook(g.raw, g.headers as Record<string, string>, SECRET).ok).toBe(true);

    // Replay to the listener: every svix-id was seen, so each is a duplicate (200), not forwarded again.
    const forwarded = handler.got.length;
    const again = await runCli(['webhooks', 'replay', dir, '--to', listening], { env });
    expect(again.exitCode).toBe(0);
    await until(() => docs().length === 1 + 2 * lines.length, 'the duplicate lines');
    expect(
      docs()
        .slice(1 + lines.length)
        .map((d) => d.result),
    ).toEqual(lines.map(() => 'duplicate'));
    expect(handler.got).toHaveLength(forwarded);

    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(0);
  }, 60_000);
});
