// Emulator capacity: requests per second of getSubmittedPullRequest under autocannon vs a bare
// node:http server answering a fixed JSON body (same machine, same run, same load settings), and
// the latency of getQueue with 10,000 enqueued PRs.
//
//   SECONDS_EACH=8 node bench/emulator-load.mjs
//   ONLY=capacity MQ_BENCH_BIN=/path/to/other/bin/mq.js node bench/emulator-load.mjs
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { Agent } from 'undici';
import { REPO, startEmulator } from './emulator-proc.mjs';
import { printResult, QUICK } from './lib.mjs';

export function load(opts) {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

export async function bareServer(body) {
  const src = `const http=require('node:http');const b=${JSON.stringify(body)};http.createServer((q,s)=>{q.resume();q.on('end',()=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(b)});s.end(b);});}).listen(0,'127.0.0.1',function(){console.log(this.address().port)});`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((r) => child.stdout.once('data', (d) => r(Number(String(d).trim()))));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

export async function benchEmulatorLoad({ seconds = 8, connections = 32 } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    const reqBody = JSON.stringify({ repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    const record = await emu.call('POST', '/getSubmittedPullRequest', JSON.parse(reqBody));
    const bare = await bareServer(record);
    const common = {
      method: 'POST',
      body: reqBody,
      connections,
      duration: seconds,
      headers: { 'content-type': 'application/json', 'x-api-token': emu.token },
    };
    // Alternate halves so drift hits both sides alike.
    const half = Math.max(2, Math.round(seconds / 2));
    const e1 = await load({ ...common, duration: half, url: `${emu.url}/getSubmittedPullRequest` });
    const b1 = await load({ ...common, duration: half, url: `${bare.url}/getSubmittedPullRequest` });
    const e2 = await load({ ...common, duration: half, url: `${emu.url}/getSubmittedPullRequest` });
    const b2 = await load({ ...common, duration: half, url: `${bare.url}/getSubmittedPullRequest` });
    bare.stop();
    const emuRps = (e1.requests.average + e2.requests.average) / 2;
    const bareRps = (b1.requests.average + b2.requests.average) / 2;
    const errors = e1.errors + e2.errors + e1.non2xx + e2.non2xx;
    console.log(`emulator capacity: getSubmittedPullRequest, ${connections} connections, 2 x ${half}s each side`);
    console.log(
      `  emulator   ${emuRps.toFixed(0).padStart(7)} req/s  p50 ${e2.latency.p50} ms  p99 ${e2.latency.p99} ms  errors ${errors}`,
    );
    console.log(
      `  bare http  ${bareRps.toFixed(0).padStart(7)} req/s  p50 ${b2.latency.p50} ms  p99 ${b2.latency.p99} ms`,
    );
    console.log(
      `  ratio ${(emuRps / bareRps).toFixed(2)} (target >= 0.5: ${emuRps / bareRps >= 0.5 ? 'met' : 'MISSED'})`,
    );

    if (process.env.ONLY === 'capacity') return { emuRps, bareRps, ratio: emuRps / bareRps };
    // 10,000 enqueued PRs, then getQueue latency one request at a time.
    const agent = new Agent({ connections: 16 });
    const url = new URL(`${emu.url}/submitPullRequest`);
    let next = 2;
    const worker = async () => {
      while (next <= 10_000) {
        const n = next++;
        const res = await agent.request({
          origin: url.origin,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-token': emu.token },
          body: JSON.stringify({ repo: REPO, targetBranch: 'main', pr: { number: n } }),
        });
        await res.body.text();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await agent.close();
    await emu.call('POST', '/_emulator/clock/advance', { minutes: 1 });
    const q = JSON.parse(await emu.call('POST', '/getQueue', { repo: REPO, targetBranch: 'main' }));
    const gq = await load({
      ...common,
      connections: 1,
      duration: seconds,
      body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
      url: `${emu.url}/getQueue`,
    });
    console.log(
      `getQueue with ${q.enqueuedPullRequests.length} enqueued PRs (${(JSON.stringify(q).length / 1048576).toFixed(1)} MiB), one request at a time for ${seconds}s:`,
    );
    console.log(
      `  ${gq.requests.total} requests  p50 ${gq.latency.p50} ms  p99 ${gq.latency.p99} ms  max ${gq.latency.max} ms (target p99 <= 50 ms: ${gq.latency.p99 <= 50 ? 'met' : 'MISSED'})`,
    );
    return {
      emuRps,
      bareRps,
      ratio: emuRps / bareRps,
      getQueueP99: gq.latency.p99,
      enqueued: q.enqueuedPullRequests.length,
    };
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchEmulatorLoad({ seconds: Number(process.env.SECONDS_EACH ?? (QUICK ? 3 : 8)) });
  const rps = (n) => `${Math.round(n).toLocaleString('en')} req/s`;
  printResult({
    figure: 'emulator getSubmittedPullRequest vs bare `node:http` (32 connections)',
    mq: rps(r.emuRps),
    reference: rps(r.bareRps),
    ratio: r.ratio,
    target: '>= 0.5',
  });
}
