/**
 * `mq wait`'s progress line with the ETA: the service's estimate on v2 (in-process, emulator on a
 * manual clock: the wait sees one state and times out), unchanged where no estimate is served.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { PERMISSIONS } from '../../../src/emulator/http/v2/auth.js';
import { queue, repo, useEmulator } from '../../emulator/http-helpers.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv, tempDir } from '../../helpers/run-cli.js';

const KEY = 'trunk_v2_waiteta0123456789abc';
const { emu, client: c } = useEmulator(
  { apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }], rateLimits: false },
  'all',
);
const env = (api: 'v1' | 'v2') => ({
  ...baseEnv(api === 'v1' ? emu.url : emu.url.replace(/\/v1$/, '')),
  MQ_TOKEN: api === 'v1' ? emu.token : KEY,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_CACHE_DIR: tempDir('mq-cache-'),
});
const wait = (api: 'v1' | 'v2') => runMq(['wait', '3', '--timeout', '1s', '--interval', '100ms'], { env: env(api) });

beforeAll(async () => {
  expect((await c.post('createQueue', { ...queue, concurrency: 1, batch: false })).status).toBe(200);
  for (const number of [1, 2, 3]) {
    await c.post('/_emulator/pullRequests', { repo, number, testMinutes: 10 });
    expect((await c.post('submitPullRequest', { ...queue, pr: { number } })).status).toBe(200);
  }
});

describe('mq wait: the ETA on the progress line', () => {
  it("v2: the service's estimate joins the line", async () => {
    const r = await wait('v2');
    expect(r.exitCode).toBe(8);
    expect(r.stderr.split('\n')[0]).toMatch(/^PR #3: pending · ETA in \d+m( \d+s)? \(\d\d:\d\d UTC\)$/);
  });

  it('no estimate served (v1; v2 with estimates off): the line is unchanged', async () => {
    expect((await wait('v1')).stderr.split('\n')[0]).toBe('PR #3: pending');
    expect((await c.post('/_emulator/queues/estimates', { ...queue, enabled: false })).status).toBe(200);
    try {
      expect((await wait('v2')).stderr.split('\n')[0]).toBe('PR #3: pending');
    } finally {
      await c.post('/_emulator/queues/estimates', { ...queue, enabled: true });
    }
  });
});
