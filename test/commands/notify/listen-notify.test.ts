/**
 * `mq webhooks listen --notify`: a verified `pull_request.failed` delivery posts the PR's message once,
 * as `mq notify` would; events outside `--on`, and duplicates, post nothing.
 */
import { expect, it } from 'vitest';
import { Context } from '../../../src/context.js';
import { run } from '../../../src/run.js';
import { repo, useEmulator } from '../../emulator/http-helpers.js';
import { useFakeServer } from '../../helpers/fake-server.js';
import { memoryIO } from '../../helpers/memory-io.js';
import { baseEnv, tempDir } from '../../helpers/run-cli.js';
import { postTo, SECRET, sign, until } from '../webhooks/helpers.js';
import { runMq } from '../../helpers/in-process.js';

const { emu, client: c } = useEmulator();
const rx = useFakeServer();

const env = () => ({
  ...baseEnv(emu.url),
  MQ_TOKEN: emu.token,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_WEBHOOK_SECRET: SECRET,
  MQ_NOTIFY_SLACK_URL: `${rx.url.replace(/\/v1$/, '')}/slack/hook`,
});

it('posts a PR that failed, once; a merge (not in --on) and a duplicate post nothing', async () => {
  await c.queueWithFailedPr(42, { author: 'alice' });
  rx.on('POST /slack/hook', { status: 200, body: 'ok' });
  const io = memoryIO({});
  const stop = new AbortController();
  const ctx = new Context({ env: env() as NodeJS.ProcessEnv, io, cwd: tempDir('mq-cwd-'), signal: stop.signal });
  const exit = run(ctx, ['webhooks', 'listen', '--notify', '--slack']);
  await until(() => /listening on/.test(io.stdout), 'the listening line');
  const url = /listening on (\S+)/.exec(io.stdout)?.[1] as string;
  const ts = Math.floor(Date.now() / 1000);
  const failed = JSON.stringify({ type: 'pull_request.failed', pr_number: 42, status: 'failed' });
  const merged = JSON.stringify({ type: 'pull_request.merged', pr_number: 7, status: 'merged' });
  expect((await postTo(url, failed, sign(failed, 'msg_1', ts))).status).toBe(200);
  expect((await postTo(url, merged, sign(merged, 'msg_2', ts))).status).toBe(200);
  expect((await postTo(url, failed, sign(failed, 'msg_1', ts))).status).toBe(200);
  await until(() => /posted to Slack/.test(io.stderr), 'the post');
  stop.abort();
  expect(await exit).toBe(0);
  const posts = rx.requests.filter((q) => q.path === '/slack/hook');
  expect(posts).toHaveLength(1);
  expect(JSON.stringify(posts[0]?.body)).toContain('PR #42> failed');
  expect(io.stderr.match(/posted to Slack/g)).toHaveLength(1);
});

it('a target flag without --notify is refused (exit 2), nothing started', async () => {
  const r = await runMq(['webhooks', 'listen', '--slack'], { env: env() });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain('--slack: only with --notify');
  expect(r.stdout).toBe('');
});
