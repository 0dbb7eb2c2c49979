/**
 * Messages that help (issue 14 items 5 and 8): what a command says on stderr when the service's
 * answer needs explaining, against a scripted fake service.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseEnv } from '../helpers/run-cli.js';
import { runMq } from '../helpers/in-process.js';
import { queueRecord } from '../helpers/test-context.js';

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  for (const route of ['submitPullRequest', 'cancelPullRequest']) fake.on(`POST /${route}`, { status: 200, body: 'OK' });
  fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'running' }) });
});
const env = () => baseEnv(fake.url);

describe('submitting to a queue that admits no PRs', () => {
  for (const [state, words] of [
    ['draining', 'warning: queued, but the queue is draining: it will not start testing'],
    ['paused', 'warning: queued, but the queue is paused: it will not start testing until it is resumed'],
    ['switching_modes', 'warning: queued, but the queue is switching modes'],
  ] as const) {
    it(`${state}: says so on stderr after the confirmation, exit 0`, async () => {
      fake.on('POST /getQueue', { status: 200, body: queueRecord({ state }) });
      const one = await runMq(['submit', '42'], { env: env() });
      expect(one.exitCode).toBe(0);
      expect(one.stdout).toBe('');
      const lines = one.stderr.trimEnd().split('\n');
      expect(lines[0]).toContain('✓ submitted PR #42');
      expect(lines[1]).toContain(words);
      const bulk = await runMq(['submit', '1', '2', '--json'], { env: env() });
      expect(bulk.stderr).toContain(words);
      expect(bulk.stderr.split(words)).toHaveLength(2);
    });
  }

  it('a running queue: nothing more; an unreadable queue: nothing more either', async () => {
    const running = await runMq(['submit', '42'], { env: env() });
    expect(running.stderr).not.toContain('warning');
    fake.on('POST /getQueue', { status: 404, body: 'no queue' });
    const missing = await runMq(['submit', '42'], { env: env() });
    expect(missing.exitCode).toBe(0);
    expect(missing.stderr).not.toContain('warning');
  });
});

describe('usage hints name the command being run', () => {
  for (const [args, command] of [
    [['cancel', 'abc'], 'mq cancel'],
    [['restart', '#x'], 'mq restart'],
    [['wait', '4.2'], 'mq wait'],
    [['submit', '1', 'two'], 'mq submit'],
    [['status', 'abc'], 'mq status'],
  ] as const) {
    it(`mq ${args.join(' ')}: the example is \`${command} 42\``, async () => {
      const r = await runMq([...args], { env: env() });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`hint: for example: ${command} 42\n`);
      expect(r.stderr).toContain(`hint: see \`${command} --help\``);
      if (command !== 'mq status') expect(r.stderr).not.toContain('mq status');
    });
  }

  it('no PR number (outside GitHub Actions): the example is the command run', async () => {
    const r = await runMq(['cancel'], { env: { ...env(), GITHUB_ACTIONS: '' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('mq: usage: no PR number given');
    expect(r.stderr).toContain('hint: for example: mq cancel 42');
    expect(r.stderr).not.toContain('mq status');
  });
});

describe('an API URL without /v1', () => {
  it('a 404 says the URL lacks /v1 and what to try', async () => {
    fake.on('POST /getQueue', { status: 404, body: 'no such endpoint: /getQueue' });
    const bare = fake.url.replace(/\/v1$/, '');
    const r = await runMq(['queue', 'show'], { env: { ...env(), MQ_API_URL: bare } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`hint: the API URL ${bare} does not end in /v1, where the service's endpoints are: try --api-url ${bare}/v1`);
  });

  it('with /v1, a 404 is the service saying the queue does not exist: no such hint', async () => {
    fake.on('POST /getQueue', { status: 404, body: 'merge queue not found' });
    const r = await runMq(['queue', 'show'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).not.toContain('/v1');
  });
});
