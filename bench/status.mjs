// `mq status 1` against a running emulator vs `node -e 0`: a whole read command, network included.
import { comparePair, printPair } from './lib.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const node = process.execPath;
const mq = new URL('../bin/mq.js', import.meta.url).pathname;

export async function benchStatus({ runs = 20 } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    const r = comparePair({ name: 'mq status 1 (emulator)', argv: [node, mq, 'status', '1'] }, { name: 'node -e 0', argv: [node, '-e', '0'] }, { runs, options: { env: emu.env } });
    printPair('start-up: mq status 1 against the emulator vs node -e 0', r, 1.5);
    return r;
  } finally {
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStatus();
