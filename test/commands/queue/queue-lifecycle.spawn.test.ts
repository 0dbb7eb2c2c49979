import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../helpers/fake-server.js';
import { baseEnv, BIN, runCli } from '../../helpers/run-cli.js';
import { entry, queueRecord } from '../../helpers/test-context.js';

const hasScript =
  (await execa('script', ['--version'], { reject: false }).catch(() => ({ exitCode: 1 }))).exitCode === 0;
const TARGET = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getQueue', { status: 200, body: queueRecord() });
  fake.on('POST /deleteQueue', { status: 200, body: 'OK' });
});
const env = () => baseEnv(fake.url);
const paths = () => fake.requests.map((r) => r.path);

describe('mq queue create', () => {
  it('sends mode and concurrency, then shows the new queue', async () => {
    fake.on('POST /createQueue', { status: 200, body: '' });
    const r = await runCli(['queue', 'create', '--mode', 'parallel', '--concurrency', '4', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests[0]?.path).toBe('/createQueue');
    expect(fake.requests[0]?.body).toEqual({ ...TARGET, mode: 'parallel', concurrency: 4 });
    expect(JSON.parse(r.stdout)).toMatchObject({
      created: true,
      targetBranch: 'main',
      mode: 'parallel',
      concurrency: 4,
    });
  });

  it('sends only the target when no option is given', async () => {
    fake.on('POST /createQueue', { status: 200, body: 'OK' });
    const r = await runCli(['queue', 'create', '--branch', 'release'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests[0]?.body).toEqual({ ...TARGET, targetBranch: 'release' });
    expect(r.stderr).toContain('✓ created the queue for release of github.com/acme/widgets');
  });

  it('a queue that already exists: exit 5 naming the branch', async () => {
    fake.on('POST /createQueue', {
      status: 409,
      body: 'A merge queue already exists for branch "release" in this repository',
    });
    const r = await runCli(['queue', 'create', '--branch', 'release'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain(
      'mq: create the queue for release: a queue for branch "release" already exists in github.com/acme/widgets (HTTP 409)',
    );
    expect(r.stderr).toContain('hint: see it with `mq queue show --branch release`');
  });

  it('bad --mode or --concurrency: exit 2, nothing sent', async () => {
    for (const args of [
      ['--mode', 'both'],
      ['--concurrency', '0'],
    ]) {
      const r = await runCli(['queue', 'create', ...args], { env: env() });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/mq: usage: --(mode|concurrency): /);
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe('mq queue delete', () => {
  it('--yes deletes an empty queue without asking', async () => {
    const r = await runCli(['queue', 'delete', '--yes', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(paths()).toEqual(['/getQueue', '/deleteQueue']);
    expect(fake.requests[1]?.body).toEqual(TARGET);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: true, repo: 'github.com/acme/widgets', targetBranch: 'main' });
  });

  it('no terminal and no --yes: exit 10 and nothing sent', async () => {
    const r = await runCli(['queue', 'delete'], { env: env(), input: 'main\n' });
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain(
      'mq: delete the queue for main: confirmation needed, but there is no terminal to ask on',
    );
    expect(r.stderr).toContain('hint: pass --yes');
    expect(fake.requests).toHaveLength(0);
  });

  it('a non-empty queue is refused with the count and a hint, nothing deleted', async () => {
    fake.on('POST /getQueue', {
      status: 200,
      body: queueRecord({}, [entry(11, 'testing'), entry(12, 'pending'), entry(13, 'tests_passed')]),
    });
    const r = await runCli(['queue', 'delete', '--yes'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain(
      'mq: delete the queue for main: the queue is not empty: 3 PRs are enqueued (#11, #12, #13)',
    );
    expect(r.stderr).toContain('hint: let them finish and admit no more: `mq queue drain --wait`, then delete');
    expect(r.stderr).toContain('hint: or take them out: `mq cancel 11 12 13`');
    expect(paths()).toEqual(['/getQueue']);
  });

  it('--dry-run prints the request and deletes nothing', async () => {
    const r = await runCli(['queue', 'delete', '--dry-run'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(paths()).toEqual(['/getQueue']);
    expect(r.stdout).toContain(`POST ${fake.url}/deleteQueue`);
  });

  // A real pseudo-terminal: util-linux `script` runs mq with the pty as stdin, stdout and stderr,
  // and forwards what the test writes to its stdin (typed before the prompt; the tty buffers it).
  async function onTerminal(answer: string) {
    const command = `${process.execPath} ${BIN} queue delete`;
    const r = await execa('script', ['-qfec', command, '/dev/null'], {
      env: { ...env(), TERM: 'dumb' },
      extendEnv: false,
      input: `${answer}\n`,
      reject: false,
      timeout: 15_000,
    });
    return { exitCode: r.exitCode, output: String(r.stdout) };
  }

  it.skipIf(!hasScript)('on a terminal: typing the branch name deletes', async () => {
    const r = await onTerminal('main');
    expect(r.output).toContain('Type the branch name (main) to confirm:');
    expect(r.output).toContain('✓ deleted the queue for main of github.com/acme/widgets');
    expect(r.exitCode).toBe(0);
    expect(paths()).toEqual(['/getQueue', '/deleteQueue']);
  });

  it.skipIf(!hasScript)('on a terminal: any other answer exits 10 and deletes nothing', async () => {
    const r = await onTerminal('mian');
    expect(r.output).toContain('not confirmed (expected "main"); nothing was deleted');
    expect(r.exitCode).toBe(10);
    expect(paths()).toEqual(['/getQueue']);
  });

  it.skipIf(!hasScript)('on a terminal with CI set: no prompt, exit 10', async () => {
    const command = `${process.execPath} ${BIN} queue delete`;
    const r = await execa('script', ['-qfec', command, '/dev/null'], {
      env: { ...env(), CI: 'true' },
      extendEnv: false,
      input: 'main\n',
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode).toBe(10);
    expect(String(r.stdout)).not.toContain('Type the branch name');
    expect(fake.requests).toHaveLength(0);
  });
});
