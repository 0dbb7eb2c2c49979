// Engine scaling: 10,000 and 20,000 PRs (a few breaking ones), batching off and on, pushed through
// the pure queue engine in virtual time with no I/O. Targets: 10,000 in <= 5 s; 20,000 costs
// <= 2.5x 10,000 (no quadratic step). The engine is bundled from source for the run.
import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const REPO = { host: 'github.com', owner: 'bench', name: 'engine' };
const target = { repo: REPO, targetBranch: 'main' };

async function loadEngine() {
  const out = join(mkdtempSync(join(tmpdir(), 'mq-engine-bench-')), 'engine.mjs');
  await build({
    entryPoints: [join(root, 'src/emulator/engine/index.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  return import(out);
}

function scenario({ QueueEngine, createState }, n, batching) {
  const t0 = Date.parse('2026-01-05T09:00:00Z');
  const engine = new QueueEngine(createState(42, t0));
  engine.createQueue({ ...target, concurrency: 10 }, t0);
  engine.updateQueue(
    {
      ...target,
      ...(batching ? { batch: true, batchingMinSize: 8, batchingMaxWaitTimeMinutes: 5, bisectionConcurrency: 10 } : {}),
      pendingFailureDepth: 1,
      canOptimisticallyMerge: true,
    },
    t0,
  );
  // One PR in 500 breaks the build; one in 200 has a flaky first run.
  for (let i = 1; i <= n; i++) {
    if (i % 500 === 0) engine.upsertFakePr({ repo: REPO, number: i, breaksBuild: true }, t0);
    else if (i % 200 === 0) engine.upsertFakePr({ repo: REPO, number: i, outcomes: ['fail'] }, t0);
  }
  const started = process.hrtime.bigint();
  // Arrivals: 20 PRs per emulated minute.
  let now = t0;
  for (let i = 1; i <= n; i++) {
    if (i % 20 === 0) now += 60_000;
    engine.submit({ ...target, pr: { number: i } }, now);
  }
  engine.advance(now + 365 * 24 * 3600_000);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  let merged = 0;
  let failed = 0;
  for (let i = 1; i <= n; i++) {
    const s = engine.getSubmittedPullRequest({ ...target, pr: { number: i } }, now).state;
    if (s === 'merged') merged++;
    else if (s === 'failed') failed++;
  }
  const runs = engine.listRuns({}).length;
  return { ms, merged, failed, runs };
}

export async function benchEngine() {
  const mod = await loadEngine();
  const results = {};
  for (const batching of [false, true]) {
    const label = batching ? 'batching on (size 8, wait 5m)' : 'batching off';
    // Median of three runs each, alternating sizes.
    const runs10 = [];
    const runs20 = [];
    for (let i = 0; i < 3; i++) {
      runs10.push(scenario(mod, 10_000, batching));
      runs20.push(scenario(mod, 20_000, batching));
    }
    const mid = (rs) => [...rs].sort((a, b) => a.ms - b.ms)[1];
    const r10 = mid(runs10);
    const r20 = mid(runs20);
    const ratio = r20.ms / r10.ms;
    console.log(`engine, ${label} (median of 3):`);
    for (const [n, r] of [
      [10_000, r10],
      [20_000, r20],
    ]) {
      console.log(
        `  ${String(n).padStart(6)} PRs  ${(r.ms / 1000).toFixed(2)} s  merged ${r.merged}  failed ${r.failed}  test runs ${r.runs}`,
      );
    }
    console.log(
      `  10,000 in <= 5 s: ${r10.ms <= 5000 ? 'met' : 'MISSED'}; 20,000 / 10,000 = ${ratio.toFixed(2)} (target <= 2.5: ${ratio <= 2.5 ? 'met' : 'MISSED'})`,
    );
    results[batching ? 'batching' : 'single'] = { r10, r20, ratio };
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEngine();
