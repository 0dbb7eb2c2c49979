/**
 * The HTTP layer in process, against the recording fake server, with each transport forced:
 * per-call deadlines on a virtual clock, the service clock from Date, redaction before any cut,
 * the answer a write must get, and which proxy applies to which URL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MergeQueueClient } from '../../src/api/client.js';
import { checkWriteAnswer, closeHttp, HttpClient, MIN_RETRY_WINDOW_MS, type HttpSettings } from '../../src/api/http.js';
import { clockWarning } from '../../src/api/service-clock.js';
import { isLoopback, proxyFor, proxySettings } from '../../src/api/transport.js';
import type { MqError } from '../../src/errors.js';
import { useFakeServer } from '../helpers/fake-server.js';

const TOKEN = 'tok_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddccbbaa99887766554433221100';
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const PR = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main', pr: { number: 42 } };

const fake = useFakeServer();
afterAll(async () => {
  await closeHttp();
});

/** A virtual clock: sleeping moves it forward at once. */
function clock(start = T0) {
  const c = { t: start, sleeps: [] as number[] };
  return {
    c,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
}

describe.each(['node', 'undici'] as const)('HTTP layer (%s transport)', (transport) => {
  function client(extra: Partial<HttpSettings> = {}) {
    const lines: string[] = [];
    const clk = clock();
    const http = new HttpClient({
      baseUrl: fake.url,
      token: TOKEN,
      userAgent: 'mq/test',
      timeoutMs: 5000,
      backoffMs: 100,
      random: () => 0.5,
      now: clk.now,
      sleep: clk.sleep,
      env: {},
      transport,
      debug: (l) => lines.push(l),
      ...extra,
    });
    return { http, api: new MergeQueueClient(http), lines, clk };
  }
  const reads = () => fake.requests.filter((r) => r.path === '/getSubmittedPullRequest').length;

  describe('per-call deadline (CallOptions)', () => {
    it('no request starts once the deadline has passed', async () => {
      const { api, clk } = client();
      fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending' } });
      await expect(api.getSubmittedPullRequest(PR, { deadline: clk.c.t })).rejects.toMatchObject({ exitCode: 6 });
      await expect(api.getSubmittedPullRequest(PR, { deadline: clk.c.t - 1 })).rejects.toThrow(
        /no time left before the deadline/,
      );
      expect(reads()).toBe(0);
      await expect(api.getSubmittedPullRequest(PR, { deadline: clk.c.t + 10_000 })).resolves.toMatchObject({
        state: 'pending',
      });
      expect(reads()).toBe(1);
    });

    it("the client's deadline (the command's) bounds every call; the earlier of it and a call's applies", async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending' } });
      const noTime = /no time left before the deadline/;
      const spent = client({ deadline: T0 });
      await expect(spent.api.getSubmittedPullRequest(PR)).rejects.toThrow(noTime);
      await expect(spent.api.getSubmittedPullRequest(PR, { deadline: T0 + 10_000 })).rejects.toThrow(noTime);
      expect(reads()).toBe(0);
      const open = client({ deadline: T0 + 10_000 });
      await expect(open.api.getSubmittedPullRequest(PR, { deadline: T0 })).rejects.toThrow(noTime);
      await expect(open.api.getSubmittedPullRequest(PR)).resolves.toMatchObject({ state: 'pending' });
      expect(reads()).toBe(1);
    });

    it("a silent service: a call ends at the client's deadline, not the per-request limit; no retry", async () => {
      fake.on('POST /getSubmittedPullRequest', { hang: true });
      const { api } = client({ deadline: T0 + 200 });
      const err = await api.getSubmittedPullRequest(PR).catch((e: unknown) => e);
      expect(err).toMatchObject({ exitCode: 6, why: expect.stringMatching(/no answer .* within 200 ms$/) });
      expect(reads()).toBe(1);
    });

    it('a retry whose wait would run into the deadline is not made, and no retry is announced after the last try', async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 503, body: 'down' });
      const { api, lines, clk } = client();
      // The first backoff is 75 ms (base 100, jitter 0.5): 75 + the minimum window does not fit.
      const deadline = clk.c.t + 75 + MIN_RETRY_WINDOW_MS - 1;
      await expect(api.getSubmittedPullRequest(PR, { deadline })).rejects.toMatchObject({
        exitCode: 6,
        why: expect.stringMatching(/^the service answered HTTP 503: down$/),
      });
      expect(reads()).toBe(1);
      expect(clk.c.sleeps).toEqual([]);
      expect(lines.filter((l) => l.startsWith('retry'))).toEqual([]);
      expect(clk.c.t).toBeLessThanOrEqual(deadline);
    });

    it('retries fit inside the deadline: every announced retry is made, none waits past the deadline', async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 503, body: 'down' });
      const { api, lines, clk } = client();
      const deadline = clk.c.t + 75 + 150 + 2 * MIN_RETRY_WINDOW_MS;
      await expect(api.getSubmittedPullRequest(PR, { deadline })).rejects.toMatchObject({ exitCode: 6 });
      const retries = lines.filter((l) => l.startsWith('retry'));
      expect(retries.length).toBe(reads() - 1);
      expect(clk.c.sleeps).toEqual([75, 150]);
      expect(clk.c.t).toBeLessThanOrEqual(deadline);
    });

    it('without a deadline the retries run out and the last try announces nothing', async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 503, body: 'down' });
      const { api, lines } = client({ maxRetries: 2 });
      await expect(api.getSubmittedPullRequest(PR)).rejects.toMatchObject({ exitCode: 6 });
      expect(reads()).toBe(3);
      expect(lines.filter((l) => l.startsWith('retry'))).toHaveLength(2);
    });

    it("a call's own signal stops it before anything is sent", async () => {
      const { api } = client();
      const stop = new AbortController();
      stop.abort();
      await expect(api.getSubmittedPullRequest(PR, { signal: stop.signal })).rejects.toMatchObject({ exitCode: 130 });
      expect(reads()).toBe(0);
    });

    it("the client's signal (the command's) aborted while a retry waits: no retry is sent", async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 503, body: 'down' });
      const ended = new AbortController();
      const sleep = async () => ended.abort();
      const { api } = client({ signal: ended.signal, sleep });
      await expect(api.getSubmittedPullRequest(PR)).rejects.toMatchObject({ exitCode: 130 });
      expect(reads()).toBe(1);
    });

    it("a call's own signal stops a request in flight", async () => {
      fake.on('POST /getSubmittedPullRequest', { hang: true });
      const { api } = client();
      const stop = new AbortController();
      const pending = api.getSubmittedPullRequest(PR, { signal: stop.signal });
      while (reads() === 0) await new Promise((r) => setTimeout(r, 5));
      stop.abort();
      await expect(pending).rejects.toMatchObject({ exitCode: 130 });
      expect(reads()).toBe(1);
    });
  });

  describe('the hint of a request that ran out of time names the setting that applies', () => {
    it('a plain request names the per-request setting it was given', async () => {
      fake.on('POST /getSubmittedPullRequest', { hang: true });
      const { api } = client({ timeoutMs: 100, maxRetries: 0, timeoutSource: 'MQ_TIMEOUT' });
      const err = await api.getSubmittedPullRequest(PR).catch((e: unknown) => e);
      expect(err).toMatchObject({ exitCode: 6, hints: ['raise the limit with MQ_TIMEOUT, or try again later'] });
    });

    it("a request cut short by a wait's deadline names the wait's --timeout", async () => {
      fake.on('POST /getSubmittedPullRequest', { hang: true });
      const { api, clk } = client({ timeoutMs: 5000, maxRetries: 0, timeoutSource: 'MQ_TIMEOUT' });
      const err = await api.getSubmittedPullRequest(PR, { deadline: clk.now() + 100 }).catch((e: unknown) => e);
      expect(err).toMatchObject({ exitCode: 6 });
      expect((err as { hints: string[] }).hints[0]).toContain(
        'the wait ran out of time (--timeout bounds the whole wait)',
      );
    });
  });

  describe('service time from the Date header', () => {
    it('keeps the offset of a skewed service clock and falls back to the local clock before any answer', async () => {
      const { http, api, clk } = client();
      expect(http.serviceNow()).toBe(clk.c.t);
      expect(http.serviceClockOffsetMs).toBeUndefined();
      // The service is 1 h 2 min 3 s ahead of this machine.
      const serviceDate = new Date(T0 + 3_723_000).toUTCString();
      fake.on('POST /getSubmittedPullRequest', {
        status: 200,
        body: { state: 'pending' },
        headers: { date: serviceDate },
      });
      await api.getSubmittedPullRequest(PR);
      expect(http.serviceClockOffsetMs).toBeGreaterThanOrEqual(3_723_000);
      expect(http.serviceClockOffsetMs).toBeLessThan(3_724_000);
      clk.c.t += 60_000;
      expect(http.serviceNow() - clk.c.t).toBe(http.serviceClockOffsetMs);
      // The latest answer wins; one without a usable Date changes nothing.
      fake.on('POST /getSubmittedPullRequest', {
        status: 200,
        body: { state: 'pending' },
        headers: { date: new Date(clk.c.t - 5_000).toUTCString() },
      });
      await api.getSubmittedPullRequest(PR);
      expect(http.serviceClockOffsetMs).toBeLessThan(0);
      fake.on('POST /getSubmittedPullRequest', {
        status: 200,
        body: { state: 'pending' },
        headers: { date: 'not a date' },
      });
      const before = http.serviceClockOffsetMs;
      await api.getSubmittedPullRequest(PR);
      expect(http.serviceClockOffsetMs).toBe(before);
    });
  });

  describe('a Date header is used only when it names a sane time', () => {
    const answer = (date: string) => ({ status: 200, body: { state: 'pending' }, headers: { date } });

    it('one out of range is not used and is warned about once; a local clock days off says nothing', async () => {
      const warnings: string[] = [];
      const { http, api, clk } = client({ warn: (m) => warnings.push(m) });
      for (const date of [
        'Sat, 13 Sep 275760 00:00:00 GMT',
        'Mon, 01 Jan 2200 00:00:01 GMT',
        'Tue, 31 Dec 1969 23:59:59 GMT',
      ]) {
        fake.on('POST /getSubmittedPullRequest', answer(date));
        await api.getSubmittedPullRequest(PR);
        expect(http.serviceClockOffsetMs).toBeUndefined();
        expect(new Date(http.serviceNow()).toISOString()).toBe(new Date(clk.c.t).toISOString());
      }
      fake.on('POST /getSubmittedPullRequest', answer(new Date(T0 + 400 * 86_400_000).toUTCString()));
      await api.getSubmittedPullRequest(PR);
      expect(http.serviceClockOffsetMs).toBeGreaterThan(400 * 86_400_000);
      expect(warnings).toEqual([
        "the service's Date header names no time mq can use; times follow this machine's clock",
      ]);
    });
  });

  it.each([
    [
      3 * 86_400_000 + 7_200_000,
      false,
      "the service's clock is 3 days ahead of this machine's; times follow the service's",
    ],
    [-86_400_001, false, "the service's clock is 1 day behind this machine's; times follow the service's"],
    [-23 * 3_600_000, false, undefined],
    [400 * 86_400_000, true, undefined],
  ])('clockWarning: offset %d ms, loopback %s', (offset, loopback, said) => {
    expect(clockWarning(T0 + offset, offset, loopback)).toBe(said);
  });

  describe('redaction before truncation', () => {
    const pieces = Array.from({ length: TOKEN.length - 7 }, (_, i) => TOKEN.slice(i, i + 8));
    const leaks = (text: string) => pieces.filter((p) => text.includes(p));
    const offsets = (cut: number) =>
      Array.from({ length: TOKEN.length + 4 }, (_, i) => Math.max(0, cut - TOKEN.length - 2 + i));

    async function everything(run: () => Promise<unknown>, lines: string[]): Promise<string> {
      try {
        await run();
        return lines.join('\n');
      } catch (err) {
        const e = err as MqError;
        return [e.message, ...(e.hints ?? []), ...lines].join('\n');
      }
    }

    it('an error body echoing the token at every offset around the 2,048-character cut', async () => {
      for (const k of offsets(2048)) {
        fake.on('POST /getSubmittedPullRequest', { status: 400, body: `${'x'.repeat(k)}${TOKEN}${'y'.repeat(20)}` });
        const { api, lines } = client();
        const text = await everything(() => api.getSubmittedPullRequest(PR), lines);
        expect(text).toContain('***');
        expect(leaks(text), `offset ${k}`).toEqual([]);
      }
    });

    it('a read or a write answered with non-JSON echoing the token at every offset around the 60-character cut', async () => {
      for (const k of offsets(60)) {
        const body = `${'x'.repeat(k)}${TOKEN}${'y'.repeat(20)}`;
        fake.on('POST /getSubmittedPullRequest', { status: 200, body });
        fake.on('POST /cancelPullRequest', { status: 200, body });
        const { api, lines } = client();
        const text =
          (await everything(() => api.getSubmittedPullRequest(PR), lines)) +
          (await everything(() => api.cancelPullRequest(PR), lines));
        expect(text).toMatch(/not JSON/);
        expect(leaks(text), `offset ${k}`).toEqual([]);
      }
    });

    it('a redirect pointing at a URL with the token in it', async () => {
      fake.on('POST /getSubmittedPullRequest', {
        status: 302,
        headers: { location: `https://elsewhere.example/?t=${TOKEN}` },
      });
      const { api, lines } = client();
      const text = await everything(() => api.getSubmittedPullRequest(PR), lines);
      expect(text).toContain('a redirect to https://elsewhere.example/?t=***');
      expect(leaks(text)).toEqual([]);
    });

    it('a successful read carries no copy of the token either', async () => {
      fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prTitle: `leak ${TOKEN}` } });
      const { api } = client();
      expect((await api.getSubmittedPullRequest(PR)).prTitle).toBe('leak ***');
    });
  });

  describe('response size cap', () => {
    it('stops reading past the cap: exit 1, never retried', async () => {
      fake.on('POST /getSubmittedPullRequest', { endless: { status: 200 } });
      const { api } = client({ maxResponseBytes: 3 * 1024 * 1024 });
      await expect(api.getSubmittedPullRequest(PR)).rejects.toMatchObject({
        exitCode: 1,
        why: 'the answer is larger than 3 MiB; mq stopped reading it',
      });
      expect(reads()).toBe(1);
    });
  });
});

describe('what a write must get back', () => {
  const ok =
    (body: string, contentType = 'text/plain') =>
    () =>
      checkWriteAnswer({ status: 200, contentType, body }, 'submit PR #1');
  it('accepts an empty body, OK and JSON', () => {
    for (const body of ['', '  ', 'OK', 'OK\n', '{}', '{"ok":true}', '[]'])
      expect(ok(body, body.startsWith('{') ? 'application/json' : 'text/plain')).not.toThrow();
  });
  it('refuses HTML (by type or by content) and other text', () => {
    expect(ok('OK', 'text/html')).toThrow(/an HTML page, not an API answer/);
    expect(ok('<!doctype html><title>Sign in</title>', 'application/octet-stream')).toThrow(/an HTML page/);
    expect(ok('Please sign in')).toThrow(/not JSON \(starts with "Please sign in"\)/);
    try {
      ok('<html></html>', 'text/html')();
    } catch (err) {
      expect((err as MqError).exitCode).toBe(1);
      expect((err as MqError).hints.join(' ')).toMatch(/API URL/);
    }
  });
});

describe('which proxy applies', () => {
  const env = { HTTP_PROXY: 'http://proxy.corp:3128', HTTPS_PROXY: 'http://secure-proxy.corp:3128' };
  const via = (url: string, extra: Record<string, string> = {}) =>
    proxyFor(new URL(url), proxySettings({ ...env, ...extra }));

  it('loopback is never proxied', () => {
    for (const u of [
      'http://localhost:8080/v1',
      'http://LOCALHOST./v1',
      'https://127.0.0.1/v1',
      'http://127.5.6.7:1/v1',
      'http://127.1/v1',
      'http://[::1]:9/v1',
      'http://[::ffff:127.0.0.1]/v1',
    ]) {
      expect(via(u), u).toBeUndefined();
    }
    expect(isLoopback('128.0.0.1')).toBe(false);
    expect(isLoopback('localhost.example.com')).toBe(false);
  });

  it('picks the proxy by scheme; https falls back to HTTP_PROXY; lower case wins; empty is unset', () => {
    expect(via('http://mq.example.com/v1')).toBe('http://proxy.corp:3128');
    expect(via('https://mq.example.com/v1')).toBe('http://secure-proxy.corp:3128');
    expect(proxyFor(new URL('https://mq.example.com/v1'), proxySettings({ HTTP_PROXY: 'http://p:1' }))).toBe(
      'http://p:1',
    );
    expect(
      proxyFor(
        new URL('https://mq.example.com/v1'),
        proxySettings({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:1' }),
      ),
    ).toBe('http://lower:1');
    expect(
      proxyFor(new URL('https://mq.example.com/v1'), proxySettings({ HTTPS_PROXY: '', HTTP_PROXY: '' })),
    ).toBeUndefined();
    expect(proxyFor(new URL('https://mq.example.com/v1'), proxySettings({}))).toBeUndefined();
  });

  it('NO_PROXY: host, subdomains, leading dot or star, ports, *', () => {
    expect(via('https://mq.example.com/v1', { NO_PROXY: 'example.com' })).toBeUndefined();
    expect(via('https://mq.example.com/v1', { NO_PROXY: '.example.com' })).toBeUndefined();
    expect(via('https://mq.example.com/v1', { no_proxy: '*.example.com' })).toBeUndefined();
    expect(via('https://example.com/v1', { NO_PROXY: '.example.com' })).toBeUndefined();
    expect(via('https://notexample.com/v1', { NO_PROXY: 'example.com' })).toBe('http://secure-proxy.corp:3128');
    expect(via('https://mq.example.com/v1', { NO_PROXY: 'mq.example.com:443' })).toBeUndefined();
    expect(via('https://mq.example.com:8443/v1', { NO_PROXY: 'mq.example.com:443' })).toBe(
      'http://secure-proxy.corp:3128',
    );
    expect(via('https://mq.example.com/v1', { NO_PROXY: 'other.org, *' })).toBeUndefined();
    expect(via('https://10.1.2.3/v1', { NO_PROXY: '10.1.2.3' })).toBeUndefined();
  });

  it('a proxy setting that is not a URL is a configuration error, never echoed, and nothing is sent', async () => {
    const http = new HttpClient({
      baseUrl: 'https://mq.example.com/v1',
      token: TOKEN,
      userAgent: 't',
      timeoutMs: 1000,
      env: { HTTPS_PROXY: 'http://u:pw-secret@[bad' },
    });
    const err = await http
      .call({ endpoint: 'getQueue', method: 'POST', body: '{}', idempotent: true, what: 'get the queue' })
      .catch((e: MqError) => e);
    expect(err).toMatchObject({ exitCode: 7 });
    expect((err as MqError).message).not.toContain('pw-secret');
  });
});
