/**
 * The ETA's targets on a seeded workload on the in-process emulator (manual clock): 4 days, one PR
 * every 10 or 11 minutes (about 560), tested 4 at a time (no batching) for 20 to 40 minutes. Every
 * 20th PR breaks the build; every 20th from #10 fails once and passes when resubmitted on the same
 * commit (flaky). `mq queue eta-check --since 2d` estimates every PR merged in the last 2 days as
 * the queue stood at its submission. Targets: the p90 covers at least 85% of merges, and the median
 * absolute error is at most 25% of the time in queue. Deterministic (seeded), not timed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { queue, repo, useEmulator } from '../../../emulator/http-helpers.js';
import { runMq } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/run-cli.js';

const MINUTES = 4 * 24 * 60;
const breaks = (n: number) => n % 20 === 0;
const failsOnce = (n: number) => n % 20 === 10;

const { emu, client: c } = useEmulator({}, 'all');
let env: Record<string, string | undefined>;

beforeAll(async () => {
  await c.post('createQueue', { ...queue, concurrency: 4, batch: false });
  const waiting = new Set<number>();
  let minutes = 0;
  for (let n = 1; minutes < MINUTES - 60; n++) {
    const body = { repo, number: n, testMinutes: 20 + (n % 5) * 5, ...(breaks(n) ? { breaksBuild: true } : {}) };
    await c.post('/_emulator/pullRequests', { ...body, ...(failsOnce(n) ? { outcomes: ['fail', 'pass'] } : {}) });
    const r = await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    if (r.status !== 200) throw new Error(`submit ${n}: ${r.status} ${r.text}`);
    if (failsOnce(n)) waiting.add(n);
    const step = n % 3 === 0 ? 11 : 10;
    await c.advance(step);
    minutes += step;
    for (const w of waiting) {
      if ((await c.pr(w)).state?.toLowerCase() !== 'failed') continue;
      waiting.delete(w);
      await c.post('submitPullRequest', { ...queue, pr: { number: w } });
    }
  }
  await c.advance(MINUTES - minutes);
  env = {
    HOME: tempDir('mq-home-'),
    MQ_CONFIG_DIR: tempDir('mq-config-'),
    NO_COLOR: '1',
    MQ_API_URL: emu.url,
    MQ_TOKEN: emu.token,
    MQ_REPO: `${repo.host}/${repo.owner}/${repo.name}`,
    MQ_BRANCH: 'main',
    MQ_RETRY_BASE_MS: '5',
  };
}, 120_000);

describe('mq queue eta-check --since 2d on 4 days of a queue with failures and flakes', () => {
  it('meets the targets: p90 covers >= 85% of merges, median error <= 25% of the time in queue', async () => {
    const r = await runMq(['queue', 'eta-check', '--since', '2d', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows.map((x: { historyDays: number }) => x.historyDays)).toEqual([1, 3, 7]);
    for (const row of doc.rows) {
      expect(row.count).toBeGreaterThan(200);
      expect(row.withinP90, `${row.historyDays}d`).toBeGreaterThanOrEqual(0.85);
      expect(row.medianRelError, `${row.historyDays}d`).toBeLessThanOrEqual(0.25);
    }
  }, 120_000);
});
