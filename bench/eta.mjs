// ETA speed: one merge-time estimate (src/planner/eta.ts, its default seeded forward runs) for the last PR
// of a queue of 10, 100 and 1,000 entries, 4 runs at a time, batching off and on, 30-minute tests
// with 5% failures and 2% flakes. Target: 100 entries in <= 1 s. The estimator is bundled from source.
import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const REPEAT = Number(process.env.REPEAT ?? (process.env.QUICK === '1' ? 1 : 3));

async function load() {
  const out = join(mkdtempSync(join(tmpdir(), 'mq-eta-bench-')), 'eta.mjs');
  await build({
    entryPoints: [join(root, 'src/planner/eta.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  return import(out);
}

function input(n, batch) {
  const now = Date.parse('2026-01-05T09:00:00Z');
  const pending = Array.from({ length: n - 4 }, (_, i) => ({
    number: i + 5,
    title: null,
    schedulability: 'schedulable',
    predictedBatch: null,
    directlyAhead: [],
    heldBy: [],
  }));
  const batches = [1, 2, 3, 4].map((k) => ({
    runId: `r${k}`,
    state: 'testing',
    isBisection: false,
    prs: [{ number: k, title: null }],
  }));
  return {
    pr: n,
    now,
    order: {
      queueState: 'running',
      mode: 'single',
      batchingEnabled: batch,
      batches,
      pending,
      awaitingAdmission: [],
      awaitingAdmissionTotal: 0,
      approximate: false,
    },
    queue: { concurrency: 4, batch, batchingMinSize: 4, mode: 'single' },
    runStarts: { r1: now - 20 * 60_000, r2: now - 15 * 60_000, r3: now - 10 * 60_000, r4: now - 5 * 60_000 },
    profile: { testMinutes: 30, testTimeSpread: 0.3, failureRate: 0.05, flakeRate: 0.02, arrivalsPerHour: 6 },
  };
}

const { estimateMergeTime } = await load();
for (const batch of [false, true]) {
  for (const n of [10, 100, 1000]) {
    const times = [];
    let eta;
    for (let i = 0; i < REPEAT; i++) {
      const t = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      eta = estimateMergeTime(input(n, batch));
      const c = process.cpuUsage(cpu);
      times.push({ wall: Number(process.hrtime.bigint() - t) / 1e6, cpu: (c.user + c.system) / 1000 });
    }
    times.sort((a, b) => a.wall - b.wall);
    const { wall, cpu } = times[Math.floor(times.length / 2)];
    const h = (x) => ((x - input(n, batch).now) / 3_600_000).toFixed(1);
    console.log(
      `${String(n).padStart(5)} entries, batching ${batch ? 'on ' : 'off'}: ${wall.toFixed(0).padStart(6)} ms wall, ` +
        `${cpu.toFixed(0).padStart(6)} ms CPU, ${eta.runs} runs (p50 +${h(eta.p50)} h, p90 +${h(eta.p90)} h, ` +
        `fails ${(eta.failProbability * 100).toFixed(1)}%)`,
    );
  }
}
