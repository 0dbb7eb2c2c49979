/**
 * A command's requests end with it: run() aborts the command's signal once the command has its
 * outcome, and a command that waits builds its client with its deadline, so a side read (the
 * queue state beside a submit) can neither outlive the command nor run past --timeout.
 */
import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../../src/api/http.js';
import { type ClientOptions, Context } from '../../src/context.js';
import { ApiError } from '../../src/errors.js';
import { run } from '../../src/run.js';
import { FIXED_NOW, virtualClock } from '../helpers/clock.js';
import { fakeClient, type FakeClient } from '../helpers/fake-client.js';
import { memoryIO } from '../helpers/memory-io.js';
import { tempDir } from '../helpers/run-cli.js';
import { queueRecord } from '../helpers/test-context.js';

function context(fake: FakeClient, seen: ClientOptions[] = [], signal?: AbortSignal) {
  const io = memoryIO({});
  const target = { MQ_REPO: 'github.com/acme/widgets', MQ_BRANCH: 'main' };
  const env: NodeJS.ProcessEnv = { MQ_CONFIG_DIR: tempDir('mq-config-'), ...target };
  const client = async (_ctx: Context, opts: ClientOptions) => {
    seen.push(opts);
    return fake.client;
  };
  return { io, ctx: new Context({ env, io, cwd: tempDir('mq-cwd-'), clock: virtualClock(), signal, client }) };
}

/** A read that answers only when its call is aborted; `aborted` tells whether it was. */
function silentRead() {
  const state = { aborted: false };
  const answer = (_req: unknown, call?: CallOptions) =>
    new Promise((_, reject) => {
      call?.signal?.addEventListener('abort', () => {
        state.aborted = true;
        reject(new Error('aborted'));
      });
    });
  return { state, answer };
}

describe('run() ends what the command started', () => {
  it('a submit refused at once: the queue-state read still in flight is aborted when the command ends', async () => {
    const read = silentRead();
    const refused = new ApiError(4, 'submit PR #5', 'the service answered HTTP 401: bad token', 401, 'bad token');
    const fake = fakeClient({ submitPullRequest: [refused], getQueueState: [read.answer] });
    const ctrlC = new AbortController();
    const { ctx, io } = context(fake, [], ctrlC.signal);
    expect(await run(ctx, ['submit', '5'])).toBe(4);
    expect(io.stderr).toContain('bad token');
    expect(read.state.aborted).toBe(true);
    expect(ctx.signal.aborted).toBe(true);
    // Ending the command is not a Ctrl-C.
    expect(ctrlC.signal.aborted).toBe(false);
  });

  it('a command that succeeds ends its signal too', async () => {
    const fake = fakeClient({ submitPullRequest: [undefined], getQueueState: ['running'] });
    const { ctx } = context(fake);
    expect(await run(ctx, ['submit', '5'])).toBe(0);
    expect(ctx.signal.aborted).toBe(true);
  });
});

const merged = { prNumber: 5, state: 'merged', isCurrentlySubmittedToQueue: false };
/** A submit that is accepted, then polls that find the PR merged. */
const submitted = { submitPullRequest: [undefined], getSubmittedPullRequest: [merged] };

describe('submit --wait: the queue-state read beside the submit never holds the wait up', () => {
  it('a read that never answers: the wait ends with its outcome; the read is aborted', { timeout: 5000 }, async () => {
    const read = silentRead();
    const fake = fakeClient({ ...submitted, getQueueState: [read.answer] });
    const { ctx, io } = context(fake);
    expect(await run(ctx, ['submit', '5', '--wait', '--timeout', '10s'])).toBe(0);
    expect(io.stderr).toContain('PR #5 merged');
    expect(io.stderr).not.toContain('warning');
    expect(read.state.aborted).toBe(true);
  });

  it('a paused queue still gets its warning', async () => {
    const fake = fakeClient({ ...submitted, getQueueState: ['paused'] });
    const { ctx, io } = context(fake);
    expect(await run(ctx, ['submit', '5', '--wait', '--timeout', '10s'])).toBe(0);
    expect(io.stderr).toContain('warning: queued, but the queue is paused');
  });
});

describe('a command that waits binds its client to its deadline (now + --timeout)', () => {
  const TEN = ['--timeout', '10s'];
  const draining = queueRecord({ state: 'draining' });
  it.each([
    [['submit', '5', '--wait', ...TEN], { ...submitted, getQueueState: ['running'] }],
    [['wait', '5', ...TEN], { getSubmittedPullRequest: [merged] }],
    [
      ['queue', 'drain', '--wait', ...TEN],
      { getQueueState: ['running'], getQueue: [queueRecord()], updateQueue: [draining] },
    ],
  ])('%j', async (argv, scripts) => {
    const seen: ClientOptions[] = [];
    const { ctx } = context(fakeClient(scripts), seen);
    expect(await run(ctx, argv)).toBe(0);
    expect(seen).toEqual([expect.objectContaining({ waiting: true, deadline: FIXED_NOW + 10_000 })]);
  });
});
