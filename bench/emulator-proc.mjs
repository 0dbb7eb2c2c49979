// Starts the built emulator as a child process for benchmarks and returns its URL and token.
import { spawn } from 'node:child_process';

const BIN = process.env.MQ_BENCH_BIN ?? new URL('../bin/mq.js', import.meta.url).pathname;

export async function startEmulator(args = []) {
  const token = 'tok_bench_0123456789';
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--token', token, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      buf += d;
      const m = /^mq emulator listening on (\S+)\n/.exec(buf);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const root = url.replace(/\/v1$/, '');
  // The v2 key comes on the `export MQ_V2_API_KEY=…` line after the first one.
  const v2Key = async () => {
    for (;;) {
      const m = /^export MQ_V2_API_KEY='?([^'\s]+)'?$/m.exec(buf);
      if (m) return m[1];
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const call = async (method, path, body) => {
    const res = await fetch(`${path.startsWith('/_') ? root : url}${path}`, {
      method,
      headers: { 'x-api-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
    return text;
  };
  return {
    url,
    token,
    v2Key,
    pid: child.pid,
    call,
    env: {
      ...process.env,
      MQ_API_URL: url,
      MQ_TOKEN: token,
      MQ_REPO: 'github.com/bench/repo',
      MQ_BRANCH: 'main',
      NO_COLOR: '1',
      MQ_CONFIG_DIR: '/tmp/mq-bench-config',
      MQ_COMPILE_CACHE_DIR: '/tmp/mq-bench-v8',
    },
    stop: () =>
      new Promise((r) => {
        child.on('exit', r);
        child.kill('SIGINT');
      }),
  };
}

export const REPO = { host: 'github.com', owner: 'bench', name: 'repo' };
