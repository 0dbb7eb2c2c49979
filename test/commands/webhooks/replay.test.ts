/** `mq webhooks replay` in-process: recordings re-sent in order, re-signed now, statuses printed, exit 5 if refused. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/run.js';
import { verifyWebhook } from '../../../src/lib/index.js';
import { FIXED_NOW } from '../../helpers/clock.js';
import { testDeps } from '../../helpers/deps.js';
import { Receiver, SECRET } from './helpers.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const BODIES = ['{"type":"pull_request.queued","pr_number":2}', '{"type":"pull_request.merged","pr_number":2}'];

/** Two recordings as listen writes them (old timestamps and signatures that replay replaces). */
function recordings(cwd: string): string {
  const dir = join(cwd, 'rec');
  mkdirSync(dir);
  BODIES.forEach((body, i) => {
    const headers = {
      'svix-id': `msg_${i}`,
      'svix-timestamp': '1',
      'svix-signature': 'v1,old',
      'content-type': 'application/json',
    };
    writeFileSync(
      join(dir, `2026010${i}T000000.000Z-msg_${i}.json`),
      JSON.stringify({ id: `msg_${i}`, headers, body }),
    );
  });
  return dir;
}

async function setup(status = 204) {
  receiver = new Receiver();
  receiver.status = status;
  const to = await receiver.start();
  const t = testDeps({ env: { MQ_WEBHOOK_SECRET: SECRET } });
  return { ...t, to, dir: recordings(t.deps.cwd), r: receiver };
}

describe('mq webhooks replay', () => {
  it('re-sends each recording in order with the same bytes and svix-id, re-signed with a fresh timestamp', async () => {
    const { deps, io, to, dir, r } = await setup();
    expect(await run(deps, ['webhooks', 'replay', dir, '--to', to])).toBe(0);
    expect(r.got.map((g) => g.raw.toString())).toEqual(BODIES);
    for (const [i, g] of r.got.entries()) {
      expect(g.headers['svix-id']).toBe(`msg_${i}`);
      expect(g.headers['svix-timestamp']).toBe(String(FIXED_NOW / 1000));
      expect(verifyWebhook(g.raw, g.headers as Record<string, string>, SECRET, { now: () => FIXED_NOW }).ok).toBe(true);
    }
    expect(io.stdout).toBe(
      '2026-11-22T12:00:00.000Z\tmsg_0\tpull_request.queued\t2\t204\tsent\t\n' +
        '2026-11-22T12:00:00.000Z\tmsg_1\tpull_request.merged\t2\t204\tsent\t\n',
    );
  });

  it('--new-ids gives each a new svix-id; a non-2xx answer is printed and exits 5', async () => {
    const { deps, io, to, dir, r } = await setup(500);
    expect(await run(deps, ['webhooks', 'replay', dir, '--to', to, '--new-ids', '--json'])).toBe(5);
    expect(r.got.map((g) => g.headers['svix-id'])).not.toContain('msg_0');
    const docs = io.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(docs.map((d) => [d.status, d.prs])).toEqual([
      [500, [2]],
      [500, [2]],
    ]);
    expect(io.stderr).toMatch(/2 of 2 deliveries were not accepted \(not 2xx\)/);
  });

  it('refuses a bad secret or an empty directory with exit 2, nothing sent', async () => {
    const { deps, io, to, r } = await setup();
    mkdirSync(join(deps.cwd, 'empty'));
    expect(await run(deps, ['webhooks', 'replay', 'empty', '--to', to])).toBe(2);
    expect(io.stderr).toMatch(/empty: no recordings/);
    const bad = testDeps({ env: { MQ_WEBHOOK_SECRET: 'nope' } });
    expect(await run(bad.deps, ['webhooks', 'replay', recordings(bad.deps.cwd), '--to', to])).toBe(2);
    expect(bad.io.stderr).toMatch(/^mq: usage: MQ_WEBHOOK_SECRET: a webhook secret starts with whsec_/);
    expect(r.got).toEqual([]);
  });
});
