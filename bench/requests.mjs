// Requests per command on v1 and v2 (issue 30 point 3), against the emulator: each command runs with
// `--debug` and its `> METHOD url` lines are counted. v2 runs with a warm id cache (the repository,
// queue and PR ids kept by earlier commands) and with a cold one (an empty cache directory). Then
// `mq status 1` on v2 against v1, each request delayed 20 ms by a small proxy (127.0.0.1 only, in
// its own process: the timing loop blocks this one), warm cache, alternating runs; target <= 1.1x.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startEmulator } from './emulator-proc.mjs';
import { comparePair, printPair, printResult, QUICK } from './lib.mjs';

const node = process.execPath;
const mq = new URL('../bin/mq.js', import.meta.url).pathname;
const LATENCY_MS = 20;
const MANY = Array.from({ length: 20 }, (_, i) => String(i + 1));

// Each request waits LATENCY_MS, then goes to the emulator as it came.
const PROXY = `
import { createServer, request } from 'node:http';
const [port, delay] = process.argv.slice(-2).map(Number);
const server = createServer((req, res) => {
  setTimeout(() => {
    const up = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  }, delay);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function startProxy(port) {
  const args = ['--input-type=module', '-e', PROXY, String(port), String(LATENCY_MS)];
  const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const at = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  return { port: at, stop: () => child.kill() };
}

/** The requests one command line sends (its `--debug` lines), and its exit code. */
function count(args, env) {
  const r = spawnSync(node, [mq, ...args, '--debug'], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const sent = r.stderr.split('\n').filter((l) => /^mq: debug: > [A-Z]+ \S+ /.test(l));
  return { n: sent.length, code: r.status, lines: sent };
}

const cacheDir = () => mkdtempSync(join(tmpdir(), 'mq-bench-ids-'));

export async function benchRequests() {
  // Rate limits off: Trunk's 5 PR reads a second per key would otherwise be counted (429s, retries) and timed.
  const emu = await startEmulator(['--clock', 'manual', '--rate-limits', 'off']);
  const key = await emu.v2Key();
  const origin = emu.url.replace(/\/v1$/, '');
  const post = (path, body) => emu.call('POST', path, body);
  const q = { repo: REPO, targetBranch: 'main' };
  try {
    await post('/createQueue', q);
    // #1..#20 submitted an hour ago (a few merged since); #200.. and #400.. wait in the queue.
    for (const n of MANY) await post('/submitPullRequest', { ...q, pr: { number: Number(n) } });
    await post('/_emulator/clock/advance', { minutes: 60 });
    for (const n of [200, 201, 202, 400, 401, 402]) await post('/submitPullRequest', { ...q, pr: { number: n } });

    // The PR under test (concurrency 1): restart restarts its tests, on each API in turn.
    let testing = '';
    for (const n of MANY) {
      const pr = JSON.parse(await post('/getSubmittedPullRequest', { ...q, pr: { number: Number(n) } }));
      if (pr.state === 'testing') testing = n;
    }

    const envs = [
      { name: 'v1', env: emu.env },
      { name: 'v2 warm', env: { ...emu.env, MQ_API_URL: origin, MQ_TOKEN: key, MQ_CACHE_DIR: cacheDir() } },
      { name: 'v2 cold', env: { ...emu.env, MQ_API_URL: origin, MQ_TOKEN: key } },
    ];
    // Warm: the ids a user's earlier commands kept (repository, queue, the PRs).
    const warm = envs[1].env;
    count(['status', ...MANY, '200', '201', '202', '400', '401', '402'], warm);
    count(['queue', 'show'], warm);

    const targetsSha = 'ab'.repeat(20);
    const commands = [
      ['submit', (m) => ['submit', String(100 + m)]],
      ['cancel', (m) => ['cancel', String(200 + m)]],
      ['restart', () => ['restart', testing]],
      ['status (one PR)', () => ['status', '1']],
      ['status (20 PRs)', () => ['status', ...MANY]],
      ['wait (one poll: a merged PR)', () => ['wait', '1', '--timeout', '10s']],
      ['targets', (m) => ['targets', String(400 + m), '--sha', targetsSha, '--target', '//svc/api']],
      ['queue show', () => ['queue', 'show']],
      ['queue pause', () => ['queue', 'pause']],
      ['queue resume', () => ['queue', 'resume']],
      ['queue update', (m) => ['queue', 'update', '--concurrency', String(2 + m)]],
      ['queue history', () => ['queue', 'history', '--since', '2h']],
      ['queue stats', () => ['queue', 'stats']],
    ];
    const rows = [];
    for (const [name, argv] of commands) {
      const row = { name };
      envs.forEach((e, m) => {
        const env = e.name === 'v2 cold' ? { ...e.env, MQ_CACHE_DIR: cacheDir() } : e.env;
        const r = count(argv(m), env);
        row[e.name] = r.code === 0 ? String(r.n) : `${r.n} (exit ${r.code})`;
      });
      rows.push(row);
    }
    console.log('requests per command (emulator; --debug lines)');
    console.log('| command | v1 | v2, warm id cache | v2, cold id cache |');
    console.log('| --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.name} | ${r.v1} | ${r['v2 warm']} | ${r['v2 cold']} |`);
    console.log();
    // Issue 30: with a warm cache these make as many requests on v2 as on v1.
    const same = ['submit', 'cancel', 'restart', 'wait (one poll: a merged PR)', 'targets'];
    const results = rows
      .filter((r) => same.includes(r.name))
      .map((r) => ({
        figure: `requests: \`mq ${r.name}\` on v2 (warm ids) vs v1`,
        mq: `${r['v2 warm']} (cold: ${r['v2 cold']})`,
        reference: r.v1,
        ratio: Number.parseInt(r['v2 warm'], 10) / Number.parseInt(r.v1, 10),
        target: '<= 1',
      }));

    // `mq status 1` with 20 ms added to every request, warm cache.
    const proxy = await startProxy(Number(new URL(emu.url).port));
    try {
      const via = `http://127.0.0.1:${proxy.port}`;
      const v1 = { ...emu.env, MQ_API_URL: `${via}/v1` };
      const v2 = { ...warm, MQ_API_URL: via, MQ_CACHE_DIR: cacheDir() };
      count(['status', '1'], v2);
      const pair = comparePair(
        { name: 'mq status 1 on v2 (warm ids)', argv: [node, mq, 'status', '1'], options: { env: v2 } },
        { name: 'mq status 1 on v1', argv: [node, mq, 'status', '1'], options: { env: v1 } },
        { runs: QUICK ? 5 : 15, options: { env: v1 } },
      );
      printPair(`status on v2 vs v1, ${LATENCY_MS} ms added per request`, pair, 1.1);
      for (const r of results) printResult(r);
      printResult({
        figure: `\`mq status 1\` v2 vs v1 (${LATENCY_MS} ms per request, warm id cache)`,
        mq: `${pair.a.medianMs.toFixed(1)} ms`,
        reference: `${pair.b.medianMs.toFixed(1)} ms`,
        ratio: pair.ratio,
        target: '<= 1.1',
      });
    } finally {
      proxy.stop();
    }
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRequests();
