import { describe, expect, it } from 'vitest';
import { type Reply, useFakeServer } from '../helpers/fake-server.js';
import { baseEnv, runCli, TOKEN } from '../helpers/run-cli.js';

const fake = useFakeServer();
const elsewhere = useFakeServer();

const transportEnv = (transport: string) => ({ ...baseEnv(fake.url), MQ_TEST_TRANSPORT: transport });
const count = (path: string) => fake.requests.filter((r) => r.path === path).length;
const GOOD: Reply = { status: 200, body: { state: 'testing', prNumber: 42 } };

interface Case {
  name: string;
  route: string;
  replies: Reply[];
  args: string[];
  exit: number;
  message: RegExp;
  attempts?: number;
  maxMs?: number;
}

const cases: Case[] = [
  {
    name: '500 then success',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ status: 500, body: 'x' }, GOOD],
    args: ['status', '42'],
    exit: 0,
    message: /^$/,
    attempts: 2,
  },
  {
    name: '502, 503 then success',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ status: 502 }, { status: 503 }, GOOD],
    args: ['status', '42'],
    exit: 0,
    message: /^$/,
    attempts: 3,
  },
  {
    name: '503 with Retry-After is honoured',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ status: 503, body: 'maintenance', headers: { 'retry-after': '1' } }, GOOD],
    args: ['status', '42'],
    exit: 0,
    message: /^$/,
    attempts: 2,
  },
  {
    name: 'a 429 storm ends in bounded time with exit 6',
    route: 'POST /submitPullRequest',
    replies: [{ status: 429, body: 'rate limited', headers: { 'retry-after': '0' } }],
    args: ['submit', '42'],
    exit: 6,
    message: /HTTP 429: rate limited/,
    attempts: 4,
    maxMs: 5000,
  },
  {
    name: 'connection reset mid-response on a read: retried, then exit 6',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ resetAfter: { status: 200, partial: '{"state":' } }],
    args: ['status', '42'],
    exit: 6,
    message: /the connection to 127\.0\.0\.1:\d+ failed/,
    attempts: 4,
  },
  {
    name: 'connection reset after a non-idempotent write was sent: outcome unknown, not retried',
    route: 'POST /cancelPullRequest',
    replies: [{ resetAfter: { status: 200, partial: 'O' } }],
    args: ['cancel', '42'],
    exit: 6,
    message: /outcome unknown: .* after the request was sent/,
    attempts: 1,
  },
  {
    name: 'a server that never answers: exit 6 within the timeout',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ hang: true }],
    args: ['status', '42', '--timeout', '400ms'],
    exit: 6,
    message: /no answer from 127\.0\.0\.1:\d+ within 400 ms/,
    maxMs: 6000,
  },
  {
    name: 'truncated JSON on a read: exit 1, the server sent something unexpected',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ status: 200, body: '{"state": "pend' }],
    args: ['status', '42'],
    exit: 1,
    message: /the service sent something unexpected: not JSON/,
  },
  {
    name: 'an HTML error page is summarised, not dumped',
    route: 'POST /getSubmittedPullRequest',
    replies: [
      {
        status: 502,
        body: `<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>${'x'.repeat(5000)}</body></html>`,
        headers: { 'content-type': 'text/html' },
      },
    ],
    args: ['status', '42'],
    exit: 6,
    message: /HTTP 502: \(an HTML page, not an API answer\)/,
  },
  {
    name: 'an answer that is not HTTP: the parser error names itself',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ raw: 'SSH-2.0-OpenSSH_9.6\r\n' }],
    args: ['status', '42'],
    exit: 6,
    message:
      /the answer from 127\.0\.0\.1:\d+ is not valid HTTP \((HPE_[A-Z_]+: )?Expected HTTP\/[^)]*\) \(4 attempts\)$/,
  },
  {
    name: 'an endless answer stops being read at 64 MiB: exit 1, not retried',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ endless: { status: 200 } }],
    args: ['status', '42'],
    exit: 1,
    message: /the answer is larger than 64 MiB; mq stopped reading it/,
    attempts: 1,
  },
  {
    name: 'an answer declaring more than 64 MiB is refused before it is read',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ endless: { status: 500, contentLength: 64 * 1024 * 1024 + 1 } }],
    args: ['status', '42'],
    exit: 1,
    message: /the answer is larger than 64 MiB/,
    attempts: 1,
  },
  {
    name: 'a write answered 200 with an HTML sign-in page is no success (exit 1)',
    route: 'POST /cancelPullRequest',
    replies: [
      {
        status: 200,
        body: '<!DOCTYPE html><html><body>Sign in to continue</body></html>',
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
    ],
    args: ['cancel', '42'],
    exit: 1,
    message: /^mq: cancel PR #42: the service sent something unexpected: an HTML page, not an API answer$/,
    attempts: 1,
  },
  {
    name: 'a write answered 200 with text that is not OK or JSON is no success (exit 1)',
    route: 'POST /submitPullRequest',
    replies: [{ status: 200, body: 'Welcome to the captive portal' }],
    args: ['submit', '42'],
    exit: 1,
    message: /the service sent something unexpected: not JSON \(starts with "Welcome to the captive portal"\)/,
    attempts: 1,
  },
  {
    name: 'a slowloris body is cut off by the request timeout',
    route: 'POST /getSubmittedPullRequest',
    replies: [{ slow: { status: 200, chunks: Array.from({ length: 200 }, () => ' '), everyMs: 100 } }],
    args: ['status', '42', '--timeout', '500ms'],
    exit: 6,
    message: /no answer from/,
    maxMs: 8000,
  },
];

describe.each(['node', 'undici'])('network faults (%s transport)', (transport) => {
  const env = () => transportEnv(transport);
  for (const c of cases) {
    it(c.name, async () => {
      fake.on(c.route, ...c.replies);
      const started = Date.now();
      const r = await runCli([...c.args, '--debug'], { env: env() });
      expect(r.stderr).toContain(`/${c.route.split(' /')[1]} (${transport})`);
      const took = Date.now() - started;
      expect(r.exitCode, r.stderr).toBe(c.exit);
      const errorLine = r.stderr.split('\n').find((l) => l.startsWith('mq: ') && !l.startsWith('mq: debug:')) ?? '';
      expect(errorLine).toMatch(c.message);
      if (c.attempts !== undefined) expect(count(c.route.split(' ')[1] as string)).toBe(c.attempts);
      if (c.maxMs !== undefined) expect(took).toBeLessThan(c.maxMs);
      // The token never appears in any output, --debug included.
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      expect(r.stderr).toContain('x-api-token: ***');
      if (c.exit !== 0) expect(r.stderr).not.toContain('✓');
    });
  }

  it('a redirect to another host is not followed and the token never goes there', async () => {
    fake.on('POST /getSubmittedPullRequest', {
      status: 302,
      body: '',
      headers: { location: `${elsewhere.url.replace('127.0.0.1', 'localhost')}/getSubmittedPullRequest` },
    });
    const r = await runCli(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('a redirect to http://localhost:');
    expect(r.stderr).toContain('mq never follows redirects');
    expect(elsewhere.requests).toHaveLength(0);
    expect(count('/getSubmittedPullRequest')).toBe(1);
  });

  it('a 301 is not followed either', async () => {
    fake.on('POST /submitPullRequest', {
      status: 301,
      headers: { location: 'https://evil.example/v1/submitPullRequest' },
    });
    const r = await runCli(['submit', '42'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(count('/submitPullRequest')).toBe(1);
  });

  it('a server that echoes the token in its error body does not get it printed', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 400, body: `bad request for token ${TOKEN}` });
    const r = await runCli(['status', '42', '--debug', '--json'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(r.stderr).toContain('bad request for token ***');
  });

  it('a token echoed across the points where messages are cut leaves no 8-character piece of it in any output', async () => {
    const pieces = Array.from({ length: TOKEN.length - 7 }, (_, i) => TOKEN.slice(i, i + 8));
    // Error bodies are cut at 2,048 characters, the start of a non-JSON answer at 60.
    const runs: Array<[string, string[], Reply]> = [
      ['POST /getSubmittedPullRequest', ['status', '42'], { status: 400, body: `${'e'.repeat(2048 - 9)}${TOKEN}` }],
      ['POST /getSubmittedPullRequest', ['status', '42'], { status: 200, body: `${'r'.repeat(60 - 9)}${TOKEN}` }],
      ['POST /cancelPullRequest', ['cancel', '42'], { status: 200, body: `${'w'.repeat(60 - 9)}${TOKEN}` }],
    ];
    for (const [route, args, reply] of runs) {
      fake.on(route, reply);
      const r = await runCli([...args, '--debug'], { env: env() });
      expect(r.exitCode).not.toBe(0);
      const out = r.stdout + r.stderr;
      for (const p of pieces) expect(out, `${route}: piece ${p}`).not.toContain(p);
    }
  });
});
