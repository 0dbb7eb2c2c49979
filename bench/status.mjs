// `mq status 1` against a running emulator vs `node -e 0`: a whole read command, network included.
// For scale, also a bare script making the same request with node:http (the floor for any CLI
// written for Node). Medians of 15 alternating runs each. MQ_BENCH_BIN=/path/to/bin/mq.js measures
// another build (before/after).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparePair, pairResult, printPair, QUICK } from './lib.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const node = process.execPath;
const mq = process.env.MQ_BENCH_BIN ?? new URL('../bin/mq.js', import.meta.url).pathname;
const BARE = '/tmp/mq-bench-bare-status.mjs';

export async function benchStatus({ runs = 15 } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    writeFileSync(
      BARE,
      `import { request } from 'node:http';
const body = JSON.stringify({ repo: ${JSON.stringify(REPO)}, targetBranch: 'main', pr: { number: 1 } });
const req = request(process.env.MQ_API_URL + '/getSubmittedPullRequest', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': process.env.MQ_TOKEN } }, (res) => {
  let text = '';
  res.on('data', (d) => (text += d));
  res.on('end', () => process.stdout.write(JSON.parse(text).state + '\\n'));
});
req.end(body);
`,
    );
    const baseline = { name: 'node -e 0', argv: [node, '-e', '0'] };
    const r = comparePair({ name: 'mq status 1 (emulator)', argv: [node, mq, 'status', '1'] }, baseline, {
      runs,
      options: { env: emu.env },
    });
    printPair('start-up: mq status 1 against the emulator vs node -e 0', r, 1.5);
    // The same on the v2 API, with a warm id cache (one run fills it first). A user of v2 has code
    // caches made by v2 runs (a command's cache holds what its first run compiled): a code cache
    // directory of its own.
    const v2env = {
      ...emu.env,
      MQ_TOKEN: await emu.v2Key(),
      MQ_API_URL: emu.env.MQ_API_URL.replace(/\/v1$/, ''),
      MQ_CACHE_DIR: mkdtempSync(join(tmpdir(), 'mq-bench-ids-')),
      MQ_COMPILE_CACHE_DIR: join(mkdtempSync(join(tmpdir(), 'mq-bench-v8-')), 'v8'),
    };
    execFileSync(node, [mq, 'status', '1'], { env: v2env, stdio: 'ignore' });
    const v2 = comparePair({ name: 'mq status 1 (emulator, v2)', argv: [node, mq, 'status', '1'] }, baseline, {
      runs,
      options: { env: v2env },
    });
    printPair('start-up: mq status 1 on v2 (warm id cache) against the emulator vs node -e 0', v2, 1.5);
    // The figure above is a warm start (the warm-up runs leave the code cache); a first start compiles.
    const cold = comparePair(
      {
        name: 'mq status 1, no code cache',
        argv: [node, mq, 'status', '1'],
        options: { env: { ...emu.env, MQ_NO_COMPILE_CACHE: '1' } },
      },
      baseline,
      { runs, options: { env: emu.env } },
    );
    printPair(
      'for scale: mq status 1 with the code cache off (MQ_NO_COMPILE_CACHE=1, every first start) vs node -e 0',
      cold,
    );
    const bare = comparePair({ name: 'bare node:http script', argv: [node, BARE] }, baseline, {
      runs,
      options: { env: emu.env },
    });
    printPair('for scale: the same request from a bare node:http script vs node -e 0', bare);
    return { r, v2 };
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { r, v2 } = await benchStatus(QUICK ? { runs: 5 } : undefined);
  pairResult('`mq status 1` (emulator) vs `node -e 0`', r, '<= 1.5');
  pairResult('`mq status 1` (emulator, v2, warm id cache) vs `node -e 0`', v2, '<= 1.5');
}
