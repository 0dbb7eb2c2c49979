// Payload: `mq targets --file` with a ~19 MiB target list vs curl posting the same body to the
// emulator (issue 27: wall <= 2.3x curl, peak RSS < 120 MiB). Pairs alternate A B A B; medians.
import { writeFileSync } from 'node:fs';
import { comparePair, pairResult, printPair, printResult, QUICK } from './lib.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const node = process.execPath;
// MQ_BENCH_CLI: another build's bin/mq.js (a before/after comparison on the same machine).
const mq = process.env.MQ_BENCH_CLI ?? new URL('../bin/mq.js', import.meta.url).pathname;

export async function benchPayload({ runs = 10 } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 42 } });
    const targets = [];
    let bytes = 0;
    for (let i = 0; bytes < 19 * 1024 * 1024; i++) {
      const t = `//services/team-${i % 97}/package-${i}/src/main/java/com/example/module${i % 13}:target_${i}`;
      targets.push(t);
      bytes += t.length + 4;
    }
    writeFileSync('/tmp/mq-bench-targets.txt', `${targets.join('\n')}\n`);
    const body = JSON.stringify({
      repo: REPO,
      targetBranch: 'main',
      pr: { number: 42, sha: 'abc1234' },
      impactedTargets: targets,
    });
    writeFileSync('/tmp/mq-bench-body.json', body);
    console.log(
      `payload: ${targets.length} targets, request body ${(Buffer.byteLength(body) / 1048576).toFixed(1)} MiB`,
    );
    const r = comparePair(
      {
        name: 'mq targets --file (19 MiB)',
        argv: [node, mq, 'targets', '42', '--sha', 'abc1234', '--file', '/tmp/mq-bench-targets.txt'],
      },
      {
        name: 'curl --data-binary (same body)',
        argv: [
          'curl',
          '-sS',
          '-f',
          '-o',
          '/dev/null',
          '-X',
          'POST',
          '-H',
          'content-type: application/json',
          '-H',
          `x-api-token: ${emu.token}`,
          '--data-binary',
          '@/tmp/mq-bench-body.json',
          `${emu.url}/setImpactedTargets`,
        ],
      },
      { runs, warmup: 1, options: { env: emu.env } },
    );
    printPair('payload: mq targets vs curl, same body, same emulator', r, 2.3);
    console.log(
      `  mq peak RSS ${r.a.peakRssMiB.toFixed(0)} MiB (target < 120 MiB: ${r.a.peakRssMiB < 120 ? 'met' : 'MISSED'})`,
    );
    return r;
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchPayload({ runs: Number(process.env.RUNS ?? (QUICK ? 3 : 10)) });
  pairResult('`mq targets --file` 18.8 MiB vs `curl --data-binary`', r, '<= 2.3');
  const rss = r.a.peakRssMiB;
  printResult({
    figure: '`mq targets --file` 18.8 MiB: peak RSS',
    mq: `${rss.toFixed(1)} MiB`,
    reference: '120 MiB',
    ratio: rss / 120,
    target: '< 1',
  });
}
