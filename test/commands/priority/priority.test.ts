/** `mq priority`: a live PR's priority and batching on both APIs; not in the queue is exit 3. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queue } from '../../emulator/http-helpers.js';
import { KEY, start, stop } from '../../emulator/v2-helpers.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv } from '../../helpers/run-cli.js';

afterEach(stop);
let c: Awaited<ReturnType<typeof start>>;
const envs: Record<'v1' | 'v2', Record<string, string | undefined>> = { v1: {}, v2: {} };

beforeEach(async () => {
  c = await start();
  await c.post('createQueue', queue);
  await c.post('updateQueue', { ...queue, concurrency: 1 });
  for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
  envs.v1 = { ...baseEnv(c.emu.url), MQ_TOKEN: c.emu.token, MQ_REPO: 'acme/app', MQ_BRANCH: 'main' };
  envs.v2 = { ...envs.v1, MQ_TOKEN: KEY, MQ_API_URL: c.emu.url.replace(/\/v1$/, '') };
});

describe.each(['v1', 'v2'] as const)('on %s', (api) => {
  it('moves a waiting PR up and says how (v1 resubmits)', async () => {
    const r = await runMq(['priority', '3', 'urgent', '--json'], { env: envs[api] });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ pr: 3, via: api === 'v1' ? 'resubmit' : 'reprioritize', priorityName: 'urgent' });
    expect((await c.pr(3)).priorityName).toBe('urgent');
    expect(r.stderr).toContain('✓ PR #3: priority urgent');
    expect(r.stderr.includes('v1: resubmitted')).toBe(api === 'v1');
  });

  it('--no-batch alone changes only the batching', async () => {
    const r = await runMq(['priority', '2', '--no-batch'], { env: envs[api] });
    expect(r.exitCode).toBe(0);
    const pr = await c.pr(2);
    expect([pr.noBatch, pr.priorityName]).toEqual([true, 'medium']);
  });

  it('a PR not in the queue is exit 3 with a hint to submit it, and nothing is sent', async () => {
    await c.post('cancelPullRequest', { ...queue, pr: { number: 2 } });
    const r = await runMq(['priority', '2', 'high'], { env: envs[api] });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('hint: submit it with that priority: mq submit 2 --priority');
    expect((await c.pr(2)).state).toBe('cancelled');
  });
});

describe('bad input', () => {
  it('neither a priority nor a batching flag is exit 2', async () => {
    const r = await runMq(['priority', '2'], { env: envs.v2 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('mq: usage: priority: give a priority, --no-batch or --batch');
  });

  it('a bad priority names the argument and the rule (exit 2)', async () => {
    const r = await runMq(['priority', '2', 'soon'], { env: envs.v2 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('priority: "soon" is not a priority; expected urgent, high, medium, low or an integer');
  });
});
