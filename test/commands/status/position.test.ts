/**
 * `mq status` tells a live PR's place and why it waits, on v1 (derived from the queue record, marked
 * approximate) and v2 (`/order`), against the in-process emulator on a manual clock.
 */
import { describe, expect, it } from 'vitest';

import { PERMISSIONS } from '../../../src/emulator/http/v2/auth.js';
import { queue, repo, useEmulator } from '../../emulator/http-helpers.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv, tempDir } from '../../helpers/run-cli.js';

const KEY = 'trunk_v2_position0123456789';
const { emu, client: c } = useEmulator({
  apiKeys: [{ name: 'ci', key: KEY, permissions: [...PERMISSIONS] }],
  rateLimits: false,
});
const cacheDir = tempDir('mq-ids-');
const APIS = ['v1', 'v2'] as const;
type Api = (typeof APIS)[number];

const env = (api: Api) => ({
  ...baseEnv(api === 'v1' ? emu.url : emu.url.replace(/\/v1$/, '')),
  MQ_TOKEN: api === 'v1' ? emu.token : KEY,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_CACHE_DIR: cacheDir,
});

async function status(api: Api, pr: number): Promise<Record<string, any>> {
  const r = await runMq(['status', String(pr), '--json'], { env: env(api) });
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return JSON.parse(r.stdout);
}

const place = (d: Record<string, any>) => ({
  position: d.position,
  of: d.of,
  ahead: d.ahead,
  heldBy: d.heldBy,
  code: d.waitingBecause?.code ?? null,
});

const setup = async (settings: Record<string, unknown> = {}) => {
  expect((await c.post('createQueue', queue)).status).toBe(200);
  if (Object.keys(settings).length > 0)
    expect((await c.post('updateQueue', { ...queue, ...settings })).status).toBe(200);
};
const submit = async (number: number) =>
  expect((await c.post('submitPullRequest', { ...queue, pr: { number } })).status).toBe(200);
const fakePr = (number: number, fields: Record<string, unknown>) =>
  c.post('/_emulator/pullRequests', { repo, number, ...fields });

describe.each(APIS)('mq status: the place in the queue and why it waits (%s)', (api) => {
  it('the PR under test and the PRs waiting for a test slot behind it', async () => {
    await setup();
    for (const n of [1, 2, 3]) await submit(n);
    const first = await status(api, 1);
    expect(place(first)).toEqual({ position: 1, of: 3, ahead: [], heldBy: [], code: 'testing' });
    expect(first.positionApproximate).toBe(api === 'v1');
    expect(place(await status(api, 3))).toEqual({
      position: 3,
      of: 3,
      ahead: [2],
      heldBy: [],
      code: 'waiting_for_slot',
    });
  });

  it('a batch under test names its run and its other PRs on v2; the next PR waits for a batch to fill', async () => {
    await setup({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 10 });
    for (const n of [1, 2, 3]) await submit(n);
    const one = await status(api, 1);
    expect(place(one)).toMatchObject({ position: 1, of: 3, code: 'testing' });
    const run = (await c.pr(1)).verifiedByTestRun ?? (await c.runs())[0]?.id;
    if (api === 'v2') expect(one.waitingBecause.words).toBe(`being tested in run ${run} with #2`);
    else expect(one.waitingBecause.words).toBe('being tested');
    expect(place(await status(api, 3))).toEqual({ position: 3, of: 3, ahead: [2], heldBy: [], code: 'batch_filling' });
  });

  it('held by a failing PR: named, with the PR directly ahead', async () => {
    await setup({ concurrency: 2 });
    await fakePr(1, { testMinutes: 10 });
    await fakePr(2, { testMinutes: 5, outcomes: ['fail'] });
    for (const n of [1, 2, 3]) await submit(n);
    await c.advance(6);
    expect((await c.pr(2)).state).toBe('pending_failure');
    expect(place(await status(api, 2))).toMatchObject({ position: 2, code: 'pending_failure' });
    const held = await status(api, 3);
    expect(place(held)).toEqual({ position: 3, of: 3, ahead: [2], heldBy: [2], code: 'held_by_failure' });
    expect(held.waitingBecause.words).toBe('held by #2, whose tests failed');
  });

  it('a paused queue starts no tests', async () => {
    await setup();
    for (const n of [1, 2]) await submit(n);
    expect((await c.post('updateQueue', { ...queue, state: 'paused' })).status).toBe(200);
    expect(place(await status(api, 2))).toEqual({ position: 2, of: 2, ahead: [1], heldBy: [], code: 'queue_paused' });
  });

  it('missing impacted targets: not admitted, so no place', async () => {
    await setup({ mode: 'parallel' });
    await submit(1);
    const d = await status(api, 1);
    expect(place(d)).toEqual({ position: null, of: 0, ahead: [], heldBy: [], code: 'impacted_targets_missing' });
  });

  it('not ready: GitHub does not call it mergeable', async () => {
    await setup();
    await submit(1);
    await fakePr(2, { mergeable: false });
    await submit(2);
    const d = await status(api, 2);
    expect(place(d)).toEqual({ position: null, of: 1, ahead: [], heldBy: [], code: 'not_mergeable' });
    expect(d.waitingBecause.words).toBe(
      'not ready: GitHub says not_mergeable (checks pending, a review or a conflict)',
    );
  });

  it('a merged PR has no place: the fields are there, empty', async () => {
    await setup();
    await fakePr(1, { testMinutes: 1 });
    await submit(1);
    await c.advance(2);
    const d = await status(api, 1);
    expect(place(d)).toEqual({ position: null, of: null, ahead: [], heldBy: [], code: null });
    expect(d.positionApproximate).toBe(false);
  });
});

describe('mq status, the views of the place', () => {
  it('piped: one position line after the story; on a terminal and in markdown, an "in the queue" block', async () => {
    await setup();
    for (const n of [1, 2, 3]) await submit(n);
    const plain = await runMq(['status', '3', '-o', 'plain'], { env: env('v1') });
    expect(plain.stdout.trimEnd().split('\n').at(-1)).toBe(
      'position\t3\t3\t2\t\twaiting_for_slot\twaiting for a test slot behind #2\ttrue',
    );
    const md = await runMq(['status', '3', '-o', 'markdown'], { env: env('v2') });
    expect(md.stdout).toContain(
      '### In the queue\n\n| Field | Value |\n| --- | --- |\n| Position | 3rd of 3 |\n| Directly ahead | #2 |\n' +
        '| Why | waiting for a test slot behind #2 |\n',
    );
    const v1md = await runMq(['status', '3', '-o', 'markdown'], { env: env('v1') });
    expect(v1md.stdout).toContain("| Position | 3rd of 3 (approximate: derived from v1's queue record) |");
  });

  it('several PRs: the Position column and the JSON fields come from the same order on both APIs', async () => {
    await setup({ concurrency: 2 });
    for (const n of [1, 2, 3, 4]) await submit(n);
    const enqueued = (await c.post('getQueue', queue)).json().enqueuedPullRequests.map((e: any) => e.prNumber);
    const args = ['status', '4', '1', '3', '2'];
    for (const api of APIS) {
      const plain = await runMq([...args, '-o', 'plain'], { env: env(api) });
      // The column is the PR's index in v1's queue record, as before.
      const positions = plain.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t'))
        .map((f) => [Number(f[0]), Number(f[4])]);
      expect(positions).toEqual([4, 1, 3, 2].map((n) => [n, enqueued.indexOf(n) + 1]));
      const doc = JSON.parse((await runMq([...args, '--json'], { env: env(api) })).stdout);
      expect(doc.pullRequests.map((p: any) => [p.prNumber, p.position, p.of, p.ahead, p.waitingBecause.code])).toEqual([
        [4, 4, 4, [3], 'waiting_for_slot'],
        [1, 1, 4, [], 'testing'],
        [3, 3, 4, [2], 'waiting_for_slot'],
        [2, 2, 4, [1], 'testing'],
      ]);
    }
  });
});
