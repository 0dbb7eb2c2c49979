import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv } from '../../../helpers/run-cli.js';
import { runMq } from '../../../helpers/in-process.js';
import { entry, queueRecord } from '../../../helpers/test-context.js';

const TARGET = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const C1 = '11111111-1111-4111-8111-111111111111';
const C2 = '22222222-2222-4222-8222-222222222222';
const page = (from: number, n: number, nextCursor?: string) => ({
  status: 200,
  body: {
    pullRequests: Array.from({ length: n }, (_, i) => entry(from + i, 'merged')),
    ...(nextCursor ? { nextCursor } : {}),
  },
});

const fake = useFakeServer();
const env = () => baseEnv(fake.url);
const bodies = () => fake.requests.filter((r) => r.path === '/listPullRequests').map((r) => r.body);

describe('mq queue history', () => {
  it('follows nextCursor until the service has no more', async () => {
    fake.on('POST /listPullRequests', page(1, 100, C1), page(101, 100, C2), page(201, 20));
    const r = await runMq(['queue', 'history', '--limit', '500', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(bodies()).toEqual([
      { ...TARGET, take: 100 },
      { ...TARGET, take: 100, cursor: C1 },
      { ...TARGET, take: 100, cursor: C2 },
    ]);
    const doc = JSON.parse(r.stdout);
    expect(doc).toHaveLength(220);
    expect(doc[219].prNumber).toBe(220);
  });

  it('stops at --limit, asking only for what is left', async () => {
    fake.on('POST /listPullRequests', page(1, 100, C1), page(101, 30, C2), page(131, 100));
    const r = await runMq(['queue', 'history', '--limit', '130'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(bodies()).toEqual([
      { ...TARGET, take: 100 },
      { ...TARGET, take: 30, cursor: C1 },
    ]);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(130);
  });

  it('sends --state and --since (a duration counts back from the service clock, read from the queue first)', async () => {
    // The service's clock three days ahead of this machine's (an emulator that was advanced).
    const serviceNow = Date.now() + 3 * 86_400_000;
    fake.on('POST /getQueue', {
      status: 200,
      body: queueRecord({ state: 'running' }),
      headers: { date: new Date(serviceNow).toUTCString() },
    });
    fake.on('POST /listPullRequests', page(1, 2));
    const r = await runMq(['queue', 'history', '--state', 'FAILED', '--since', '2h'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(fake.requests.map((q) => q.path)).toEqual(['/getQueue', '/listPullRequests']);
    const body = bodies()[0] as { state: string; since: string; take: number };
    expect(body.state).toBe('failed');
    expect(body.take).toBe(50);
    const since = Date.parse(body.since);
    expect(Math.abs(since - (serviceNow - 2 * 3600_000))).toBeLessThan(10_000);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^1\tmerged\t\d{4}-\d\d-\d\dT[^\t]+\t\d+\tmedium\t100\toctocat\tChange number 1$/,
    );
  });

  it('an ISO --since is sent as given, with no request before it', async () => {
    fake.on('POST /listPullRequests', page(1, 1));
    await runMq(['queue', 'history', '--since', '2026-05-01T09:00:00Z'], { env: env() });
    expect((bodies()[0] as { since: string }).since).toBe('2026-05-01T09:00:00.000Z');
    expect(fake.requests.map((q) => q.path)).toEqual(['/listPullRequests']);
  });

  it('a repeated cursor does not loop forever', async () => {
    fake.on('POST /listPullRequests', page(1, 2, C1));
    const r = await runMq(['queue', 'history', '--limit', '100'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(bodies()).toHaveLength(2);
  });

  it('--limit N keeps the newest N when the service lists oldest first: read to the end, newest first', async () => {
    const at = (pr: number) =>
      entry(pr, 'merged', { stateChangedAt: new Date(Date.UTC(2026, 4, 1, 0, pr)).toISOString() });
    fake.on(
      'POST /listPullRequests',
      { status: 200, body: { pullRequests: [at(1), at(2), at(3)], nextCursor: C1 } },
      { status: 200, body: { pullRequests: [at(4), at(5)] } },
    );
    const r = await runMq(['queue', 'history', '--limit', '2', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).map((e: { prNumber: number }) => e.prNumber)).toEqual([5, 4]);
    // the first page asked for 2, showed the order was not newest first, and the rest was read
    expect(bodies()).toEqual([
      { ...TARGET, take: 2 },
      { ...TARGET, take: 100, cursor: C1 },
    ]);
  });

  it('a service that lists newest first is read only up to --limit', async () => {
    const at = (pr: number) =>
      entry(pr, 'merged', { stateChangedAt: new Date(Date.UTC(2026, 4, 1, 0, 60 - pr)).toISOString() });
    fake.on(
      'POST /listPullRequests',
      { status: 200, body: { pullRequests: [at(1), at(2)], nextCursor: C1 } },
      page(3, 100),
    );
    const r = await runMq(['queue', 'history', '--limit', '2', '--json'], { env: env() });
    expect(JSON.parse(r.stdout).map((e: { prNumber: number }) => e.prNumber)).toEqual([1, 2]);
    expect(bodies()).toHaveLength(1);
  });

  const bad: Array<[string[], RegExp]> = [
    [['--limit', '0'], /--limit: "0" must be an integer from 1 to 10000/],
    [['--limit', '2.5'], /--limit: "2\.5" must be an integer/],
    [['--state', 'done'], /--state: "done" is not one of not_ready, pending, testing/],
    [['--since', 'yesterday'], /--since: "yesterday" is neither an ISO 8601 date nor a duration/],
    [['--since', '2026-13-45'], /--since: "2026-13-45" is not a valid date/],
  ];
  for (const [args, message] of bad) {
    it(`${args.join(' ')}: exit 2, nothing sent`, async () => {
      const r = await runMq(['queue', 'history', ...args], { env: env() });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(fake.requests).toHaveLength(0);
    });
  }
});
