/**
 * The queue commands on v2 print what they print on v1: each runs in-process against the same
 * emulator state, once with the organization token (v1) and once with a v2 key.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { run } from '../../src/run.js';
import { interrupted, type Clock } from '../../src/util/clock.js';
import { type Client, queue } from '../emulator/http-helpers.js';
import { KEY, start, stop } from '../emulator/v2-helpers.js';
import { runMq } from '../helpers/in-process.js';
import { memoryIO } from '../helpers/memory-io.js';
import { tempDir } from '../helpers/run-cli.js';

/** Sent by Trunk's v1 (and mapped from v2's config), not by the emulator's v1. */
const V2_ONLY = /^ {2,}"(notReadyTimeoutHours|testBranchConstructionMode)": .*\n/gm;
const AT = /"at": ?"[^"]+"|\bat\t\S+/g;

let c: Client;
let env: { v1: Record<string, string>; v2: Record<string, string> };

beforeEach(async () => {
  c = await start();
  const common = { MQ_REPO: 'acme/app', MQ_BRANCH: 'main', MQ_RETRY_BASE_MS: '5' };
  env = {
    v1: { ...common, MQ_API_URL: c.emu.url, MQ_TOKEN: c.emu.token, MQ_CONFIG_DIR: tempDir('mq-v1-') },
    v2: { ...common, MQ_API_URL: c.origin, MQ_TOKEN: KEY, MQ_CONFIG_DIR: tempDir('mq-v2-'), MQ_CACHE_DIR: tempDir() },
  };
  expect((await c.post('createQueue', { ...queue, concurrency: 2 })).status).toBe(200);
});
afterEach(stop);

const tidy = (s: string) =>
  s
    .replace(V2_ONLY, '')
    .replace(/,\n(\s*)}/g, '\n$1}')
    .replace(AT, 'AT');

async function both(args: string[], between?: () => Promise<unknown>) {
  const one = await runMq(args, { env: env.v1 });
  await between?.();
  const two = await runMq(args, { env: env.v2 });
  return { one, two };
}

/** Same exit code, stdout and stderr (the JSON fields v2 adds and the times of the change aside). */
async function same(args: string[], between?: () => Promise<unknown>) {
  const { one, two } = await both(args, between);
  expect({ code: two.exitCode, out: tidy(two.stdout), err: two.stderr }).toEqual({
    code: one.exitCode,
    out: tidy(one.stdout),
    err: one.stderr,
  });
  return one;
}

async function busyQueue(): Promise<void> {
  await c.post('updateQueue', { ...queue, batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 10 });
  for (const n of [1, 2, 3, 4, 5]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  await c.post('submitPullRequest', { ...queue, pr: { number: 6 }, priority: 'high' });
}

it('queue show, --settings, --json', async () => {
  await busyQueue();
  expect((await same(['queue', 'show'])).stdout).toMatch(/^5\t6\tpending/m);
  await same(['queue', 'show', '--settings']);
  await same(['queue', 'show', '--json']);
  await same(['queue', 'show', '--settings', '--json']);
  // No queue: exit 3 on both; v1 prints the service's 404 text, v2 says mq found no queue for the branch.
  const { one, two } = await both(['queue', 'show', '-B', 'nope']);
  expect([one.exitCode, two.exitCode, two.stdout]).toEqual([3, 3, one.stdout]);
  expect(two.stderr).toMatch(/^mq: find the queue for nope: there is no merge queue for nope\n/);
});

it('queue pause, resume and drain', async () => {
  for (const verb of ['pause', 'drain', 'resume']) {
    const reset = () => c.post('updateQueue', { ...queue, state: verb === 'resume' ? 'paused' : 'running' });
    for (const format of [[], ['--json']]) {
      await reset();
      await same(['queue', verb, ...format], reset);
    }
  }
});

it('queue update', async () => {
  const undo = () => c.post('updateQueue', { ...queue, concurrency: 2, batch: false, mergeMethod: 'squash' });
  const r = await same(['queue', 'update', '--concurrency', '4', '--batch', '--merge-method', 'rebase'], undo);
  expect(r.stderr).toContain('settings changed');
  await undo();
  await same(['queue', 'update', '--concurrency', '5', '--json'], undo);
  await same(['queue', 'update', '--mode', 'parallel'], () => c.post('updateQueue', { ...queue, mode: 'single' }));
});

it('queue create and delete', async () => {
  const gone = () => c.post('deleteQueue', { ...queue, targetBranch: 'b' });
  await same(['queue', 'create', '-B', 'b', '--mode', 'parallel', '--concurrency', '3'], gone);
  await same(['queue', 'create', '-B', 'b'], () => c.post('createQueue', { ...queue, targetBranch: 'b' }));
  await same(['queue', 'delete', '-B', 'b', '--yes'], () => c.post('createQueue', { ...queue, targetBranch: 'b' }));
  await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
  await same(['queue', 'delete', '--yes']);
});

it('metrics', async () => {
  await busyQueue();
  await c.advance(3);
  await same(['metrics']);
  await same(['metrics', '--json']);
  await same(['metrics', '--all-repos', '-o', 'plain']);
});

it('queue testing (the emulator has no per-check records on v2: its check rows aside)', async () => {
  await busyQueue();
  await c.advance(3);
  const [run0] = await c.runs();
  const { one, two } = await both(['queue', 'testing', run0?.id ?? '']);
  const noChecks = (s: string) => s.replace(/^check\t.*\n/gm, '');
  expect(one.stdout).toMatch(/^check\t/m);
  expect({ code: two.exitCode, out: two.stdout, err: two.stderr }).toEqual({
    code: one.exitCode,
    out: noChecks(one.stdout),
    err: one.stderr,
  });
});

it('queue watch: the first read, then Ctrl-C', async () => {
  await busyQueue();
  const watch = async (e: Record<string, string>) => {
    const io = memoryIO();
    const stop = new AbortController();
    const clock: Clock = {
      now: () => Date.now(),
      sleep: async () => {
        stop.abort();
        throw interrupted();
      },
    };
    const ctx = new Context({ env: e as NodeJS.ProcessEnv, io, cwd: tempDir(), clock, signal: stop.signal });
    const code = await run(ctx, ['queue', 'watch', '--json']);
    return { code, out: io.stdout.replace(AT, 'AT') };
  };
  const one = await watch(env.v1);
  expect(one.code).toBe(130);
  expect(one.out.split('\n').length).toBeGreaterThan(5);
  expect(await watch(env.v2)).toEqual(one);
});

it('a dry run for a branch without a queue describes its requests, as v1 does', async () => {
  for (const args of [
    ['queue', 'pause', '--dry-run', '-B', 'nope'],
    ['queue', 'update', '--concurrency', '3', '--dry-run', '-B', 'nope'],
    ['queue', 'delete', '--dry-run', '-B', 'nope'],
  ]) {
    const { one, two } = await both(args);
    expect([one.exitCode, two.exitCode]).toEqual([0, 0]);
    expect(two.stdout).toContain(`${c.origin}/v2/merge-queues/QUEUE_ID`);
  }
});

it('requests per command with the ids known: show 1 -> 3 reads at once, pause 2 -> 3 (two at once)', async () => {
  const sent = (stderr: string) => stderr.split('\n').filter((l) => /^> [A-Z]+ http/.test(l.replace(/^.*?> /, '> ')));
  await runMq(['queue', 'show', '--settings'], { env: env.v2 });
  const count = async (args: string[]) => {
    const { one, two } = await both([...args, '--debug'], () => c.post('updateQueue', { ...queue, state: 'running' }));
    return [sent(one.stderr).length, sent(two.stderr).length];
  };
  expect(await count(['queue', 'show', '--settings'])).toEqual([1, 3]);
  expect(await count(['queue', 'pause'])).toEqual([2, 3]);
});
