/**
 * The commands that read history print the same on v2 as on v1, against one emulator: `mq status`
 * (one PR; several once getQueue is on v2), `mq wait` on a concluded PR, a PR never submitted (exit 3).
 */
import { describe, expect, it } from 'vitest';

import { PERMISSIONS } from '../../src/emulator/http/v2/auth.js';
import { queue, repo, useEmulator } from '../emulator/http-helpers.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv, tempDir } from '../helpers/run-cli.js';

const KEY = 'trunk_v2_history0123456789';
const { emu, client: c } = useEmulator(
  { apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }], rateLimits: false },
  'all',
);

/** The environment of one API; v2's id cache lives as long as the test file (a warm cache after the first run). */
const cacheDir = tempDir('mq-ids-');
const env = (api: 'v1' | 'v2') => ({
  ...baseEnv(api === 'v1' ? emu.url : emu.url.replace(/\/v1$/, '')),
  MQ_TOKEN: api === 'v1' ? emu.token : KEY,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_CACHE_DIR: cacheDir,
});

async function onBoth(args: string[]) {
  const a = await runMq(args, { env: env('v1') });
  const b = await runMq(args, { env: env('v2') });
  return { v1: a, v2: b };
}

let ready: Promise<void> | undefined;
/** #5 cancelled, then merged; #1..#3 merged in a batch; #6 cancelled (no failed PR: its checks are read elsewhere). */
function workload(): Promise<void> {
  ready ??= (async () => {
    await c.post('createQueue', queue);
    const submit = (number: number) => c.post('submitPullRequest', { ...queue, pr: { number } });
    await c.twoTrips(5);
    await c.advance(15);
    await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 3 });
    for (const n of [1, 2, 3]) await submit(n);
    await c.advance(30);
    await submit(6);
    await c.advance(1);
    await c.post('cancelPullRequest', { ...queue, pr: { number: 6 } });
  })();
  return ready;
}

describe('history commands on v2 print what they print on v1', () => {
  it.each([
    ['status', '5'],
    ['status', '5', '--json'],
    ['status', '1', '-o', 'plain'],
    ['status', '6', '-o', 'markdown'],
    ['wait', '5', '--json'],
  ])('mq %s', async (...args) => {
    await workload();
    const r = await onBoth(args);
    // `mq wait` tells how long it waited (wall time).
    const out = (s: string) => s.replace(/"waitedMs": \d+/g, '"waitedMs": 0');
    expect(r.v2.stderr).toBe(r.v1.stderr);
    expect(out(r.v2.stdout)).toBe(out(r.v1.stdout));
    expect(r.v2.exitCode).toBe(r.v1.exitCode);
    expect(r.v1.stdout.length).toBeGreaterThan(20);
  });

  // Several PRs also read the queue (for positions): getQueue on v2 is another part of issue 30.
  // Until it lands, v2 stops at that refusal; once it does, the outputs must be equal.
  it.each([
    ['status', '1', '2', '3', '5', '6', '99'],
    ['status', '1', '2', '3', '5', '6', '99', '--json'],
  ])('mq %s (several PRs)', async (...args) => {
    await workload();
    const r = await onBoth(args);
    expect(r.v2.stderr).toBe(r.v1.stderr);
    // The one known difference: Trunk's v2 leaves hasImpactedTargets out of a several-number lookup.
    const listRead = (out: string) => out.replaceAll('"hasImpactedTargets": false', '"hasImpactedTargets": null');
    expect(r.v2.stdout).toBe(args.includes('--json') ? listRead(r.v1.stdout) : r.v1.stdout);
    expect(r.v2.exitCode).toBe(r.v1.exitCode);
  });

  it('mq status of a PR never submitted exits 3 on both', async () => {
    await workload();
    const r = await onBoth(['status', '77']);
    expect(r.v1.exitCode).toBe(3);
    expect(r.v2.exitCode).toBe(3);
    expect(r.v2.stdout).toBe(r.v1.stdout);
  });
});
