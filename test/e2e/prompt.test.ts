/**
 * The prompts on a real pseudo-terminal (util-linux `script`): keys are written only once the
 * question is on the screen, so readline has the terminal in raw mode and sees Ctrl-D (0x04) as
 * a key, as it would from a person.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, BIN } from '../helpers/run-cli.js';
import { queueRecord } from '../helpers/test-context.js';

const hasScript =
  (await execa('script', ['--version'], { reject: false }).catch(() => ({ exitCode: 1 }))).exitCode === 0;

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getQueue', { status: 200, body: queueRecord() });
  fake.on('POST /deleteQueue', { status: 200, body: 'OK' });
});

/** Runs `mq args` on a terminal; once `question` is shown, types `keys`. */
function onTerminal(
  args: string[],
  env: Record<string, string | undefined>,
  question: string,
  keys: string,
): Promise<{ exitCode: number | null; output: string }> {
  const command = [process.execPath, BIN, ...args].join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let typed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (!typed && output.includes(question)) {
      typed = true;
      child.stdin.write(keys);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      clearTimeout(killer);
      resolve({ exitCode, output });
    });
  });
}

describe.skipIf(!hasScript)('the hidden token prompt', () => {
  it('a typed token is saved and never echoed', async () => {
    const env = baseEnv();
    const r = await onTerminal(['auth', 'login'], env, 'API token (input hidden):', 'tok_typed_at_prompt_42\r');
    expect(r.exitCode).toBe(0);
    expect(r.output).not.toContain('tok_typed_at_prompt_42');
    expect(r.output).toContain('✓ saved the token in profile "default"');
    const data = JSON.parse(readFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), 'utf8'));
    expect(data.profiles.default.token).toBe('tok_typed_at_prompt_42');
  });

  it('Ctrl-D is "no token entered", exit 2 (not 13), nothing saved', async () => {
    const env = baseEnv();
    const r = await onTerminal(['auth', 'login'], env, 'API token (input hidden):', '\x04');
    expect(r.output).toContain('mq: usage: no token entered');
    expect(r.output).toMatch(/API token \(input hidden\): \r?\nmq: usage/);
    expect(r.exitCode).toBe(2);
    expect(existsSync(join(env.MQ_CONFIG_DIR as string, 'config.json'))).toBe(false);
  });

  it('Ctrl-C is "interrupted", exit 130', async () => {
    const r = await onTerminal(['auth', 'login'], baseEnv(), 'API token (input hidden):', '\x03');
    expect(r.output).toContain('mq: interrupted');
    // on a line of its own, not after the question
    expect(r.output).toMatch(/API token \(input hidden\): \r?\nmq: interrupted/);
    expect(r.exitCode).toBe(130);
  });
});

describe.skipIf(!hasScript)('the delete confirmation', () => {
  it('Ctrl-D is "not confirmed", exit 10 (not 13), nothing deleted', async () => {
    const r = await onTerminal(['queue', 'delete'], baseEnv(fake.url), 'to confirm:', '\x04');
    expect(r.output).toContain('not confirmed (expected "main"); nothing was deleted');
    expect(r.exitCode).toBe(10);
    expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue']);
  });

  it('Ctrl-C: "mq: interrupted" on a line of its own, exit 130, nothing deleted', async () => {
    const r = await onTerminal(['queue', 'delete'], baseEnv(fake.url), 'to confirm:', '\x03');
    expect(r.output).toMatch(/to confirm: \r?\nmq: interrupted/);
    expect(r.exitCode).toBe(130);
    expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue']);
  });
});
