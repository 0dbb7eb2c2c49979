// merge-bot.test.ts: the emulator as a fixture (node --test; vitest and jest work the same way).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MergeQueueClient } from 'mq-cli';
import { startEmulator, type EmulatorFixture } from 'mq-cli/emulator';

const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const queue = { repo, targetBranch: 'main' };
let emu: EmulatorFixture;
let client: MergeQueueClient;

before(async () => {
  emu = await startEmulator({ clock: 'manual' });
  client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
  await client.createQueue(queue);
});

after(async () => {
  await emu.stop();
});

test('a submitted PR merges once its test run has had ten minutes', async () => {
  await emu.createPullRequest({ repo, number: 42, title: 'Add the thing' });
  await client.submitPullRequest({ ...queue, pr: { number: 42 } });
  assert.equal((await client.getSubmittedPullRequest({ ...queue, pr: { number: 42 } })).state, 'testing');
  const [run] = await emu.listRuns();
  assert.deepEqual(run?.prNumbers, [42]);
  await emu.advance(10);
  const result = await client.waitForPr({ ...queue, pr: 42, timeoutMs: 5_000 });
  assert.equal(result.outcome, 'merged');
});

test('a PR whose tests fail leaves the queue', async () => {
  await emu.createPullRequest({ repo, number: 43, outcomes: ['fail'] });
  await client.submitPullRequest({ ...queue, pr: { number: 43 } });
  await emu.advance(10);
  const result = await client.waitForPr({ ...queue, pr: 43, timeoutMs: 5_000 });
  assert.equal(result.outcome, 'failed');
  assert.equal(result.exitCode, 9);
});
