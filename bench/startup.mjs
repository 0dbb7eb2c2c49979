// Start-up: `mq --version`, `mq --help` and `mq queue --help` against bare Node (`node -e 0`).
// MQ_BENCH_BIN=/path/to/bin/mq.js measures another build (before/after).
import { comparePair, pairResult, printPair, QUICK } from './lib.mjs';

const node = process.execPath;
const mq = process.env.MQ_BENCH_BIN ?? new URL('../bin/mq.js', import.meta.url).pathname;
const baseline = { name: 'node -e 0', argv: [node, '-e', '0'] };
const env = { ...process.env, NO_COLOR: '1' };

export function benchStartup({ runs = 20 } = {}) {
  const results = {};
  // Targets of issue 18: --version within 1.15x of bare Node, help within 1.3x.
  for (const [args, target] of [
    [['--version'], 1.15],
    [['--help'], 1.3],
    [['queue', '--help'], 1.3],
  ]) {
    const r = comparePair({ name: `mq ${args.join(' ')}`, argv: [node, mq, ...args] }, baseline, {
      runs,
      options: { env },
    });
    printPair(`start-up: mq ${args.join(' ')} vs node -e 0`, r, target);
    results[args.join(' ')] = r;
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchStartup(QUICK ? { runs: 5 } : undefined);
  pairResult('`mq --version` vs `node -e 0`', r['--version'], '<= 1.15');
  pairResult('`mq --help` vs `node -e 0`', r['--help'], '<= 1.3');
  pairResult('`mq queue --help` vs `node -e 0`', r['queue --help'], '<= 1.3');
}
