/**
 * `mq status 42 --eta` in-process on the emulator (manual clock): the service's estimate on v2, mq's
 * simulation on v1 and where v2's queue serves no estimate, with its error measured on the queue's
 * recent merges. Workload: concurrency 1, no batching, PR n submitted every 30 minutes and tested
 * alone at once (8 or 12 minutes), then three PRs waiting.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { PERMISSIONS } from '../../../src/emulator/http/v2/auth.js';
import { queue, repo, T0, useEmulator } from '../../emulator/http-helpers.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv, tempDir } from '../../helpers/run-cli.js';

const KEY = 'trunk_v2_eta0123456789abcdef';
const { emu, client: c } = useEmulator(
  { apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }], rateLimits: false },
  'all',
);
type Api = 'v1' | 'v2';
const env = (api: Api, cacheDir = tempDir('mq-cache-')) => ({
  ...baseEnv(api === 'v1' ? emu.url : emu.url.replace(/\/v1$/, '')),
  MQ_TOKEN: api === 'v1' ? emu.token : KEY,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_CACHE_DIR: cacheDir,
});
const submit = async (number: number, testMinutes = 10) => {
  await c.post('/_emulator/pullRequests', { repo, number, testMinutes });
  expect((await c.post('submitPullRequest', { ...queue, pr: { number } })).status).toBe(200);
};

async function eta(api: Api, args: string[] = [], e = env(api)) {
  const r = await runMq(['status', '43', '--eta', ...args], { env: e });
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return r.stdout;
}

beforeAll(async () => {
  expect((await c.post('createQueue', { ...queue, concurrency: 1, batch: false })).status).toBe(200);
  for (let n = 1; n <= 12; n++) {
    await submit(n, n % 2 === 1 ? 8 : 12);
    await c.advance(30);
  }
  for (const n of [41, 42, 43]) await submit(n);
}, 60_000);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('mq status 42 --eta', () => {
  it("v2: the service's estimate, a p50 only", async () => {
    const doc = JSON.parse(await eta('v2', ['--json']));
    expect(doc.eta).toMatchObject({ source: 'service', p90: null, failProbability: null, measured: null });
    expect(doc.eta.p50).toMatch(ISO);
    const table = await eta('v2', ['-o', 'table']);
    expect(table).toMatch(/ETA +in \d+m( \d+s)? \(\d\d:\d\d UTC\); service's estimate/);
  });

  it('v1: the simulation, its chance of failing and its error measured on recent merges', async () => {
    const doc = JSON.parse(await eta('v1', ['--json']));
    expect(doc.eta).toMatchObject({ source: 'simulation', failProbability: expect.any(Number) });
    const { p50, p90 } = doc.eta;
    expect(Date.parse(p50)).toBeLessThanOrEqual(Date.parse(p90));
    // Two runs of about 10 minutes ahead, then its own.
    expect(Date.parse(p50) - (T0 + 12 * 30 * 60_000)).toBeGreaterThan(20 * 60_000);
    expect(doc.eta.measured).toMatchObject({ prs: expect.any(Number) });
    expect(doc.eta.measured.prs).toBeGreaterThanOrEqual(5);
    expect(doc.eta.measured.withinP90).toBeGreaterThanOrEqual(0);
    const table = await eta('v1', ['-o', 'table']);
    const interval = /in \d+m( \d+s)? – \d+m( \d+s)? \(\d\d:\d\d UTC – \d\d:\d\d UTC\)/.source;
    expect(table).toMatch(new RegExp(`ETA +${interval}; mq's simulation;`));
    expect(table).toMatch(/\d+% of \d+ recent merges within p90, median error \d+%/);
    const plain = (await eta('v1', ['-o', 'plain'])).trim().split('\n').at(-1)?.split('\t');
    expect(plain?.slice(0, 2)).toEqual(['eta', 'simulation']);
    expect(plain?.[2]).toMatch(ISO);
  });

  it('v2 with the queue serving no estimate: the simulation', async () => {
    const off = await c.post('/_emulator/queues/estimates', { ...queue, enabled: false });
    expect(off.status).toBe(200);
    try {
      const doc = JSON.parse(await eta('v2', ['--json']));
      expect(doc.eta.source).toBe('simulation');
      expect(doc.eta.p90).toMatch(ISO);
    } finally {
      await c.post('/_emulator/queues/estimates', { ...queue, enabled: true });
    }
  });

  it("mq wait 43 --eta on v1: the simulation's interval on the progress line; without --eta none", async () => {
    const wait = (...more: string[]) =>
      runMq(['wait', '43', '--timeout', '1s', '--interval', '100ms', ...more], { env: env('v1') });
    const line = (await wait('--eta')).stderr.split('\n')[0];
    const interval = /in \d+m( \d+s)? – \d+m( \d+s)? \(\d\d:\d\d UTC – \d\d:\d\d UTC\)/.source;
    expect(line).toMatch(new RegExp(`^PR #43: pending · ETA ${interval}$`));
    expect((await wait()).stderr.split('\n')[0]).toBe('PR #43: pending');
  });

  it('without --eta: no eta field; a PR not in the queue has none', async () => {
    const r = await runMq(['status', '43', '--json'], { env: env('v2') });
    expect(JSON.parse(r.stdout).eta).toBeUndefined();
    const done = JSON.parse((await runMq(['status', '1', '--eta', '--json'], { env: env('v1') })).stdout);
    expect(done.eta).toEqual({ unavailable: 'not in the queue' });
  });
});

describe('mq status 42 --eta on a queue with little history', () => {
  const fresh = useEmulator({ rateLimits: false }, 'all');
  const envOf = () => ({ ...env('v1'), MQ_API_URL: fresh.emu.url, MQ_TOKEN: fresh.emu.token });

  it('says the error is not measured; the figures are cached per queue (0600)', async () => {
    const f = fresh.client;
    expect((await f.post('createQueue', { ...queue, concurrency: 1, batch: false })).status).toBe(200);
    for (let n = 1; n <= 6; n++) {
      await f.post('/_emulator/pullRequests', { repo, number: n, testMinutes: 10 });
      await f.post('submitPullRequest', { ...queue, pr: { number: n } });
      await f.advance(30);
    }
    for (const n of [42, 43]) await f.post('submitPullRequest', { ...queue, pr: { number: n } });
    const e = envOf();
    const doc = JSON.parse(await eta('v1', ['--json'], e));
    expect(doc.eta).toMatchObject({ source: 'simulation', measured: null });
    expect(await eta('v1', ['-o', 'table'], e)).toMatch(/error not measured: too few recent merges on this queue/);
    const files = readdirSync(join(e.MQ_CACHE_DIR, 'eta'));
    expect(files).toHaveLength(1);
    expect(statSync(join(e.MQ_CACHE_DIR, 'eta', files[0] as string)).mode & 0o777).toBe(0o600);
  });
});
