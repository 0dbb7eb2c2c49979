// Start-up: `mq --version` and `mq --help` against bare Node (`node -e 0`).
import { comparePair, pairResult, printPair, QUICK } from './lib.mjs';

const node = process.execPath;
const mq = new URL('../bin/mq.js', import.meta.url).pathname;
const baseline = { name: 'node -e 0', argv: [node, '-e', '0'] };
const env = { ...process.env, NO_COLOR: '1' };

export function benchStartup({ runs = 20 } = {}) {
  const results = {};
  for (const args of [['--version'], ['--help']]) {
    const r = comparePair({ name: `mq ${args.join(' ')}`, argv: [node, mq, ...args] }, baseline, { runs, options: { env } });
    printPair(`start-up: mq ${args.join(' ')} vs node -e 0`, r, 1.3);
    results[args[0]] = r;
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchStartup(QUICK ? { runs: 5 } : undefined);
  pairResult('`mq --version` vs `node -e 0`', r['--version'], '<= 1.15');
  pairResult('`mq --help` vs `node -e 0`', r['--help'], '<= 1.3');
}
