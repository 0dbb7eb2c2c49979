/**
 * `mq notify --watch` in virtual time against the emulator: a PR that fails while it runs is posted
 * once; one that fails while it is stopped is posted once after the restart; nothing twice.
 */
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/run.js';
import { interrupted } from '../../../src/util/clock.js';
import { queue, repo, useEmulator } from '../../emulator/http-helpers.js';
import { FIXED_NOW } from '../../helpers/clock.js';
import { testDeps } from '../../helpers/deps.js';
import { startFakeServer, useFakeServer } from '../../helpers/fake-server.js';
import { tempDir } from '../../helpers/run-cli.js';

const { emu, client: c } = useEmulator();
const rx = useFakeServer();

/** One run of the watch: `during(n)` runs at its n-th sleep (1-based); it stops (Ctrl-C) at sleep `stopAt`. */
async function watchOnce(
  state: string,
  stopAt: number,
  during: (n: number) => Promise<void> = async () => {},
  api: { url: string; env: Record<string, string> } = {
    url: emu.url,
    env: { MQ_TOKEN: emu.token, MQ_REPO: `${repo.owner}/${repo.name}` },
  },
) {
  const stop = new AbortController();
  let now = FIXED_NOW;
  let n = 0;
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
      n += 1;
      await during(n);
      if (n >= stopAt) stop.abort();
      if (stop.signal.aborted) throw interrupted();
    },
  };
  const { deps, io } = testDeps({
    apiUrl: api.url,
    clock,
    signal: stop.signal,
    env: {
      ...api.env,
      MQ_NOTIFY_SLACK_URL: `${rx.url.replace(/\/v1$/, '')}/slack/hook`,
    },
  });
  const exitCode = await run(deps, ['notify', '--watch', '--interval', '10s', '--state', state]);
  return { exitCode, stderr: io.stderr };
}

const posted = () =>
  rx.requests.filter((q) => q.path === '/slack/hook').map((q) => (q.body as { text: string }).text.replace(/:.*/, ''));

describe('mq notify --watch', () => {
  it('posts each trip that leaves the queue once, across a restart, and what left while it was down', async () => {
    rx.on('POST /slack/hook', { status: 200, body: 'ok' });
    await c.post('createQueue', queue);
    for (const number of [1, 2, 3])
      await c.post('/_emulator/pullRequests', { repo, number, title: `PR ${number}`, outcomes: ['fail'] });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    const state = `${tempDir('mq-notify-')}/state.json`;

    // First run: PR 1 fails between two polls.
    const first = await watchOnce(state, 3, async (n) => {
      if (n === 1) await c.advance(60);
    });
    expect(first.exitCode).toBe(130);
    expect(posted()).toEqual(['PR #1 failed in the merge queue']);
    expect(statSync(state).mode & 0o777).toBe(0o600);

    // Stopped: PR 2 is submitted and fails, PR 3 is submitted and cancelled (both opted in by default).
    await c.post('submitPullRequest', { ...queue, pr: { number: 2 } });
    await c.advance(60);
    await c.post('submitPullRequest', { ...queue, pr: { number: 3 } });
    await c.post('cancelPullRequest', { ...queue, pr: { number: 3 } });
    await c.advance(1);

    // Restart: what left meanwhile is posted once; PR 1 is not posted again.
    const second = await watchOnce(state, 3);
    expect(second.exitCode).toBe(130);
    expect(second.stderr).toContain('✓ PR #2 (failed) posted to Slack');
    expect(posted()).toEqual([
      'PR #1 failed in the merge queue',
      'PR #2 failed in the merge queue',
      'PR #3 was cancelled from the merge queue',
    ]);

    // Another restart: nothing new, nothing twice.
    const third = await watchOnce(state, 2);
    expect(third.exitCode).toBe(130);
    expect(posted()).toHaveLength(3);
  });

  it('keeps a delivery that still fails: stopped then, it exits 6; the next start posts it', async () => {
    rx.on('POST /slack/hook', { status: 500 });
    await c.post('createQueue', queue);
    await c.post('/_emulator/pullRequests', { repo, number: 4, outcomes: ['fail'] });
    await c.post('submitPullRequest', { ...queue, pr: { number: 4 } });
    const state = `${tempDir('mq-notify-')}/state.json`;
    // Sleeps: 1 between polls, 2-4 the retries of the post, 5 between polls (stop).
    const r = await watchOnce(state, 5, async (n) => {
      if (n === 1) await c.advance(60);
    });
    expect(r.stderr).toContain('✗ PR #4 (failed): posting to Slack failed: Slack answered HTTP 500 after 4 attempts');
    expect(r.stderr).toContain('mq: notify --watch: 1 PR(s) left the queue unposted');
    expect(r.exitCode).toBe(6);
    expect(rx.requests.filter((q) => q.path === '/slack/hook')).toHaveLength(4);

    rx.on('POST /slack/hook', { status: 200, body: 'ok' });
    const again = await watchOnce(state, 2);
    expect(again.stderr).toContain('✓ PR #4 (failed) posted to Slack');
    expect(again.exitCode).toBe(130);
    expect(rx.requests.filter((q) => q.path === '/slack/hook')).toHaveLength(5);
  });

  it('refuses a state file others can read, and one it cannot write, with exit 7', async () => {
    rx.on('POST /slack/hook', { status: 200, body: 'ok' });
    await c.post('createQueue', queue);
    const dir = tempDir('mq-notify-');
    writeFileSync(`${dir}/open.json`, '{}');
    chmodSync(`${dir}/open.json`, 0o644);
    const open = await watchOnce(`${dir}/open.json`, 1);
    expect(open.exitCode).toBe(7);
    expect(open.stderr).toContain('must be a small file only you can read and write (0600)');
    const missing = await watchOnce(`${dir}/no/such/dir/state.json`, 2);
    expect(missing.exitCode).toBe(7);
    expect(missing.stderr).toMatch(/--state: cannot write .*state\.json \(ENOENT\)/);
  });

  it('rides out a service that fails while it reads a PR that left: said, and read again on the next poll', async () => {
    rx.on('POST /slack/hook', { status: 200, body: 'ok' });
    const api = await startFakeServer();
    try {
      const entry = { prNumber: 9, state: 'testing', prTitle: 'nine' };
      api.on(
        'POST /getQueue',
        { status: 200, body: { state: 'RUNNING', enqueuedPullRequests: [entry] } },
        {
          status: 200,
          body: { state: 'RUNNING', enqueuedPullRequests: [] },
        },
      );
      const record = { prNumber: 9, state: 'FAILED', stateChangedAt: '2026-11-22T11:59:00Z', prTitle: 'nine' };
      const down = { status: 503, body: 'down' };
      api.on('POST /getSubmittedPullRequest', down, down, down, down, { status: 200, body: record });
      const r = await watchOnce(`${tempDir('mq-notify-')}/state.json`, 3, async () => {}, { url: api.url, env: {} });
      expect(r.stderr).toMatch(/! .*HTTP 503.*; trying again on the next poll\n/);
      expect(r.stderr).toContain('✓ PR #9 (failed) posted to Slack');
      expect(r.exitCode).toBe(130);
      expect(posted()).toEqual(['PR #9 failed in the merge queue']);
    } finally {
      await api.close();
    }
  });
});
