/**
 * The emulator's clock on the wire and its bounds: every answer's `Date` header is the emulator's
 * time (manual clock and --speed), the clock cannot be advanced past its horizon, and metric
 * series of two hosts with the same owner/name stay apart.
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { RunningEmulator } from '../../src/emulator/index.js';
import { type Client, T0, queue, repo, startTestEmulator } from './http-helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(opts: Parameters<typeof startTestEmulator>[0] = {}): Promise<Client> {
  const started = await startTestEmulator(opts);
  emu = started.emu;
  return started.client;
}

const dateOf = (a: { headers: Headers }) => Date.parse(a.headers.get('date') ?? '');

describe('Date header', () => {
  it('carries the manual clock on every answer: reads, changes, errors and the control API', async () => {
    const c = await start();
    expect(dateOf(await c.post('createQueue', queue))).toBe(T0);
    expect(dateOf(await c.post('getQueue', queue))).toBe(T0);
    await c.advance(90);
    const t = T0 + 90 * 60_000;
    expect(dateOf(await c.post('getQueue', queue))).toBe(t);
    expect(dateOf(await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 404 } }))).toBe(t);
    expect(dateOf(await c.post('getQueue', { nope: true }))).toBe(t);
    expect(dateOf(await c.get('/v1/noSuchEndpoint'))).toBe(t);
    expect(dateOf(await c.get('/_emulator/clock'))).toBe(t);
    expect((await c.get('/_emulator/clock')).headers.get('date')).toBe(new Date(t).toUTCString());
  });

  it('follows the running clock at --speed, not the wall clock', async () => {
    const start2030 = Date.UTC(2030, 5, 1);
    const wall0 = Date.now();
    const c = await start({ clock: 'real', speed: 60, startTime: start2030 });
    const a = await c.post('createQueue', queue);
    const b = await c.post('getQueue', queue);
    const wallElapsed = Date.now() - wall0;
    // Second resolution in the header; the emulated time runs 60x the wall time.
    expect(dateOf(a)).toBeGreaterThanOrEqual(start2030 - 1_000);
    expect(dateOf(b)).toBeGreaterThanOrEqual(dateOf(a));
    expect(dateOf(b)).toBeLessThanOrEqual(start2030 + wallElapsed * 60 + 1_000);
  });
});

describe('clock horizon', () => {
  it('refuses to advance past 2200 with 400 and leaves the clock where it was', async () => {
    const c = await start();
    const a = await c.advance(1e9);
    expect(a.status).toBe(400);
    expect(a.text).toContain('past 2200-01-01T00:00:00.000Z');
    expect((await c.get('/_emulator/clock')).json().now).toBe(new Date(T0).toISOString());
    // Up to the horizon is fine.
    const minutes = (Date.UTC(2200, 0, 1) - T0) / 60_000;
    expect((await c.advance(minutes)).json().now).toBe('2200-01-01T00:00:00.000Z');
    expect((await c.advance(1)).status).toBe(400);
  });
});

describe('metrics', () => {
  it('keeps two hosts with the same owner/name apart', async () => {
    const c = await start();
    const ghe = { repo: { ...repo, host: 'ghe.example.com' }, targetBranch: 'main' };
    await c.post('createQueue', queue);
    await c.post('createQueue', ghe);
    await c.post('updateQueue', { ...queue, state: 'paused' });
    await c.post('updateQueue', { ...ghe, state: 'paused' });
    await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
    for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...ghe, pr: { number: n } });
    const text = (await c.get('/v1/getMergeQueueMetrics')).text;
    const waiting = text
      .split('\n')
      .filter((l) => l.startsWith('mq_awaiting_mergeability{') && l.includes('queue_type="main"'));
    expect(waiting).toHaveLength(2);
    expect(waiting.find((l) => l.includes('repo_host="github.com"'))).toMatch(/ 1$/);
    expect(waiting.find((l) => l.includes('repo_host="ghe.example.com"'))).toMatch(/ 3$/);
    // One host: Trunk's labels only.
    const one = (await c.get(`/v1/getMergeQueueMetrics?repo=acme/app&repoHost=github.com`)).text;
    expect(one).not.toContain('repo_host');
  });
});
