// Emulator capacity over v2: requests per second of `GET /v2/pull-requests/{id}` with a Bearer key
// under autocannon vs a bare node:http server answering the same body (rate limits off).
//
//   SECONDS_EACH=8 node bench/emulator-v2-load.mjs
import { bareServer, load } from './emulator-load.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';
import { printResult, QUICK } from './lib.mjs';

export async function benchEmulatorV2Load({ seconds = 8, connections = 32 } = {}) {
  const emu = await startEmulator(['--clock', 'manual', '--rate-limits', 'off']);
  try {
    const key = await emu.v2Key();
    const v2 = emu.url.replace(/\/v1$/, '/v2');
    const headers = { authorization: `Bearer ${key}` };
    const get = async (path) => {
      const res = await fetch(`${v2}${path}`, { headers });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.text();
    };
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    const repo = JSON.parse(await get(`/repositories?providerUrl=https://${REPO.host}/${REPO.owner}/${REPO.name}`));
    const prs = JSON.parse(await get(`/pull-requests?repositoryId=${repo.data[0].id}&number=1`));
    const path = `/pull-requests/${prs.data[0].id}`;
    const bare = await bareServer(await get(path));
    const common = { method: 'GET', connections, headers };
    // Alternate halves so drift hits both sides alike.
    const half = Math.max(2, Math.round(seconds / 2));
    const e1 = await load({ ...common, duration: half, url: `${v2}${path}` });
    const b1 = await load({ ...common, duration: half, url: `${bare.url}${path}` });
    const e2 = await load({ ...common, duration: half, url: `${v2}${path}` });
    const b2 = await load({ ...common, duration: half, url: `${bare.url}${path}` });
    bare.stop();
    const emuRps = (e1.requests.average + e2.requests.average) / 2;
    const bareRps = (b1.requests.average + b2.requests.average) / 2;
    const errors = e1.errors + e2.errors + e1.non2xx + e2.non2xx;
    const ratio = emuRps / bareRps;
    console.log(`emulator v2 capacity: GET /v2/pull-requests/{id}, ${connections} connections, 2 x ${half}s each side`);
    const line = (name, rps, r) =>
      `  ${name.padEnd(10)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms`;
    console.log(`${line('emulator', emuRps, e2)}  errors ${errors}`);
    console.log(line('bare http', bareRps, b2));
    console.log(`  ratio ${ratio.toFixed(2)} (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'MISSED'})`);
    return { emuRps, bareRps, ratio };
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchEmulatorV2Load({ seconds: Number(process.env.SECONDS_EACH ?? (QUICK ? 3 : 8)) });
  const rps = (n) => `${Math.round(n).toLocaleString('en')} req/s`;
  printResult({
    figure: 'emulator v2 GET /v2/pull-requests/{id} vs bare `node:http` (32 connections)',
    mq: rps(r.emuRps),
    reference: rps(r.bareRps),
    ratio: r.ratio,
    target: '>= 0.5',
  });
}
