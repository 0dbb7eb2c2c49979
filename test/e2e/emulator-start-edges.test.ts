/**
 * Edges of `mq emulator start`: an empty --host, the export line of a wildcard host (mq must
 * accept it), MQ_EMULATOR_TOKEN's length, a --data-dir that cannot be written (fails at once), and
 * SIGTERM. Which hosts are loopback: test/emulator/start-command.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { runEmulatorStart } from '../../src/emulator/index.js';
import { TOKEN, baseEnv, runCli } from '../helpers/run-cli.js';
import { capture, until } from '../emulator/http-helpers.js';
import { runChild, startChild } from '../emulator/persistence-child.js';

describe('--host', () => {
  it("refuses --host '' with a usage exit", async () => {
    const { out, err, io } = capture();
    expect(await runEmulatorStart({ host: '', hostExplicit: true, port: 0 }, io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain('--host must not be empty');
    const cli = await runCli(['emulator', 'start', '--port', '0', '--host', '']);
    expect(cli.exitCode).toBe(2);
    expect(cli.stdout).toBe('');
  });

  it('with --host 0.0.0.0 prints an export line with a loopback URL that mq accepts', async () => {
    const { out, err, io } = capture();
    const stop = new AbortController();
    const done = runEmulatorStart(
      { host: '0.0.0.0', hostExplicit: true, port: 0, token: TOKEN, clock: 'manual', signal: stop.signal },
      io,
    );
    try {
      await until(() => out.join('').split('\n').length > 3);
      const lines = out.join('').split('\n');
      expect(lines[0]).toMatch(/^mq emulator listening on http:\/\/0\.0\.0\.0:\d+\/v1$/);
      const port = /:(\d+)\/v1$/.exec(lines[0]!)![1];
      expect(lines[1]).toBe(`export MQ_API_URL=http://127.0.0.1:${port}/v1`);
      expect(err.join('')).toContain('reachable from other machines');
      const url = lines[1]!.slice('export MQ_API_URL='.length);
      const r = await runCli(['queue', 'create'], { env: baseEnv(url) });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain('created the queue');
    } finally {
      stop.abort();
      expect(await done).toBe(0);
    }
  });
});

describe('tokens and data dirs', () => {
  it('holds MQ_EMULATOR_TOKEN to the same minimum length as --token', async () => {
    const short = await runCli(['emulator', 'start', '--port', '0'], {
      env: { ...baseEnv(), MQ_EMULATOR_TOKEN: 'short' },
    });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('MQ_EMULATOR_TOKEN: use at least 8 characters');
    expect(short.stdout).toBe('');
    const flag = await runCli(['emulator', 'start', '--port', '0', '--token', 'short']);
    expect(flag.exitCode).toBe(2);
  });

  it('fails at once with a clear message for a --data-dir it cannot write', async () => {
    for (const dir of ['/proc/mq-emulator-data', '/proc/self/mq/x']) {
      const r = await runChild(['--data-dir', dir], 8_000);
      expect(r.code, dir).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`--data-dir ${dir} cannot be used`);
      expect(r.stderr).toContain('hint:');
    }
  }, 30_000);

  it('exits 0 on SIGTERM', async () => {
    const emu = await startChild(['--clock', 'manual']);
    emu.child.kill('SIGTERM');
    expect(await emu.exited).toEqual({ code: 0, signal: null });
    expect(emu.stderr()).toContain('stopping');
  });
});
