/**
 * The library entry (`mq-cli`): MergeQueueClient against the emulator fixture and a scripted fake
 * service — one method per endpoint, typed errors with status and exit-code kind, retries, the
 * token kept out of debug lines and inspection, waitForPr's outcomes — and what its bundle loads.
 */
import { inspect } from 'node:util';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { MergeQueueClient, MergeQueueError } from '../../src/lib/index.js';
import { startEmulator, type EmulatorFixture } from '../../src/lib/emulator.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const queue = { repo, targetBranch: 'main' };
const TOKEN = 'tok_library_secret_81c4';

describe('against the emulator fixture', () => {
  let emu: EmulatorFixture;
  let client: MergeQueueClient;
  beforeAll(async () => {
    emu = await startEmulator({ clock: 'manual', token: TOKEN, seed: 1, startTime: '2026-01-05T09:00:00Z' });
    client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
  });
  afterAll(async () => {
    await emu.stop();
  });
  beforeEach(async () => {
    await emu.reset();
    await client.createQueue({ ...queue, concurrency: 2 });
  });

  it('one method per endpoint: submit, read, list, queue, update, testing details, cancel', async () => {
    await emu.createPullRequest({ repo, number: 1, title: 'Add the thing', sha: 'a'.repeat(40) });
    await client.setImpactedTargets({ ...queue, pr: { number: 1, sha: 'a'.repeat(40) }, impactedTargets: ['//x'] });
    await client.submitPullRequest({ ...queue, pr: { number: 1 }, priority: 'high' });
    await client.submitPullRequest({ ...queue, pr: { number: 2 } });
    const pr = await client.getSubmittedPullRequest({ ...queue, pr: { number: 1 } });
    expect(pr).toMatchObject({
      state: 'testing',
      prTitle: 'Add the thing',
      priorityName: 'high',
      isCurrentlySubmittedToQueue: true,
    });
    const q = await client.getQueue(queue);
    expect(q.enqueuedPullRequests?.map((e) => e.prNumber)).toEqual([1, 2]);
    expect((await client.listPullRequests({ ...queue, state: 'testing' })).pullRequests?.length).toBe(2);
    expect(await client.updateQueue({ ...queue, concurrency: 3 })).toMatchObject({ concurrency: 3 });
    const [run] = await emu.listRuns({ branch: 'main' });
    expect(run).toMatchObject({ prNumbers: [1], status: 'in_progress', repo });
    const details = await client.getMergeQueueTestingDetails({ ...queue, testRunId: run?.id ?? '' });
    expect(details).toMatchObject({ status: 'in_progress', impactedTargetsForTestedPrs: ['//x'] });
    await client.cancelPullRequest({ ...queue, pr: { number: 2 } });
    expect((await client.getSubmittedPullRequest({ ...queue, pr: { number: 2 } })).state).toBe('cancelled');
    expect((await client.getMergeQueueMetrics({ repo: 'acme/app', repoHost: 'github.com' })).body).toContain('# TYPE');
  });

  it('history: a PR with its timeline, several PRs at once, testing results', async () => {
    await client.submitPullRequest({ ...queue, pr: { number: 21 } });
    await emu.advance(10);
    const pr = await client.getSubmittedPullRequest({ ...queue, pr: { number: 21 }, includeTimeline: true });
    expect(pr.state).toBe('merged');
    const states = (pr.timeline ?? []).map((t) => t.state);
    expect(states).toContain('testing');
    expect(states).toContain('merged');
    expect((await client.getSubmittedPullRequest({ ...queue, pr: { number: 21 } })).timeline).toBeUndefined();
    const lookup = await client.getSubmittedPullRequests({ ...queue, prs: [{ number: 21 }, { number: 99 }] });
    expect(lookup.pullRequests?.map((p) => p.prNumber)).toEqual([21]);
    expect(lookup.notFound?.map((n) => n.number)).toEqual([99]);
    const results = await client.listMergeQueueTestingResults({
      ...queue,
      since: '2026-01-05T00:00:00Z',
      until: '2026-01-06T00:00:00Z',
    });
    expect(results.testingResults?.map((r) => [r.prNumber, r.outcome, r.cycleConclusion])).toEqual([
      [21, 'passed', 'merged'],
    ]);
  });

  it('waitForPr resolves merged once the clock moves past the run, with the transitions it saw', async () => {
    await client.submitPullRequest({ ...queue, pr: { number: 5 } });
    const seen: string[] = [];
    const waiting = client.waitForPr({
      ...queue,
      pr: 5,
      intervalMs: 100,
      timeoutMs: 60_000,
      onTransition: (t) => seen.push(t.to),
    });
    await until(() => seen.includes('testing'));
    const before = Date.parse(await emu.now());
    expect(Date.parse(await emu.advance(10)) - before).toBe(600_000);
    const result = await waiting;
    expect(result).toMatchObject({ pr: 5, outcome: 'merged', exitCode: 0, state: 'merged' });
    expect(result.transitions.map((t) => [t.from, t.to, t.afterMs])).toEqual([
      [null, 'testing', null],
      ['testing', 'merged', 600_000],
    ]);
  });

  it('waitForPr: a failing run ends it with exit code 9, a PR still testing at timeoutMs with 8', async () => {
    await emu.createPullRequest({ repo, number: 6, outcomes: ['fail'] });
    await client.submitPullRequest({ ...queue, pr: { number: 6 } });
    await emu.advance(10);
    expect(await client.waitForPr({ ...queue, pr: { number: 6 }, intervalMs: 100 })).toMatchObject({
      outcome: 'failed',
      exitCode: 9,
    });
    await client.submitPullRequest({ ...queue, pr: { number: 7 } });
    expect(await client.waitForPr({ ...queue, pr: 7, intervalMs: 100, timeoutMs: 300 })).toMatchObject({
      outcome: 'timeout',
      exitCode: 8,
      state: 'testing',
    });
  });

  it('waitForPr stops when its signal fires: MergeQueueError of kind interrupted', async () => {
    await client.submitPullRequest({ ...queue, pr: { number: 8 } });
    const controller = new AbortController();
    const waiting = client.waitForPr({
      ...queue,
      pr: 8,
      intervalMs: 100,
      signal: controller.signal,
      onTransition: () => controller.abort(),
    });
    await expect(waiting).rejects.toMatchObject({ name: 'MergeQueueError', kind: 'interrupted', exitCode: 130 });
  });

  it('errors carry the HTTP status and the exit-code kind', async () => {
    const missing = await client.getSubmittedPullRequest({ ...queue, pr: { number: 404 } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MergeQueueError);
    expect(missing).toMatchObject({ status: 404, exitCode: 3, kind: 'not-found', what: 'get PR #404' });
    const conflict = await client.createQueue(queue).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, exitCode: 5, kind: 'rejected' });
    const denied = new MergeQueueClient({ apiUrl: emu.url, token: 'not-the-token' });
    await expect(denied.getQueue(queue)).rejects.toMatchObject({ status: 401, exitCode: 4, kind: 'auth' });
  });

  it('a request outside the spec is refused before sending: kind usage, no status', async () => {
    const err = await client.submitPullRequest({ ...queue, pr: { number: -1 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'usage', exitCode: 2, status: undefined });
    expect(await emu.listRuns()).toEqual([]);
    // setImpactedTargets has no PR 0 (its schema's minimum is 1); the other PR endpoints allow it.
    const zero = await client
      .setImpactedTargets({ ...queue, pr: { number: 0, sha: 'a'.repeat(40) }, impactedTargets: 'ALL' })
      .catch((e: unknown) => e);
    expect(zero).toMatchObject({ kind: 'usage', exitCode: 2, status: undefined });
    expect(zero).toHaveProperty('message', expect.stringContaining('pr.number'));
  });
});

describe('against a scripted service', () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startFakeServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('retries a 503 on an idempotent call, then succeeds; sends the token only in x-api-token', async () => {
    server.on('POST /submitPullRequest', { status: 503, body: 'busy' }, { status: 200, body: 'OK' });
    const lines: string[] = [];
    const client = new MergeQueueClient({
      apiUrl: server.url,
      token: TOKEN,
      retryBaseMs: 1,
      debug: (l) => lines.push(l),
    });
    await client.submitPullRequest({ ...queue, pr: { number: 3 } });
    expect(server.requests.map((r) => r.path)).toEqual(['/submitPullRequest', '/submitPullRequest']);
    expect(server.requests[0]?.headers['x-api-token']).toBe(TOKEN);
    expect(server.requests[0]?.body).toEqual({ ...queue, pr: { number: 3 } });
    expect(lines.join('\n')).toContain('x-api-token: ***');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(inspect(client, { depth: 20, showHidden: true })).not.toContain(TOKEN);
  });

  it('gives up after maxRetries with kind unavailable and the last status', async () => {
    server.on('POST /getQueue', { status: 502, body: 'bad gateway' });
    const client = new MergeQueueClient({ apiUrl: server.url, token: TOKEN, retryBaseMs: 1, maxRetries: 2 });
    await expect(client.getQueue(queue)).rejects.toMatchObject({ kind: 'unavailable', status: 502, exitCode: 6 });
    expect(server.requests).toHaveLength(3);
  });

  it("waitForPr bounds each poll by the wait's deadline: a service that never answers ends in timeout, not a hang", async () => {
    server.on('POST /getSubmittedPullRequest', { hang: true });
    const client = new MergeQueueClient({ apiUrl: server.url, token: TOKEN, timeoutMs: 600_000 });
    const result = await client.waitForPr({ ...queue, pr: 4, intervalMs: 100, timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'timeout', exitCode: 8, state: null });
  });

  it("waitForPr's signal stops a poll in flight", async () => {
    server.on('POST /getSubmittedPullRequest', { hang: true });
    const client = new MergeQueueClient({ apiUrl: server.url, token: TOKEN });
    const controller = new AbortController();
    const waiting = client.waitForPr({ ...queue, pr: 4, signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'MergeQueueError', kind: 'interrupted' });
  });

  it('a per-call signal stops that call only', async () => {
    server.on('POST /getQueue', { hang: true });
    const client = new MergeQueueClient({ apiUrl: server.url, token: TOKEN });
    const controller = new AbortController();
    const call = client.getQueue(queue, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: 'interrupted' });
    server.on('POST /getQueue', { status: 200, body: { state: 'running' } });
    expect(await client.getQueue(queue)).toMatchObject({ state: 'running' });
  });

  it('never follows a redirect (the token must not reach another host)', async () => {
    server.on('POST /getQueue', { status: 307, headers: { location: 'http://127.0.0.2:9/steal' } });
    const client = new MergeQueueClient({ apiUrl: server.url, token: TOKEN });
    await expect(client.getQueue(queue)).rejects.toMatchObject({ kind: 'unexpected', status: 307 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('constructor checks', () => {
  it('refuses a missing or odd apiUrl and a missing token with kind usage', () => {
    const bad = [
      { apiUrl: '', token: 't' },
      { apiUrl: 'ftp://x/v1', token: 't' },
      { apiUrl: 'https://user:pw@x/v1', token: 't' },
      { apiUrl: 'https://x/v1', token: '' },
      { apiUrl: 'http://mq.internal/v1', token: 't' },
    ];
    for (const options of bad) {
      expect(() => new MergeQueueClient(options), JSON.stringify(options)).toThrow(MergeQueueError);
    }
    expect(
      () => new MergeQueueClient({ apiUrl: 'http://mq.internal/v1', token: 't', allowInsecureHttp: true }),
    ).not.toThrow();
    expect(() => new MergeQueueClient({ apiUrl: 'http://localhost:8080/v1', token: 't' })).not.toThrow();
  });

  /** What the constructor threw (a MergeQueueError), for its kind and wording. */
  function refusal(options: ConstructorParameters<typeof MergeQueueClient>[0]): MergeQueueError {
    try {
      new MergeQueueClient(options);
    } catch (err) {
      if (err instanceof MergeQueueError) return err;
      throw err;
    }
    throw new Error(`accepted ${JSON.stringify(options)}`);
  }

  it("applies the CLI's checks, with its wording: API URL, token, request timeout", () => {
    for (const apiUrl of ['https://x/v1?tenant=a', 'https://x/v1#frag', 'https://x/v1?']) {
      const err = refusal({ apiUrl, token: 't' });
      expect(err, apiUrl).toMatchObject({ kind: 'usage', exitCode: 2 });
      expect(err.why).toMatch(
        /^the API URL \(from option apiUrl\) must be a plain URL, without a (query string|fragment)/,
      );
    }
    expect(refusal({ apiUrl: 'http://mq.internal/v1', token: 't' }).hints).toEqual([
      'use https://, or set allowInsecureHttp if this network is trusted',
    ]);
    // A token the HTTP layer could not send is the caller's configuration, not a connection failure.
    for (const [token, what] of [
      ['tok\r\nx-evil: 1', 'a control character (U+000D)'],
      ['tok\nen', 'a control character (U+000A)'],
      ['tok\u0000en', 'a control character (U+0000)'],
      ['tok en', 'a space (U+0020)'],
    ]) {
      const err = refusal({ apiUrl: 'https://x/v1', token: token as string });
      expect(err, JSON.stringify(token)).toMatchObject({ kind: 'config', exitCode: 7, status: undefined });
      expect(err.why).toBe(`the API token from option token contains ${what}; a token is visible ASCII only`);
    }
    for (const [timeoutMs, why] of [
      [0, 'must be greater than zero'],
      [-5, 'must be greater than zero'],
      [2 ** 31, 'must be at most 24 days'],
      [Number.POSITIVE_INFINITY, 'must be at most 24 days'],
      [Number.NaN, 'must be a number of milliseconds'],
    ] as const) {
      expect(refusal({ apiUrl: 'https://x/v1', token: 't', timeoutMs }), String(timeoutMs)).toMatchObject({
        kind: 'usage',
        why: `option timeoutMs: ${why}`,
      });
    }
    expect(() => new MergeQueueClient({ apiUrl: 'https://x/v1', token: 't', timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe('what the bundles contain', () => {
  it('mq-cli loads the API client only: no commander, cli-table3, chalk, conf or command code', async () => {
    const { build } = await import('esbuild');
    const mod = (await import(join(ROOT, 'scripts/build-lib.mjs'))) as { libBuildOptions(): Record<string, unknown> };
    const result = await build({ ...mod.libBuildOptions(), write: false, metafile: true });
    const outputs = result.metafile?.outputs ?? {};
    const index = Object.entries(outputs).find(([name]) => name.endsWith('dist/lib/index.js'))?.[1];
    const inputs = Object.keys(index?.inputs ?? {});
    expect(inputs).toContain('src/api/client.ts');
    expect(inputs).toContain('src/lib/client.ts');
    const forbidden = inputs.filter((i) =>
      /node_modules\/(commander|cli-table3|chalk|conf|prom-client)\/|^src\/(commands|cli|output|config|views|help|context|program|run|main)\b/.test(
        i,
      ),
    );
    expect(forbidden).toEqual([]);
    // The fixture does not pull the CLI in either.
    const emulator = Object.entries(outputs).find(([name]) => name.endsWith('dist/lib/emulator.js'))?.[1];
    expect(
      Object.keys(emulator?.inputs ?? {}).filter((i) =>
        /node_modules\/(commander|cli-table3|chalk)\/|^src\/(commands|cli|output)\//.test(i),
      ),
    ).toEqual([]);
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
