/** v2 takes at most 100,000 targets per upload: mq refuses a longer list before sending it (v1 has no such cap). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Client, queue } from '../emulator/http-helpers.js';
import { KEY, start, stop } from '../emulator/v2-helpers.js';
import { runMq } from '../helpers/in-process.js';
import { tempDir } from '../helpers/run-cli.js';

let c: Client;
let sha: string;
let env: Record<string, string>;

beforeEach(async () => {
  c = await start();
  env = { MQ_REPO: 'acme/app', MQ_BRANCH: 'main', MQ_API_URL: c.origin, MQ_TOKEN: KEY };
  Object.assign(env, { MQ_CONFIG_DIR: tempDir('mq-v2-'), MQ_CACHE_DIR: tempDir() });
  expect((await c.post('createQueue', queue)).status).toBe(200);
  expect((await c.post('submitPullRequest', { ...queue, pr: { number: 7 } })).status).toBe(200);
  sha = (await pr()).prSha;
});
afterEach(stop);

function targetsFile(n: number): string {
  const file = join(tempDir('mq-targets-'), 'targets.txt');
  writeFileSync(file, `${Array.from({ length: n }, (_, i) => `//t:${i}`).join('\n')}\n`);
  return file;
}

async function pr(): Promise<{ prSha: string; readiness: { hasImpactedTargets: boolean } }> {
  return JSON.parse((await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 7 } })).text);
}
const hasTargets = async () => (await pr()).readiness.hasImpactedTargets;

it('100,001 targets: exit 2 with the limit and a hint, nothing uploaded', async () => {
  const r = await runMq(['targets', '7', '--sha', sha, '--file', targetsFile(100_001)], { env });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toBe(
    'mq: usage: the target list has 100001 targets; this API accepts at most 100000 per upload\n' +
      'hint: send --all instead: the PR is then taken to impact every target\nhint: see `mq targets --help`\n',
  );
  expect(await hasTargets()).toBe(false);
});

it('100,000 targets are uploaded', async () => {
  const r = await runMq(['targets', '7', '--sha', sha, '--file', targetsFile(100_000)], { env });
  expect(r.stderr).toBe(`✓ set impacted targets of PR #7 at ${sha.slice(0, 12)}: 100000 targets\n`);
  expect(r.exitCode).toBe(0);
  expect(await hasTargets()).toBe(true);
});
