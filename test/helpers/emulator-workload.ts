/**
 * An in-process emulator (manual clock) seeded with a scripted workload, for the tests of what mq
 * reads from a queue's history (`queue eta-check`, `queue simulate --from-history`): one queue, no
 * batching; PR n created and submitted in turn, the clock advanced between submissions, and a PR
 * whose run failed by a flake resubmitted on the same commit.
 */
import { beforeAll } from 'vitest';
import { type Client, queue, repo, useEmulator } from '../emulator/http-helpers.js';
import { tempDir } from './run-cli.js';

export interface WorkloadPr {
  testMinutes: number;
  breaksBuild?: boolean;
  /** Its runs' scripted outcomes; one that starts with a failure is resubmitted once that run fails. */
  outcomes?: Array<'pass' | 'fail'>;
}

export interface Workload {
  concurrency: number;
  /** How many PRs, or submit PRs until the clock is this many minutes past the start. */
  prs: number | { forMinutes: number };
  pr(n: number): WorkloadPr;
  /** Minutes from PR n's submission to the next one's; parts of a list each end with the resubmissions. */
  gap(n: number): number | number[];
  /** Where the clock stops, in minutes past the start (default: after the last gap). */
  until?: number;
}

/** The emulator, its control client and the environment `runMq` needs to reach it. */
export function useWorkloadEmulator(workload: Workload) {
  const { emu, client } = useEmulator({}, 'all');
  const env: Record<string, string | undefined> = {};
  beforeAll(async () => {
    await seed(client, workload);
    Object.assign(env, {
      HOME: tempDir('mq-home-'),
      MQ_CONFIG_DIR: tempDir('mq-config-'),
      NO_COLOR: '1',
      MQ_API_URL: emu.url,
      MQ_TOKEN: emu.token,
      MQ_REPO: `${repo.host}/${repo.owner}/${repo.name}`,
      MQ_BRANCH: 'main',
      MQ_RETRY_BASE_MS: '5',
    });
  }, 120_000);
  return { emu, client, env };
}

async function seed(c: Client, w: Workload): Promise<void> {
  await c.post('createQueue', { ...queue, concurrency: w.concurrency, batch: false });
  const more = (n: number, minutes: number) => (typeof w.prs === 'number' ? n <= w.prs : minutes < w.prs.forMinutes);
  const flaky = new Set<number>();
  let minutes = 0;
  for (let n = 1; more(n, minutes); n++) {
    const pr = w.pr(n);
    await c.post('/_emulator/pullRequests', { repo, number: n, ...pr });
    const r = await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    if (r.status !== 200) throw new Error(`submit ${n}: ${r.status} ${r.text}`);
    if (pr.outcomes?.[0] === 'fail') flaky.add(n);
    for (const step of [w.gap(n)].flat()) {
      await c.advance(step);
      minutes += step;
      // A person resubmits a PR that failed by a flake, on the same commit.
      for (const f of flaky) {
        if ((await c.pr(f)).state?.toLowerCase() !== 'failed') continue;
        flaky.delete(f);
        await c.post('submitPullRequest', { ...queue, pr: { number: f } });
      }
    }
  }
  if (w.until !== undefined) await c.advance(w.until - minutes);
}

/**
 * PRs every 10 or 11 minutes, tested for 20 to 40 minutes; every 20th breaks the build, every 20th
 * from #10 fails once and passes when resubmitted.
 */
export const flakyWorkload: Pick<Workload, 'pr' | 'gap'> = {
  pr: (n) => ({
    testMinutes: 20 + (n % 5) * 5,
    breaksBuild: n % 20 === 0,
    outcomes: n % 20 === 10 ? ['fail', 'pass'] : [],
  }),
  gap: (n) => (n % 3 === 0 ? 11 : 10),
};
