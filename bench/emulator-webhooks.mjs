// A dead webhook receiver must cost neither memory nor speed: 20,000 submit+cancel pairs (manual
// clock, 8 clients) against an emulator with no webhooks and one delivering to a port nobody
// listens on. Prints wall time of the pairs and the emulator's peak RSS (VmHWM) for each.
//
//   node bench/emulator-webhooks.mjs
//   MQ_BENCH_BIN=/path/to/other/bin/mq.js PAIRS=5000 node bench/emulator-webhooks.mjs
import { readFileSync } from 'node:fs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const PAIRS = Number(process.env.PAIRS ?? 20_000);
const CLIENTS = 8;
const DEAD = 'http://127.0.0.1:1/hooks';

function peakRssMiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function run(args) {
  const emu = await startEmulator(['--clock', 'manual', ...args]);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main', concurrency: 4 });
    let next = 1;
    const worker = async () => {
      while (next <= PAIRS) {
        const n = next++;
        await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } });
        await emu.call('POST', '/cancelPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } });
      }
    };
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CLIENTS }, worker));
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    let backlog = '';
    if (args.includes('--webhook')) {
      const page = JSON.parse(await emu.call('GET', '/_emulator/webhookDeliveries?take=1'));
      backlog = ` pending ${page.pending ?? '?'} dropped ${page.dropped?.[DEAD] ?? '?'} total listed ${page.total ?? page.deliveries?.length}`;
    }
    return { s, rss: peakRssMiB(emu.pid), backlog };
  } finally {
    await emu.stop();
  }
}

export async function benchEmulatorWebhooks() {
  console.log(`emulator with a dead webhook receiver: ${PAIRS} submit+cancel pairs, ${CLIENTS} clients, manual clock`);
  // ONLY=dead skips the run without webhooks (PLAIN_S=seconds then gives the ratio).
  const plain = process.env.ONLY === 'dead' ? { s: Number(process.env.PLAIN_S ?? NaN), rss: NaN } : await run([]);
  console.log(`  no webhooks        ${plain.s.toFixed(1).padStart(6)} s   peak RSS ${plain.rss.toFixed(0)} MiB`);
  const dead = await run(['--webhook', DEAD, '--webhook-secret', 'whsec_MNnSz6d4bvxpTDSxKoC7WOnb0yN9u449']);
  console.log(
    `  dead receiver      ${dead.s.toFixed(1).padStart(6)} s   peak RSS ${dead.rss.toFixed(0)} MiB  ${dead.backlog}`,
  );
  console.log(
    `  ratio ${(dead.s / plain.s).toFixed(2)} (target <= 2), peak RSS target < 200 MiB: ${dead.rss < 200 ? 'met' : 'MISSED'}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEmulatorWebhooks();
