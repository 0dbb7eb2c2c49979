// Bulk: `mq submit -` of 1,000 PR numbers vs a minimal undici script sending the same 1,000
// requests at the same concurrency (8), against the emulator; plus a shell loop of single calls.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { comparePair, pairResult, printPair, QUICK, runOnce } from './lib.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const N = 1000;
const node = process.execPath;
const mq = new URL('../bin/mq.js', import.meta.url).pathname;

export async function benchBulk({ runs = 10, loop = N } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    const numbers = Array.from({ length: N }, (_, i) => i + 1).join('\n');
    writeFileSync('/tmp/mq-bench-prs.txt', `${numbers}\n`);
    const script = '/tmp/mq-bench-undici.mjs';
    writeFileSync(
      script,
      `import { Agent } from ${JSON.stringify(new URL('../node_modules/undici/index.js', import.meta.url).pathname)};
const agent = new Agent({ connections: 8 });
const url = new URL(process.env.MQ_API_URL + '/submitPullRequest');
let next = 1;
async function worker() {
  while (next <= ${N}) {
    const n = next++;
    const res = await agent.request({ origin: url.origin, path: url.pathname, method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': process.env.MQ_TOKEN },
      body: JSON.stringify({ repo: ${JSON.stringify(REPO)}, targetBranch: 'main', pr: { number: n } }) });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error('status ' + res.statusCode);
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
await agent.close();
`,
    );
    const options = { env: emu.env, input: undefined };
    const r = comparePair(
      {
        name: `mq submit - (${N} PRs, --parallel 8)`,
        argv: ['sh', '-c', `"${node}" "${mq}" submit - --parallel 8 < /tmp/mq-bench-prs.txt > /dev/null 2>&1`],
      },
      { name: `undici script (${N} requests, 8 at once)`, argv: [node, script] },
      { runs, warmup: 1, options },
    );
    printPair(`bulk: ${N} submits through mq vs the same requests from a bare undici script`, r, 1.5);
    // The shell loop is slow by nature; run it once.
    const loopStart = Date.now();
    const loopRun = spawnSync(
      'sh',
      ['-c', `for n in $(seq 1 ${loop}); do "${node}" "${mq}" submit "$n" >/dev/null 2>&1 || exit 1; done`],
      { env: emu.env },
    );
    if (loopRun.status !== 0) throw new Error('shell loop failed');
    const loopMs = ((Date.now() - loopStart) * N) / loop;
    console.log(
      `  shell loop of ${loop} single mq submit calls: ${(loopMs / 1000).toFixed(1)} s${loop === N ? '' : ` (scaled to ${N})`}; bulk is ${(loopMs / r.a.medianMs).toFixed(0)}x faster`,
    );
    return { ...r, loopMs };
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchBulk({
    runs: QUICK ? 3 : Number(process.env.RUNS ?? 10),
    loop: Number(process.env.LOOP ?? (QUICK ? 20 : N)),
  });
  pairResult('`mq submit -` 1,000 PRs vs a bare undici script (8 in flight)', r, '<= 1.5');
}
void runOnce;
