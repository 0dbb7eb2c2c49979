/**
 * Messages that help (issue 14 items 5 and 8): what a command says on stderr when the service's
 * answer needs explaining, against a scripted fake service.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, tempDir } from '../helpers/run-cli.js';
import { runMq } from '../helpers/in-process.js';
import { entry, queueRecord } from '../helpers/test-context.js';

const fake = useFakeServer();
beforeEach(() => {
  for (const route of ['submitPullRequest', 'cancelPullRequest'])
    fake.on(`POST /${route}`, { status: 200, body: 'OK' });
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

  it('the state is read alone: a queue whose PR list does not decode still warns', async () => {
    fake.on('POST /getQueue', {
      status: 200,
      body: { ...queueRecord({ state: 'DRAINING' }), enqueuedPullRequests: [{ prNumber: 'not a number' }] },
    });
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('warning: queued, but the queue is draining');
  });

  it('a state that is a name of every object (`constructor`) is no state: nothing more', async () => {
    fake.on('POST /getQueue', { status: 200, body: queueRecord({ state: 'constructor' }) });
    const r = await runMq(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain('warning');
    expect(r.stderr).not.toContain('function');
  });

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
  it('with --api v1, a 404 says the URL lacks /v1 and what to try', async () => {
    fake.on('POST /getQueue', { status: 404, body: 'no such endpoint: /getQueue' });
    const bare = fake.url.replace(/\/v1$/, '');
    const r = await runMq(['queue', 'show'], { env: { ...env(), MQ_API_URL: bare, MQ_API: 'v1' } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(
      `hint: the API URL ${bare} does not end in /v1, where the service's endpoints are: try --api-url ${bare}/v1`,
    );
  });

  it('with /v1, a 404 is the service saying the queue does not exist: no such hint', async () => {
    fake.on('POST /getQueue', { status: 404, body: 'merge queue not found' });
    const r = await runMq(['queue', 'show'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).not.toContain('/v1');
  });
});

describe('auth login checks the token and names the URL it stored', () => {
  const loginEnv = (): Record<string, string | undefined> => ({
    ...baseEnv(),
    MQ_TOKEN: undefined,
    MQ_API_URL: undefined,
    MQ_REPO: 'acme/widgets',
    MQ_BRANCH: 'main',
  });
  const login = (url: string) => {
    const e = loginEnv();
    return runMq(['--api-url', url, 'auth', 'login', '--with-token'], { env: e, input: 'tok_login_check_1\n' }).then(
      (r) => ({ r, e }),
    );
  };
  const stored = async (e: Record<string, string | undefined>) =>
    JSON.parse((await runMq(['auth', 'status', '--json'], { env: { ...e, MQ_API_URL: undefined } })).stdout).token.set;

  it('a token the service accepts: saved, with the URL, and "accepted"', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'pull request not found' });
    const { r, e } = await login(fake.url);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`" (${e.MQ_CONFIG_DIR}/config.json) for ${fake.url}\n`);
    expect(r.stderr).toContain('✓ the service accepted the token');
    expect(fake.requests.map((q) => q.path)).toEqual(['/getSubmittedPullRequest']);
    expect(fake.requests[0]?.headers['x-api-token']).toBe('tok_login_check_1');
  });

  it('a token the service refuses: exit 4, not saved', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 401, body: 'invalid API token' });
    const { r, e } = await login(fake.url);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(
      `mq: auth login: ${fake.url} refused the token (the service answered HTTP 401: invalid API token); it was not saved`,
    );
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'x' });
    expect(await stored(e)).toBe(false);
  });

  it('a service that cannot be reached: saved, and it says the token was not checked', async () => {
    const { r, e } = await login('http://127.0.0.1:1/v1');
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('for http://127.0.0.1:1/v1');
    expect(r.stderr).toMatch(/warning: could not check the token: cannot connect to 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
    expect(await stored(e)).toBe(true);
  });
});

describe('auth status says why the repository or branch is not known', () => {
  const clone = (origin: boolean): string => {
    const dir = tempDir('mq-git-');
    mkdirSync(join(dir, '.git', 'refs', 'remotes', 'origin'), { recursive: true });
    const remote = origin ? '[remote "origin"]\n\turl = git@github.com:acme/widgets.git\n' : '';
    writeFileSync(join(dir, '.git', 'config'), `[core]\n\tbare = false\n${remote}`);
    return dir;
  };
  const status = (cwd: string) =>
    runMq(['auth', 'status', '-o', 'table'], { env: { ...env(), MQ_REPO: undefined, MQ_BRANCH: undefined }, cwd });

  beforeEach(() => {
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'not found' });
  });

  it('origin without origin/HEAD: the branch is not set, and `git remote set-head origin --auto` is suggested', async () => {
    const r = await status(clone(true));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Repository +github\.com\/acme\/widgets \(git remote origin\)/);
    expect(r.stdout).toMatch(/Target branch +\(not set: origin\/HEAD is not set in this clone\)/);
    expect(r.stderr).toContain('hint: record the remote default branch: git remote set-head origin --auto');
  });

  it('no remote: both say so, and set-head is not suggested', async () => {
    const r = await status(clone(false));
    expect(r.stdout).toMatch(/Repository +\(not set: this git clone has no remote named origin\)/);
    expect(r.stdout).toMatch(/Target branch +\(not set: this git clone has no remote named origin\)/);
    expect(r.stderr).not.toContain('set-head');
  });

  it('a bad flag is refused on its own: one usage line first, no report, nothing sent (found by the argument fuzzer)', async () => {
    const before = fake.requests.length;
    const r = await runMq(['auth', 'status', '--timeout', 'ALL', '--repo', '0'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mq: usage: --timeout: "ALL" is not a duration/);
    expect(r.stdout).toBe('');
    expect(fake.requests.length).toBe(before);
  });
});

describe('queue update explains what the service did', () => {
  const before = queueRecord({ mode: 'single', concurrency: 3, bisectionConcurrency: 2 });
  const { enqueuedPullRequests: _e, ...after } = before;
  const update = (answer: Record<string, unknown>, flags: string[]) => {
    fake.on('POST /getQueue', { status: 200, body: before });
    fake.on('POST /updateQueue', { status: 200, body: { ...after, ...answer } });
    return runMq(['queue', 'update', ...flags, '-o', 'table'], { env: env() });
  };

  it('nothing changed: "nothing changed", no "Changed" heading', async () => {
    const r = await update({}, ['--concurrency', '3']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(/^Changed/m);
    expect(r.stdout).toContain('Nothing changed, for main of github.com/acme/widgets:');
    expect(r.stdout).toMatch(/concurrency\s+3 \(unchanged\)/);
    expect(r.stderr).toContain('✓ updated the queue for main of github.com/acme/widgets: nothing changed');
    expect(r.stderr).not.toContain('0 settings');
  });

  it('a mode switch the service has only started reads as the mode in transition', async () => {
    const r = await update({ state: 'switching_modes', mode: 'single' }, ['--mode', 'parallel']);
    expect(r.stdout).toContain('Changed, for main');
    expect(r.stdout).toMatch(
      /mode\s+single -> parallel \(switching_modes: the queue switches once the PRs in flight are done\)/,
    );
    expect(r.stdout).not.toContain('(unchanged)');
    expect(r.stderr).toContain('QUEUE SWITCHING MODES');
  });

  it('settings the service changed unasked are named', async () => {
    const r = await update({ concurrency: 5, bisectionConcurrency: 5 }, ['--concurrency', '5']);
    expect(r.stdout).toMatch(/bisection-concurrency\s+2 -> 5 \(changed by the service, not asked for\)/);
    expect(r.stdout).toMatch(/concurrency\s+3 -> 5\n/);
    expect(r.stderr).toContain(
      'note: the service also changed bisection-concurrency (2 -> 5), which you did not ask for',
    );
  });
});

describe('cancelling an already-cancelled PR', () => {
  const record = (state: string) => ({
    status: 200,
    body: { prNumber: 42, state, stateChangedAt: '2026-11-22T10:00:00.000Z' },
  });
  const notInQueue = { status: 404, body: 'pull request #42 is not in the merge queue' };

  it('exit 0, "already cancelled"', async () => {
    fake.on('POST /cancelPullRequest', notInQueue);
    fake.on('POST /getSubmittedPullRequest', record('cancelled'));
    const r = await runMq(['cancel', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('✓ PR #42 was already cancelled\n');
    const doc = JSON.parse((await runMq(['cancel', '42', '--json'], { env: env() })).stdout);
    expect(doc).toMatchObject({ pr: 42, ok: true, state: 'cancelled', alreadyCancelled: true });
  });

  it('a PR that merged, or was never submitted, is still an error (exit 3)', async () => {
    fake.on('POST /cancelPullRequest', notInQueue);
    fake.on('POST /getSubmittedPullRequest', record('merged'));
    expect((await runMq(['cancel', '42'], { env: env() })).exitCode).toBe(3);
    fake.on('POST /getSubmittedPullRequest', { status: 404, body: 'never submitted' });
    const r = await runMq(['cancel', '42'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('not in the merge queue');
  });
});

describe('bulk output: the PRs in the order given, once each', () => {
  it('answers landing in reverse order are still listed as given', async () => {
    const { Context } = await import('../../src/context.js');
    const { run } = await import('../../src/run.js');
    const { memoryIO } = await import('../helpers/memory-io.js');
    const { fakeClient } = await import('../helpers/fake-client.js');
    // 30 answers first, then 20 once 30 is done, then 10: the completion order is 30, 20, 10.
    const done = new Map<number, () => void>();
    const finished = new Map<number, Promise<void>>(
      [30, 20, 10].map((n) => [n, new Promise<void>((res) => done.set(n, res))]),
    );
    const after: Record<number, number | undefined> = { 30: undefined, 20: 30, 10: 20 };
    const fake = fakeClient({
      cancelPullRequest: [
        async (req: unknown) => {
          const n = (req as { pr: { number: number } }).pr.number;
          const wait = after[n];
          if (wait !== undefined) await finished.get(wait);
          done.get(n)?.();
          return undefined;
        },
      ],
      getSubmittedPullRequest: [
        (req: unknown) => ({ prNumber: (req as { pr: { number: number } }).pr.number, state: 'cancelled' }),
      ],
    });
    const io = memoryIO({});
    const ctx = new Context({
      env: env() as NodeJS.ProcessEnv,
      io,
      cwd: tempDir('mq-cwd-'),
      client: async () => fake.client,
    });
    const code = await run(ctx, ['cancel', '10', '20', '#10', '30', '20']);
    expect(code).toBe(0);
    expect(fake.callsOf('cancelPullRequest').map((c) => (c.req as { pr: { number: number } }).pr.number)).toEqual([
      10, 20, 30,
    ]);
    expect(io.stderr.trimEnd().split('\n')).toEqual([
      '✓ #10 cancelled (now cancelled)',
      '✓ #20 cancelled (now cancelled)',
      '✓ #30 cancelled (now cancelled)',
      '3 of 3 succeeded',
    ]);
  });
});

describe('Ctrl-C during drain --wait', () => {
  it('says the queue stays draining and how to resume, exit 130', async () => {
    const { Context } = await import('../../src/context.js');
    const { run } = await import('../../src/run.js');
    const { memoryIO } = await import('../helpers/memory-io.js');
    const { fakeClient } = await import('../helpers/fake-client.js');
    const { virtualClock } = await import('../helpers/clock.js');
    const controller = new AbortController();
    const busy = queueRecord({ state: 'draining' }, [entry(7, 'testing')]);
    let polls = 0;
    const fake = fakeClient({
      getQueueState: ['running'],
      getQueue: [
        queueRecord({ state: 'running' }, [entry(7, 'testing')]),
        () => {
          // The second poll sees PRs still in flight, and then the user presses Ctrl-C.
          if (++polls === 2) controller.abort();
          return busy;
        },
      ],
      updateQueue: [busy],
    });
    const io = memoryIO({});
    const ctx = new Context({
      env: env() as NodeJS.ProcessEnv,
      io,
      cwd: tempDir('mq-cwd-'),
      clock: virtualClock(),
      signal: controller.signal,
      client: async () => fake.client,
    });
    const code = await run(ctx, ['queue', 'drain', '--wait']);
    expect(code).toBe(130);
    expect(io.stderr).toContain(
      'mq: interrupted: stopped waiting; the queue stays draining (PRs in it are still tested and merged, no new PRs enter)\n',
    );
    expect(io.stderr).toContain(
      'hint: reopen it with `mq queue resume --branch main`, or wait again with `mq queue drain --wait --branch main`',
    );
  });
});

describe('interrupt and prompt messages start on a new line', () => {
  it('Ctrl-C at the delete confirmation: "mq: interrupted" below the question, not after it', async () => {
    const { Context } = await import('../../src/context.js');
    const { run } = await import('../../src/run.js');
    const { memoryIO } = await import('../helpers/memory-io.js');
    fake.on('POST /getQueue', { status: 200, body: queueRecord() });
    const io = memoryIO({ stdinIsTTY: true, stderrIsTTY: true, stdoutIsTTY: true, answers: ['\u0003'] });
    const ctx = new Context({ env: { ...env(), CI: undefined } as NodeJS.ProcessEnv, io, cwd: tempDir('mq-cwd-') });
    const code = await run(ctx, ['queue', 'delete']);
    expect(code).toBe(130);
    expect(io.stderr).toMatch(/Type the branch name \(main\) to confirm: \nmq: interrupted/);
    expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue']);
  });

  it('an error after a progress line (no newline yet) starts on the next line; after a full line, no blank line', async () => {
    const { presentError } = await import('../../src/output/present-error.js');
    const { memoryIO } = await import('../helpers/memory-io.js');
    const { interrupted } = await import('../../src/util/clock.js');
    const io = memoryIO({ stderrIsTTY: true });
    io.err('\r\u001b[Kreading history: 40 test results, 12 PRs');
    expect(presentError({ io, json: false, debug: false, commandPath: 'mq queue stats' }, interrupted())).toBe(130);
    expect(io.stderr).toBe('\r\u001b[Kreading history: 40 test results, 12 PRs\nmq: interrupted: stopped by Ctrl-C\n');
    const closed = memoryIO({ stderrIsTTY: true });
    closed.err('✓ submitted\n');
    presentError({ io: closed, json: false, debug: false, commandPath: 'mq wait' }, interrupted());
    expect(closed.stderr).toBe('✓ submitted\nmq: interrupted: stopped by Ctrl-C\n');
    // A progress line erased (\r + clear to end of line) leaves the cursor at the start of an empty line.
    const erased = memoryIO({ stderrIsTTY: true });
    erased.err('\r\u001b[Kreading history: 1 PRs');
    erased.err('\r\u001b[K');
    presentError({ io: erased, json: false, debug: false, commandPath: 'mq queue stats' }, interrupted());
    expect(erased.stderr.endsWith('\r\u001b[Kmq: interrupted: stopped by Ctrl-C\n')).toBe(true);
  });

  it('a prompt asked while a line is open starts on a new line', async () => {
    const { memoryIO } = await import('../helpers/memory-io.js');
    const io = memoryIO({ answers: ['main'] });
    io.err('working…');
    await io.prompt('Type main: ');
    expect(io.stderr).toBe('working…\nType main: ');
  });
});

describe('lineOpenAfter', () => {
  it('tracks whether the last write left a partial line', async () => {
    const { lineOpenAfter } = await import('../../src/output/io.js');
    expect(lineOpenAfter(false, 'done\n')).toBe(false);
    expect(lineOpenAfter(false, 'API token: ')).toBe(true);
    expect(lineOpenAfter(true, '')).toBe(true);
    expect(lineOpenAfter(true, 'more')).toBe(true);
    expect(lineOpenAfter(true, 'end\n')).toBe(false);
    expect(lineOpenAfter(false, '\r\u001b[K')).toBe(false);
    expect(lineOpenAfter(false, 'a\nb')).toBe(true);
  });
});
