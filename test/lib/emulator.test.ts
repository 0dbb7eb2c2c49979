/**
 * `mq-cli/emulator`: the in-process fixture and its control functions — fake PRs with scripted
 * outcomes, the manual clock, listing and completing runs, reset, errors and a clean stop.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { EmulatorControlError, startEmulator, type EmulatorFixture } from '../../src/lib/emulator.js';
import { MergeQueueClient } from '../../src/lib/index.js';

const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const queue = { repo, targetBranch: 'main' };
let emu: EmulatorFixture | undefined;

afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

describe('startEmulator', () => {
  it('listens on 127.0.0.1 on a free port with a random token the API demands', async () => {
    emu = await startEmulator();
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}/v1`);
    expect(emu.token).toMatch(/^emu_[0-9a-f]{32}$/);
    const denied = await fetch(`${emu.url}/getQueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(queue),
    });
    expect(denied.status).toBe(401);
  });

  it('scripts PRs and runs: outcomes, completing a run by hand, listing by branch, reset', async () => {
    emu = await startEmulator({ clock: 'manual', seed: 3, startTime: new Date('2026-02-01T00:00:00Z') });
    expect(await emu.now()).toBe('2026-02-01T00:00:00.000Z');
    const client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
    await client.createQueue({ ...queue, concurrency: 2 });
    const fake = await emu.createPullRequest({
      repo,
      number: 1,
      title: 'Flaky',
      outcomes: ['fail', 'pass'],
      testMinutes: 5,
    });
    expect(fake).toMatchObject({
      number: 1,
      title: 'Flaky',
      outcomes: ['fail', 'pass'],
      testMinutes: 5,
      mergeable: true,
      upToDate: false,
    });
    await client.submitPullRequest({ ...queue, pr: { number: 1 } });
    await client.submitPullRequest({ ...queue, pr: { number: 2 } });
    const runs = await emu.listRuns({ branch: 'main' });
    expect(runs.map((r) => [r.prNumbers, r.basePrNumbers, r.status])).toEqual([
      [[1], [], 'in_progress'],
      [[2], [1], 'in_progress'],
    ]);
    expect(await emu.listRuns({ branch: 'other' })).toEqual([]);
    const second = runs.find((r) => r.prNumbers.includes(2));
    const done = await emu.completeRun(second?.id ?? '', 'failed');
    expect(done).toMatchObject({ id: second?.id, status: 'failed' });
    expect(await emu.advance(5)).toBe('2026-02-01T00:05:00.000Z');
    expect((await client.getSubmittedPullRequest({ ...queue, pr: { number: 1 } })).state).toBe('failed');
    await emu.reset();
    expect(await emu.listRuns()).toEqual([]);
    await expect(client.getQueue(queue)).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('gives the v2 base URL and API key: a Bearer call reads what v1 submitted, resolved by branch', async () => {
    emu = await startEmulator({ apiKey: 'trunk_v2_fixture_key', rateLimits: false });
    expect(emu.v2Url).toBe(`http://127.0.0.1:${emu.port}/v2`);
    expect(emu.apiKey).toBe('trunk_v2_fixture_key');
    const client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
    await client.createQueue(queue);
    expect(await emu.createPullRequest({ repo, number: 5, branch: 'feature/widget' })).toMatchObject({
      branch: 'feature/widget',
    });
    await client.submitPullRequest({ ...queue, pr: { number: 5 } });
    const v2 = async (path: string, key = emu?.apiKey) => {
      const res = await fetch(`${emu?.v2Url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, json: (await res.json()) as { data: Array<{ id: string; number: number }> } };
    };
    const repos = await v2('/repositories?providerUrl=https://github.com/acme/app');
    const repositoryId = repos.json.data[0]?.id;
    const found = await v2(`/pull-requests?repositoryId=${repositoryId}&branch=feature/widget`);
    expect(found.status).toBe(200);
    expect(found.json.data.map((p) => p.number)).toEqual([5]);
    expect((await v2('/merge-queues', 'trunk_v2_wrong')).status).toBe(401);
    await expect(startEmulator({ apiKey: 'has space' })).rejects.toThrow(/apiKey/);
  });

  it('a control call the emulator refuses throws EmulatorControlError with the status', async () => {
    emu = await startEmulator();
    const err = await emu.completeRun('no-such-run', 'passed').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmulatorControlError);
    expect(err).toMatchObject({ status: 404 });
    await expect(emu.advance(-1)).rejects.toThrow(TypeError);
  });

  it('on the real clock, advance is refused; stop is safe to call twice and closes the port', async () => {
    emu = await startEmulator({ clock: 'real' });
    await expect(emu.advance(1)).rejects.toMatchObject({ status: 400 });
    const url = emu.url;
    await emu.stop();
    await emu.stop();
    await expect(fetch(`${url}/getQueue`, { method: 'POST' })).rejects.toThrow();
  });
});
