/**
 * The action with a v2 API key (issue 30.3): the api is chosen automatically from the key (the
 * default api-url's /v1 is dropped: v2's paths carry their version), and the step reports as on v1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runAction } from '../../src/action/main.js';
import { queue, repo, TOKEN, useEmulator } from '../emulator/http-helpers.js';

const KEY = 'trunk_v2_action0123456789abcdef';
const SHA = 'a'.repeat(40);
const { emu, client } = useEmulator({
  rateLimits: false,
  apiKeys: [{ name: 'ci', key: KEY, permissions: ['merge', 'priority', 'skipBatching', 'direct', 'settings'] }],
});
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-action-v2-'));
  await client.post('createQueue', { ...queue, concurrency: 2 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(pr: number, inputs: Record<string, string>) {
  const output = join(dir, `output-${pr}`);
  const summary = join(dir, `summary-${pr}.md`);
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'acme/app',
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    'INPUT_API-URL': emu.url,
    INPUT_BRANCH: 'main',
    INPUT_PR: String(pr),
    INPUT_WAIT: 'false',
    INPUT_SHA: SHA,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  let log = '';
  const { exitCode } = await runAction({ env, write: (t) => void (log += t) });
  const same = (s: string) =>
    s
      .replaceAll(`#${pr}`, '#N')
      .replace(inputs.token ?? '', 'TOKEN')
      .replace(/^exit-code<<.*$/gm, 'EOF')
      .replace(/ghadelimiter_\S+/g, 'D');
  return {
    exitCode,
    log: same(log),
    output: same(readFileSync(output, 'utf8')),
    summary: same(readFileSync(summary, 'utf8')),
  };
}

describe('the action with a v2 API key', () => {
  it('uploads targets and submits on v2, with the same log, outputs and summary as v1', async () => {
    const v1 = await run(7, { token: TOKEN, 'impacted-targets': '//svc/api', priority: 'high' });
    const v2 = await run(8, { token: KEY, 'impacted-targets': '//svc/api', priority: 'high' });
    expect(v1.exitCode).toBe(0);
    // The emulator refuses the key on /v1: the step went over v2. Where each PR stands differs: PR 8
    // is behind PR 7, and v1's place is derived (approximate); the rest is the same.
    const placeless = (r: typeof v1) => ({
      ...r,
      output: r.output.replace(/position<<D\n\d*\nD\n/, '').replace(/eta<<D\n.*\nD\n/, ''),
      summary: r.summary.replace(/^\| (Position|Directly ahead|Held by|Waiting because|Estimated merge) \|.*\n/gm, ''),
    });
    expect(placeless(v2)).toEqual(placeless(v1));
    expect(v2.summary).toContain('| Position | 2nd of 2 |');
    expect(v2.summary).toContain('| Directly ahead | #7 |');
    // v2's emulator serves an estimate: a row and an output; v1 serves none: neither.
    expect(v2.summary).toMatch(/^\| Estimated merge \| \d{4}-\d\d-\d\dT[\d:.]+Z \(service\) \|$/m);
    expect(v2.output).toMatch(/^eta<<D\n\{"p50":"\d{4}-[^"]+Z","p90":null,"source":"service"\}\nD$/m);
    expect(v1.summary).not.toContain('Estimated merge');
    expect(v1.output).not.toContain('eta<<');
    const pr8 = await client.pr(8);
    expect(pr8).toMatchObject({ state: 'testing' });
  });

  it("with the eta input, mq's simulation where no estimate is served (v1)", async () => {
    for (let number = 1; number <= 6; number++) {
      await client.post('/_emulator/pullRequests', { repo, number, testMinutes: 10 });
      expect((await client.post('submitPullRequest', { ...queue, pr: { number } })).status).toBe(200);
      await client.advance(30);
    }
    const r = await run(9, { token: TOKEN, eta: 'true', 'impacted-targets': '//svc/api' });
    expect(r.exitCode).toBe(0);
    expect(r.summary).toMatch(/^\| Estimated merge \| \S+Z – \S+Z \(simulation\) \|$/m);
    expect(r.output).toMatch(/^eta<<D\n\{"p50":"[^"]+Z","p90":"[^"]+Z","source":"simulation"\}\nD$/m);
    const without = await run(10, { token: TOKEN, 'impacted-targets': '//svc/api' });
    expect(without.summary).not.toContain('Estimated merge');
  });

  it('api v1 with a v2 key is refused before anything is sent (exit 7); an unknown api is exit 2', async () => {
    const r = await run(9, { token: KEY, api: 'v1' });
    expect(r.exitCode).toBe(7);
    expect(r.log).toContain('input api: v1, but the token is a v2 API key');
    expect(r.log.replace(`::add-mask::${KEY}`, '')).not.toContain(KEY);
    expect((await run(9, { token: KEY, api: 'v3' })).exitCode).toBe(2);
  });
});
