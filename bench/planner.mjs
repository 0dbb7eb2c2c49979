// Planner speed: `mq queue simulate` through the built CLI (worker threads across runs), the
// target case of issue 17 — 7 simulated days at 20 PRs/h, 20 runs, 4 settings rows, under 10 s on
// 2 cores — then how the time grows with the arrival rate and the simulated duration.
// Run `npm run build` first. Prints wall-clock seconds (median of REPEAT runs, default 3).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/mq.js', import.meta.url));
const REPEAT = Number(process.env.REPEAT ?? 3);
const ROWS = ['--compare', 'concurrency=4', '--compare', 'concurrency=8,batch=4', '--compare', 'concurrency=2,batch=4'];

/** CPU seconds of waited-for children (Linux /proc; clock ticks of 10 ms), or NaN elsewhere. */
function childCpu() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Median wall-clock seconds and the CPU seconds of that run (CPU does not grow when the machine is busy). */
function time(args) {
  const runs = [];
  for (let i = 0; i < REPEAT; i++) {
    const cpu0 = childCpu();
    const t = process.hrtime.bigint();
    execFileSync(process.execPath, [bin, 'queue', 'simulate', '--baseline', 'defaults', '--json', ...args], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    runs.push({ wall: Number(process.hrtime.bigint() - t) / 1e9, cpu: childCpu() - cpu0 });
  }
  runs.sort((a, b) => a.wall - b.wall);
  const m = runs[Math.floor(runs.length / 2)];
  m.toString = () => `${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU`;
  return m;
}

const common = ['--test-time', '30m', '--failure-rate', '5%', '--flake-rate', '2%', '--runs', '20', ...ROWS];
console.log(
  `load average ${(await import('node:os')).loadavg()[0].toFixed(1)}; planner benchmark (${availableParallelism()} CPUs, median of ${REPEAT}); rows: defaults (concurrency 1), concurrency=4, concurrency=8,batch=4, concurrency=2,batch=4`,
);
const target = time(['--arrivals', '20/h', '--duration', '7d', ...common]);
console.log(
  `target: 7d, 20 PRs/h, 20 runs, 4 rows: ${target} (goal < 10 s wall) ${target.wall < 10 ? 'met' : 'MISSED'}`,
);
console.log('growth with arrivals (7d):');
for (const rate of ['5/h', '10/h', '20/h', '40/h'])
  console.log(`  ${rate.padEnd(5)} ${time(['--arrivals', rate, '--duration', '7d', ...common])}`);
console.log('growth with duration (20/h):');
for (const d of ['1d', '3d', '7d', '14d'])
  console.log(`  ${d.padEnd(5)} ${time(['--arrivals', '20/h', '--duration', d, ...common])}`);
console.log('one thread (--jobs 1), target case:');
console.log(`  ${time(['--arrivals', '20/h', '--duration', '7d', '--jobs', '1', ...common])}`);
