// Shared measuring helpers for the benchmarks. Pairs are run alternately (A B A B …) so drift in
// machine load hits both sides alike; figures are medians. Peak RSS comes from GNU time (%M, KiB).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const TIME = '/usr/bin/time';

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs argv once; returns wall ms and peak RSS in MiB (when GNU time is available). */
export function runOnce(argv, options = {}) {
  const useTime = existsSync(TIME);
  const cmd = useTime ? TIME : argv[0];
  const args = useTime ? ['-f', '%M', ...argv] : argv.slice(1);
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  const lines = (r.stderr ?? '').trim().split('\n');
  const rssKiB = useTime ? Number(lines.at(-1)) : NaN;
  return { ms, rssMiB: rssKiB / 1024 };
}

/** Alternates two commands `runs` times each after `warmup` rounds; returns both medians and the ratio. */
export function comparePair(a, b, { runs = 15, warmup = 2, options = {} } = {}) {
  const ra = [];
  const rb = [];
  for (let i = 0; i < warmup; i++) {
    runOnce(a.argv, options);
    runOnce(b.argv, options);
  }
  for (let i = 0; i < runs; i++) {
    ra.push(runOnce(a.argv, a.options ?? options));
    rb.push(runOnce(b.argv, b.options ?? options));
  }
  const ma = median(ra.map((r) => r.ms));
  const mb = median(rb.map((r) => r.ms));
  return {
    a: { name: a.name, medianMs: ma, peakRssMiB: Math.max(...ra.map((r) => r.rssMiB)) },
    b: { name: b.name, medianMs: mb, peakRssMiB: Math.max(...rb.map((r) => r.rssMiB)) },
    ratio: ma / mb,
    runs,
  };
}

export function printPair(title, result, target) {
  const ok =
    target === undefined
      ? ''
      : result.ratio <= target
        ? `  (target <= ${target}: met)`
        : `  (target <= ${target}: MISSED)`;
  console.log(`${title}`);
  console.log(
    `  ${result.a.name.padEnd(34)} median ${result.a.medianMs.toFixed(1).padStart(8)} ms   peak RSS ${result.a.peakRssMiB.toFixed(1)} MiB`,
  );
  console.log(
    `  ${result.b.name.padEnd(34)} median ${result.b.medianMs.toFixed(1).padStart(8)} ms   peak RSS ${result.b.peakRssMiB.toFixed(1)} MiB`,
  );
  console.log(`  ratio ${result.ratio.toFixed(2)} over ${result.runs} alternating runs each${ok}`);
}

/** QUICK=1: fewer iterations everywhere (a first look, not figures to record). */
export const QUICK = process.env.QUICK === '1';

/**
 * The machine-readable lines `npm run bench` (bench/run.mjs) collects: each script prints one
 * `RESULT {json}` line per figure it measures, after everything else it prints.
 * `target` is `<= 1.5` or `>= 0.5`, read against `ratio`.
 */
export function printResult({ figure, mq, reference, ratio, target }) {
  console.log(`RESULT ${JSON.stringify({ figure, mq, reference, ratio, target })}`);
}

/** printResult for a comparePair result: medians and peak RSS of both sides. */
export function pairResult(figure, pair, target) {
  const side = (s) => `${s.medianMs.toFixed(1)} ms, ${s.peakRssMiB.toFixed(1)} MiB`;
  printResult({ figure, mq: side(pair.a), reference: side(pair.b), ratio: pair.ratio, target });
}
