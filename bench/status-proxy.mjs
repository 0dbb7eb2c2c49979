// `mq status 1` through a forward proxy (the undici transport) vs `node -e 0`. The undici transport
// sets V8's `--liftoff-only` itself (undici's WebAssembly HTTP parser stays on the baseline
// compiler); the second line passes the flag on the command line too, and should match the first.
// Without the flag the first line read 4.5x here, with it 2.7-2.9x.
import { spawn } from 'node:child_process';
import { comparePair, printPair } from './lib.mjs';
import { REPO, startEmulator } from './emulator-proc.mjs';

const node = process.execPath;
const mq = new URL('../bin/mq.js', import.meta.url).pathname;

// The proxy runs in its own process: the measuring loop blocks this one (spawnSync).
const PROXY = `
import { createServer } from 'node:http';
import { connect } from 'node:net';
const server = createServer((_, res) => res.writeHead(501).end());
server.on('connect', (req, client, head) => {
  const port = Number((req.url ?? '').split(':').pop());
  const upstream = connect(port, '127.0.0.1', () => {
    client.write('HTTP/1.1 200 Connection Established\\r\\n\\r\\n');
    upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

async function startProxy() {
  const child = spawn(node, ['--input-type=module', '-e', PROXY], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  return { port, stop: () => child.kill() };
}

export async function benchStatusProxy({ runs = 15 } = {}) {
  const emu = await startEmulator(['--clock', 'manual']);
  const proxy = await startProxy();
  try {
    await emu.call('POST', '/createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.call('POST', '/submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    // A name that is not loopback, so the proxy applies; only the proxy resolves it (to 127.0.0.1).
    const env = {
      ...emu.env,
      MQ_API_URL: emu.url.replace('127.0.0.1', 'mq.bench.invalid'),
      HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
    };
    const baseline = { name: 'node -e 0', argv: [node, '-e', '0'] };
    for (const flags of [[], ['--liftoff-only']]) {
      const r = comparePair(
        {
          name: `mq status 1 via proxy ${flags.join(' ')}`.trim(),
          argv: [node, ...flags, mq, 'status', '1', '--insecure-http'],
        },
        baseline,
        { runs, options: { env } },
      );
      printPair(`start-up through a proxy${flags.length ? ` with ${flags.join(' ')}` : ''} vs node -e 0`, r);
    }
  } finally {
    proxy.stop();
    await emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStatusProxy();
