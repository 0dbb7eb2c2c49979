/**
 * The library's order(), graph() and estimate() against the emulator fixture on a manual clock (v1:
 * the order derived from the queue record, no graph, no estimate).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { startEmulator, type EmulatorFixture } from '../../src/lib/emulator.js';
import { MergeQueueClient, MergeQueueError, type QueueOrder } from '../../src/lib/index.js';

const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const queue = { repo, targetBranch: 'main' };

describe('order, graph and estimate on v1', () => {
  let emu: EmulatorFixture;
  let client: MergeQueueClient;
  beforeAll(async () => {
    emu = await startEmulator({ clock: 'manual', token: 'tok_library_order_5d2e', startTime: '2026-01-05T09:00:00Z' });
    client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
  });
  afterAll(async () => {
    await emu.stop();
  });
  beforeEach(async () => {
    await emu.reset();
    await client.createQueue({ ...queue, concurrency: 2 });
  });

  it('order(): the PRs under test, then the PRs waiting with the PR directly ahead; approximate', async () => {
    await emu.createPullRequest({ repo, number: 1, title: 'First' });
    for (const number of [1, 2, 3]) await client.submitPullRequest({ ...queue, pr: { number } });
    const order: QueueOrder = await client.order(queue);
    expect(order).toEqual({
      queueState: 'running',
      mode: 'single',
      batchingEnabled: false,
      batches: [
        {
          runId: null,
          state: 'testing',
          isBisection: false,
          prs: [
            { number: 1, title: 'First' },
            { number: 2, title: 'PR #2' },
          ],
        },
      ],
      pending: [
        {
          number: 3,
          title: 'PR #3',
          schedulability: 'schedulable',
          predictedBatch: null,
          directlyAhead: [2],
          heldBy: [],
        },
      ],
      awaitingAdmission: [],
      awaitingAdmissionTotal: 0,
      approximate: true,
    });
  });

  it('graph() is refused on v1 with kind rejected; estimate() is undefined', async () => {
    await client.submitPullRequest({ ...queue, pr: { number: 1 } });
    const refused = await client.graph(queue).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MergeQueueError);
    expect(refused).toMatchObject({ kind: 'rejected', exitCode: 5 });
    expect((refused as MergeQueueError).message).toContain('the v1 API has no dependency graph');
    expect(await client.estimate({ ...queue, pr: { number: 1 } })).toBeUndefined();
  });

  it('errors are the library’s: an unknown queue is kind not-found', async () => {
    const missing = await client.order({ ...queue, targetBranch: 'nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MergeQueueError);
    expect(missing).toMatchObject({ kind: 'not-found', exitCode: 3 });
  });
});
