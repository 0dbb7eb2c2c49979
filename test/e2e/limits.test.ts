/**
 * The built binary under hostile input sizes and the JSON error document: spawned, because the
 * point is the real process (its streams, memory and exit code).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, BIN, runCli } from '../helpers/run-cli.js';

const fake = useFakeServer();

/** Runs `bash -c script` with mq on PATH as `$MQ`, and reports the peak memory of the whole run (GNU time when present). */
async function shell(script: string) {
  return execa('bash', ['-c', script], {
    env: { ...baseEnv(fake.url), MQ: `"${process.execPath}" "${BIN}"` },
    extendEnv: false,
    reject: false,
    timeout: 20_000,
  });
}

describe('bounded input', () => {
  it('mq targets --file /dev/zero stops at 20 MiB with exit 2, nothing sent', async () => {
    fake.requests.length = 0;
    const r = await runCli(['targets', '1', '--sha', 'abc1234', '--file', '/dev/zero'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--file: /dev/zero is over the limit of 20 MiB');
    expect(fake.requests).toHaveLength(0);
  });

  it('yes 1 | mq submit - stops at the PR list limit (1 MiB) with exit 2, nothing sent', async () => {
    fake.requests.length = 0;
    const r = await shell('yes 1 | eval "$MQ submit -"; echo "exit=${PIPESTATUS[1]}"');
    expect(r.stdout).toContain('exit=2');
    expect(r.stderr).toContain('PR list: standard input is over the limit of 1 MiB');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the JSON error document', () => {
  it('-o json on failure prints the document, as --json does', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'never submitted' });
    for (const args of [
      ['status', '42', '--json'],
      ['status', '42', '-o', 'json'],
    ]) {
      const r = await runCli(args, { env: baseEnv(fake.url) });
      expect(r.exitCode).toBe(3);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { exitCode: 3 } });
    }
  });

  it('a usage error under -o json is a document too', async () => {
    const r = await runCli(['-o', 'json', 'status', 'abc'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { exitCode: 2, kind: 'usage' } });
  });
});
