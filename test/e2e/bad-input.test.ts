import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, runCli, tempDir } from '../helpers/run-cli.js';

const fake = useFakeServer();

const cases: Array<{ name: string; args: string[]; message: RegExp; env?: Record<string, string> }> = [
  { name: 'negative PR number', args: ['status', '-5'], message: /unknown option '-5'|not a PR number/ },
  {
    name: 'PR number above 4294967295',
    args: ['submit', '4294967296'],
    message: /PR number: "4294967296" is not a PR number; expected an integer from 1 to 4294967295/,
  },
  { name: 'fractional PR number', args: ['cancel', '4.5'], message: /"4\.5" is not a PR number/ },
  { name: 'word as PR number', args: ['restart', 'abc'], message: /"abc" is not a PR number/ },
  {
    name: 'one bad number in a bulk list sends nothing',
    args: ['submit', '1', '2', 'x3'],
    message: /"x3" is not a PR number/,
  },
  {
    name: 'unknown priority name',
    args: ['submit', '42', '--priority', 'asap'],
    message: /--priority: "asap" is not a priority; expected urgent, high, medium, low or an integer from 0 to 255/,
  },
  {
    name: 'priority above 255',
    args: ['submit', '42', '--priority', '256'],
    message: /--priority: "256" is not a priority/,
  },
  {
    name: 'malformed --repo',
    args: ['status', '42', '--repo', 'just-a-name'],
    message: /--repo: "just-a-name" is not a repository; expected \[host\/\]owner\/name/,
  },
  {
    name: 'malformed --repo with too many parts',
    args: ['status', '42', '--repo', 'a/b/c/d'],
    message: /--repo: "a\/b\/c\/d" is not a repository/,
  },
  { name: 'unknown flag', args: ['status', '42', '--frobnicate'], message: /unknown option '--frobnicate'/ },
  {
    name: 'unreadable targets file',
    args: ['targets', '42', '--sha', 'abc1234', '--file', '/nonexistent/targets.txt'],
    message: /--file: cannot read \/nonexistent\/targets.txt \(ENOENT\)/,
  },
  {
    name: 'targets without a source',
    args: ['targets', '42', '--sha', 'abc1234'],
    message: /exactly one of --target, --file, --all or --none/,
  },
  {
    name: 'targets with two sources',
    args: ['targets', '42', '--sha', 'abc1234', '--all', '--target', 'x'],
    message: /exactly one of/,
  },
  {
    name: 'targets without --sha',
    args: ['targets', '42', '--all'],
    message: /--sha: the head commit sha of the PR is required/,
  },
  { name: 'unknown output format', args: ['status', '42', '-o', 'yaml'], message: /argument 'yaml' is invalid/ },
  {
    name: 'bad --timeout',
    args: ['status', '42', '--timeout', 'soon'],
    message: /--timeout: "soon" is not a duration/,
  },
  {
    name: 'malformed MQ_REPO',
    args: ['status', '42'],
    env: { MQ_REPO: 'nope' },
    message: /MQ_REPO: "nope" is not a repository/,
  },
  { name: 'unknown command', args: ['stauts', '42'], message: /unknown command 'stauts'/ },
  {
    name: '--parallel 0',
    args: ['submit', '1', '2', '--parallel', '0'],
    message: /--parallel: "0" must be an integer from 1 to 64/,
  },
  { name: '--wait with several PRs', args: ['submit', '1', '2', '--wait'], message: /--wait takes one PR/ },
  {
    name: '--interval without --wait',
    args: ['submit', '1', '--interval', '5s'],
    message: /--interval only applies with --wait/,
  },
  {
    name: '--requeue out of range',
    args: ['submit', '1', '--wait', '--requeue', '11'],
    message: /--requeue: "11" must be an integer from 0 to 10\nhint: the most resubmits/,
  },
  {
    name: 'a --timeout past what timers can hold',
    args: ['status', '7', '--timeout', '25d'],
    message: /--timeout: must be at most 24 days/,
  },
  {
    name: 'a malformed --api-url flag',
    args: ['status', '7', '--api-url', 'ftp://x/v1'],
    message: /must use https:\/\/ or http:\/\//,
  },
  { name: 'a missing subcommand', args: ['queue'], message: /.*/ },
  // Options that do not apply (issue 14, item 6): refused centrally, before anything is sent.
  {
    name: 'submit -o markdown (prints nothing)',
    args: ['submit', '42', '-o', 'markdown'],
    message: /-o markdown: mq submit has no markdown output/,
  },
  {
    name: 'cancel -o raw (prints nothing)',
    args: ['cancel', '42', '-o', 'raw'],
    message: /-o raw: mq cancel has no raw output/,
  },
  {
    name: 'demo -o markdown',
    args: ['demo', '-o', 'markdown'],
    message: /-o markdown: mq demo has no markdown output; it supports -o table, -o plain, --json/,
  },
  {
    name: 'emulator start --json',
    args: ['emulator', 'start', '--json'],
    message: /--json: mq emulator start has no json output/,
  },
  {
    name: 'completion bash --json (a script is not JSON)',
    args: ['completion', 'bash', '--json'],
    message: /--json: mq completion has no json output/,
  },
  {
    name: '--batch --no-batch together',
    args: ['queue', 'update', '--batch', '--no-batch'],
    message: /--batch and --no-batch: give one or the other, not both/,
  },
  {
    name: 'submit --batch --no-batch (only --no-batch exists)',
    args: ['submit', '42', '--batch', '--no-batch'],
    message: /--batch and --no-batch: give one or the other/,
  },
  {
    name: '--no-color --color',
    args: ['status', '42', '--no-color', '--color'],
    message: /--color and --no-color: give one or the other/,
  },
  {
    name: 'a single-value option given twice',
    args: ['submit', '42', '--priority', 'high', '--priority', 'low'],
    message: /--priority \(-p\): given twice \("high" and "low"\); it takes one value/,
  },
  {
    name: 'a global option given twice',
    args: ['-B', 'a', 'status', '42', '-B', 'b'],
    message: /--branch \(-B\): given twice \("a" and "b"\)/,
  },
  {
    name: 'a value option given twice with =',
    args: ['wait', '42', '--interval=1s', '--interval', '2s'],
    message: /--interval: given twice/,
  },
];

describe('bad input: exit 2, one line naming the rule, nothing sent', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = await runCli(c.args, { env: { ...baseEnv(fake.url), ...c.env } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(c.message);
      if (c.name !== 'a missing subcommand') expect(r.stderr.split('\n')[0]).toMatch(/^mq: usage: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(fake.requests).toHaveLength(0);
    });
  }

  it('the hint names the command being parsed, even after global options', async () => {
    const r = await runCli(['-R', 'acme/widgets', 'queue', 'update', '--concurrency', '0'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('hint: see `mq queue update --help`');
  });

  it('suggests the closest command', async () => {
    const r = await runCli(['stauts', '42'], { env: baseEnv(fake.url) });
    expect(r.stderr).toContain('hint: did you mean status?');
  });

  it('a targets file over 20 MiB is refused while reading, with a hint to use --all', async () => {
    const dir = tempDir();
    const file = join(dir, 'targets.txt');
    // ~21 MiB of targets.
    const line = `//very/long/bazel/package/path/to/a/target:name_${'x'.repeat(60)}\n`;
    writeFileSync(file, line.repeat(Math.ceil((21 * 1024 * 1024) / line.length)));
    const r = await runCli(['targets', '42', '--sha', 'abc1234', '--file', file], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--file: .* is over the limit of 20 MiB/);
    expect(r.stderr).toContain('hint: send --all instead');
    expect(fake.requests).toHaveLength(0);
  });

  it('a target list whose request is over 20 MiB is refused before sending, with a hint to use --all', async () => {
    const dir = tempDir();
    const file = join(dir, 'targets.txt');
    // ~19 MiB of short targets: under the file limit, over 20 MiB once written as a JSON request.
    writeFileSync(file, '//t\n'.repeat(Math.ceil((19 * 1024 * 1024) / 4)));
    const r = await runCli(['targets', '42', '--sha', 'abc1234', '--file', file], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MiB request; the service accepts at most 20 MiB/);
    expect(r.stderr).toContain('hint: send --all instead');
    expect(fake.requests).toHaveLength(0);
  });

  it('a missing token is exit 7 with a hint, and nothing is sent', async () => {
    const env = { ...baseEnv(fake.url), MQ_TOKEN: '' };
    const r = await runCli(['status', '42'], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('no API token');
    expect(r.stderr).toContain('hint: run `mq auth login`, or set MQ_TOKEN');
    expect(fake.requests).toHaveLength(0);
  });

  it('plain http to a non-loopback host is refused (exit 7) unless --insecure-http', async () => {
    const env = { ...baseEnv(fake.url), MQ_API_URL: 'http://mq.example.com/v1' };
    const r = await runCli(['status', '42'], { env });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('refusing to send the token over plain http:// to mq.example.com');
  });
});
