// Persistence cost with --data-dir: acknowledged changes per second once the queue holds 1,000 and
// 10,000 PRs (manual clock, so nothing finishes and the state only grows). Each measured change is
// a submitPullRequest of a new PR, acknowledged only once it is durable. Two loads: one client
// (every change waits for its own fsync) and 8 clients (group commit may share fsyncs).
//
//   node bench/emulator-persist.mjs                 # the built emulator of this checkout
//   MQ_BENCH_BIN=/path/to/bin/mq.js node bench/emulator-persist.mjs   # another build (before/after)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startEmulator } from './emulator-proc.mjs';

const SIZES = (process.env.SIZES ?? '1000,10000').split(',').map(Number);
const SECONDS = Number(process.env.SECONDS_PER_LOAD ?? 6);

async function fill(emu, from, to, workers = 32) {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const n = next++;
      await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } });
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

async function rate(emu, startAt, clients) {
  let next = startAt;
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < until) {
      const n = next++;
      await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: n } });
      done++;
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: clients }, worker));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return { perSecond: done / s, used: next };
}

export async function benchEmulatorPersist() {
  const dir = await mkdtemp(join(tmpdir(), 'mq-bench-persist-'));
  // MEMORY=1: the same load without --data-dir (what the engine alone allows).
  const memory = process.env.MEMORY === '1';
  const emu = await startEmulator(['--clock', 'manual', ...(memory ? [] : ['--data-dir', dir])]);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main', concurrency: 5 });
    console.log(
      `emulator persistence (${memory ? 'no --data-dir' : `--data-dir on ${tmpdir()}`}): acknowledged submitPullRequest per second, ${SECONDS}s per load`,
    );
    let have = 1;
    let spare = 1_000_000;
    for (const size of SIZES) {
      const t0 = Date.now();
      await fill(emu, have, size + 1);
      have = size + 1;
      const fillS = (Date.now() - t0) / 1000;
      // Measured PRs get numbers far above the filled ones, and are few next to the size.
      const one = await rate(emu, spare, 1);
      spare = one.used;
      const eight = await rate(emu, spare, 8);
      spare = eight.used;
      console.log(
        `  ${String(size).padStart(6)} PRs: ${one.perSecond.toFixed(0).padStart(6)} changes/s (1 client)  ${eight.perSecond.toFixed(0).padStart(6)} changes/s (8 clients)   [fill ${fillS.toFixed(1)}s]`,
      );
    }
  } finally {
    await emu.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEmulatorPersist();
