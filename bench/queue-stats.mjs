// `mq queue stats` on a busy queue: a 45-day window with 10,000 PRs and 15,000 test attempts in the
// emulator (manual clock). Serial queue (concurrency 1), 4-minute runs; half the PRs fail their first
// run and are resubmitted on the same commit (so they pass: flaky). Prints the wall time of the
// whole command (process start, paging every endpoint, computing) as a median of 3 runs.
// Run after `npm run build`: node bench/queue-stats.mjs   (PRS=2000 for a quicker look)
import { spawnSync } from 'node:child_process';
import { REPO, startEmulator } from './emulator-proc.mjs';
import { median } from './lib.mjs';

const PRS = Number(process.env.PRS ?? 10_000);
const RUN_MINUTES = 4;
const BIN = new URL('../bin/mq.js', import.meta.url).pathname;
const target = { repo: REPO, targetBranch: 'main' };

async function inParallel(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export async function benchQueueStats() {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    const setupStarted = Date.now();
    await emu.call('POST', '/createQueue', target);
    const numbers = Array.from({ length: PRS }, (_, i) => i + 1);
    const flaky = (n) => n % 2 === 0;
    await inParallel(numbers, 16, (n) =>
      emu.call('POST', '/_emulator/pullRequests', {
        repo: REPO,
        number: n,
        testMinutes: RUN_MINUTES,
        ...(flaky(n) ? { outcomes: ['fail', 'pass'] } : {}),
      }),
    );
    // Submitted in order, so the serial queue tests them in order.
    for (const n of numbers) await emu.call('POST', '/submitPullRequest', { ...target, pr: { number: n } });
    const advance = async (minutes) => {
      for (let left = minutes; left > 0; left -= 1440)
        await emu.call('POST', '/_emulator/clock/advance', { minutes: Math.min(1440, left) });
    };
    await advance(PRS * RUN_MINUTES + 10);
    for (const n of numbers.filter(flaky))
      await emu.call('POST', '/submitPullRequest', { ...target, pr: { number: n } });
    await advance((PRS / 2) * RUN_MINUTES + 10);
    const clock = JSON.parse(await emu.call('GET', '/_emulator/clock'));
    const now = typeof clock.now === 'number' ? clock.now : Date.parse(clock.now);
    const since = new Date(now - 45 * 86_400_000).toISOString();
    const until = new Date(now).toISOString();
    console.log(
      `queue stats on a busy queue: ${PRS} PRs, ${PRS * 1.5} test attempts, ${((PRS * 1.5 * RUN_MINUTES) / 1440).toFixed(1)} days of history (setup ${((Date.now() - setupStarted) / 1000).toFixed(0)} s)`,
    );
    const times = [];
    let doc;
    for (let i = 0; i < 3; i++) {
      const started = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [BIN, 'queue', 'stats', '--since', since, '--until', until, '--json'], {
        env: { ...emu.env, MQ_REPO: 'github.com/bench/repo' },
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (r.status !== 0) throw new Error(`mq queue stats exited ${r.status}: ${r.stderr}`);
      doc = JSON.parse(r.stdout);
    }
    const m = median(times);
    console.log(
      `  figures: merged ${doc.prs.merged}, failed ${doc.prs.failed}, runs ${doc.runs.total} (${doc.runs.failed} failed), runs per merged PR ${doc.runs.perMergedPr}, flaky share ${doc.flakyShare}, time to merge p50 ${doc.timeToMerge.p50} s`,
    );
    console.log(
      `  mq queue stats --since <45 days> : median ${m.toFixed(0)} ms of 3 runs (${times.map((t) => t.toFixed(0)).join(', ')})  (target < 5000 ms: ${m < 5000 ? 'met' : 'MISSED'})`,
    );
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchQueueStats();
