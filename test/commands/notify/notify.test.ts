/**
 * `mq notify` in-process against the emulator, posting to local fake receivers (the recording fake
 * server under /slack, /teams, /hook and a GitHub API under /gh): the bodies each target gets, retries,
 * one GitHub comment updated in place, a final failure (exit 6), and a PR still in the queue.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { queue, repo, useEmulator } from '../../emulator/http-helpers.js';
import { startFakeServer, useFakeServer } from '../../helpers/fake-server.js';
import { runMq } from '../../helpers/in-process.js';
import { baseEnv, tempDir } from '../../helpers/run-cli.js';

const { emu, client: c } = useEmulator();
const rx = useFakeServer();

const HOSTILE = 'Fix <!channel> and <http://evil.example|docs> [click](http://evil.example) @here';

const env = (extra: Record<string, string> = {}) => ({
  ...baseEnv(emu.url),
  MQ_TOKEN: emu.token,
  MQ_REPO: `${repo.owner}/${repo.name}`,
  MQ_CACHE_DIR: tempDir('mq-cache-'),
  MQ_NOTIFY_SLACK_URL: `${rx.url.replace(/\/v1$/, '')}/slack/T000/B000/SECRETPART`,
  ...extra,
});

/** PR 42 (hostile title, by alice) fails its one run. */
async function failed42(): Promise<void> {
  await c.queueWithFailedPr(42, { title: HOSTILE, author: 'alice' });
  expect((await c.pr(42)).state).toBe('failed');
}

describe('mq notify N', () => {
  it('posts Block Kit to Slack, retrying a 500, with the failing check linked and the author mentioned', async () => {
    await failed42();
    rx.on('POST /slack/T000/B000/SECRETPART', { status: 500, body: 'oops' }, { status: 200, body: 'ok' });
    const authors = `${tempDir('mq-authors-')}/authors.txt`;
    writeFileSync(authors, '# team\nalice: U0ALICE1\n');
    const r = await runMq(['notify', '42', '--slack', '--authors', authors, '--debug'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('✓ PR #42 (failed) posted to Slack');
    // The webhook URL is the secret: --debug shows its origin only.
    expect(r.stderr).not.toContain('SECRETPART');
    expect(r.stderr).toContain('/*** (retry 1)');
    const posts = rx.requests.filter((q) => q.path.startsWith('/slack'));
    expect(posts).toHaveLength(2);
    const body = posts[1]?.body as { text: string; blocks: Array<{ type: string; text?: { text: string } }> };
    expect(body.blocks.map((b) => b.type)).toEqual(['section', 'section', 'section', 'context']);
    const all = JSON.stringify(body);
    expect(body.blocks[0]?.text?.text).toContain('<https://github.com/acme/app/pull/42|PR #42> failed');
    expect(body.blocks[0]?.text?.text).toContain('by <@U0ALICE1>');
    expect(body.blocks[1]?.text?.text).toMatch(/^failed: required status `ci` failed in run /);
    expect(body.blocks[2]?.text?.text).toMatch(/• <https:\/\/ci\.emulator\.invalid\/runs\/[^|]+\|ci> \(failure\)/);
    expect(JSON.stringify(body.blocks[3])).toContain('`mq submit 42`');
    // Hostile title: no mention, no link of its own.
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<http://evil.example|');
    expect(all).toContain('&lt;!channel&gt;');
    expect(all).not.toMatch(/@here/);
  });

  it('posts an Adaptive Card to Teams and the documented JSON to a webhook', async () => {
    await failed42();
    rx.on('POST /teams/flow', { status: 202, body: '' });
    rx.on('POST /hook', { status: 204 });
    const base = rx.url.replace(/\/v1$/, '');
    const e = env({ MQ_NOTIFY_TEAMS_URL: `${base}/teams/flow`, MQ_NOTIFY_WEBHOOK_URL: `${base}/hook` });
    const r = await runMq(['notify', '42', '--teams', '--webhook', '--json'], { env: e });
    expect(r.exitCode).toBe(0);
    const teams = rx.requests.find((q) => q.path === '/teams/flow')?.body as any;
    expect(teams.type).toBe('message');
    const att = teams.attachments[0];
    expect(att.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(att.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(att.content.body[0].text).toBe('PR #42 failed in the merge queue');
    expect(att.content.body[1].text).not.toContain('[click](');
    expect(att.content.body[1].text).toContain('\\[click\\]');
    expect(att.content.actions[0]).toEqual({
      type: 'Action.OpenUrl',
      title: 'Open PR #42',
      url: 'https://github.com/acme/app/pull/42',
    });
    const hook = rx.requests.find((q) => q.path === '/hook')?.body as any;
    expect(hook).toMatchObject({
      type: 'mq.pull_request.left_queue',
      version: 1,
      repo: 'acme/app',
      branch: 'main',
      pr: 42,
      title: HOSTILE,
      author: 'alice',
      state: 'failed',
      next: { command: 'mq submit 42' },
    });
    expect(hook.failingChecks).toEqual([{ name: 'ci', conclusion: 'failure', url: expect.stringMatching(/^https:/) }]);
    expect(JSON.parse(r.stdout).deliveries.map((d: { target: string }) => d.target)).toEqual(['teams', 'webhook']);
  });

  it('keeps one GitHub comment: created once, then updated in place', async () => {
    await failed42();
    const gh = `${rx.url.replace(/\/v1$/, '')}/gh`;
    const comments: Array<{ id: number; body: string }> = [{ id: 7, body: 'LGTM' }];
    rx.on('GET /gh/repos/acme/app/issues/42/comments', { status: 200, body: comments });
    rx.on('POST /gh/repos/acme/app/issues/42/comments', { status: 201, body: { id: 8 } });
    const e = env({ GITHUB_TOKEN: 'ghp_secret_token_123', GITHUB_API_URL: gh });
    const first = await runMq(['notify', '42', '--github', '--debug'], { env: e });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toContain('posted to a GitHub comment (created)');
    expect(first.stderr).not.toContain('ghp_secret_token_123');
    const created = rx.requests.find((q) => q.method === 'POST' && q.path.startsWith('/gh'));
    expect(created?.headers.authorization).toBe('Bearer ghp_secret_token_123');
    const body = (created?.body as { body: string } | undefined)?.body ?? '';
    expect(body.startsWith('<!-- mq-notify main -->\n')).toBe(true);
    expect(body).toContain('[ci](<https://ci.emulator.invalid/runs/');

    // The second run finds it by its marker and updates it.
    comments.push({ id: 8, body });
    rx.on('GET /gh/repos/acme/app/issues/42/comments', { status: 200, body: comments });
    rx.on('PATCH /gh/repos/acme/app/issues/comments/8', { status: 200, body: { id: 8 } });
    rx.requests.length = 0;
    const second = await runMq(['notify', '42', '--github'], { env: e });
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toContain('(updated)');
    expect(rx.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /gh/repos/acme/app/issues/42/comments',
      'PATCH /gh/repos/acme/app/issues/comments/8',
    ]);
  });

  it('exits 6 when a delivery still fails after the retries, naming the target', async () => {
    await failed42();
    rx.on('POST /slack/T000/B000/SECRETPART', { status: 503, body: 'down' });
    const r = await runMq(['notify', '42'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      '✗ PR #42 (failed): posting to Slack failed: Slack answered HTTP 503 (down) after 4 attempts',
    );
    expect(r.stderr).toContain('mq: notify PR #42: Slack answered HTTP 503 (down) after 4 attempts');
    expect(r.stderr).toContain('hint: post it again to those only: mq notify 42 --slack');
    expect(rx.requests.filter((q) => q.path.startsWith('/slack'))).toHaveLength(4);
  });

  it('exits 6 when the webhook cannot be reached, after the retries', async () => {
    await failed42();
    const closed = await startFakeServer();
    await closed.close();
    const r = await runMq(['notify', '42', '--webhook'], {
      env: env({ MQ_NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${closed.port}/hook` }),
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('mq: notify PR #42: the webhook could not be reached (ECONNREFUSED) after 4');
  });

  it('exits 5 at once when the receiver refuses the post (4xx): no retry', async () => {
    await failed42();
    rx.on('POST /slack/T000/B000/SECRETPART', { status: 404, body: 'no_service' });
    const r = await runMq(['notify', '42'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('mq: notify PR #42: Slack answered HTTP 404 (no_service)\n');
    expect(rx.requests.filter((q) => q.path.startsWith('/slack'))).toHaveLength(1);
  });

  it('posts nothing for a PR still in the queue, or an outcome not asked for', async () => {
    await c.post('createQueue', queue);
    await c.post('submitPullRequest', { ...queue, pr: { number: 5 } });
    const r = await runMq(['notify', '5'], { env: env() });
    expect([r.exitCode, r.stderr]).toEqual([0, 'PR #5 is testing: it has not left the queue; nothing posted\n']);
    await c.advance(60);
    const merged = await runMq(['notify', '5'], { env: env() });
    expect(merged.stderr).toBe('PR #5 is merged, and --on is failed,cancelled; nothing posted\n');
    expect(rx.requests).toEqual([]);
    await c.post('/_emulator/pullRequests', { repo, number: 5, title: 'ok' });
    rx.on('POST /slack/T000/B000/SECRETPART', { status: 200, body: 'ok' });
    const asked = await runMq(['notify', '5', '--on', 'merged'], { env: env() });
    expect(asked.exitCode).toBe(0);
    const text = JSON.stringify(rx.requests[0]?.body);
    expect(text).toContain('merged');
    expect(text).toContain('Next: nothing to do');
  });

  it('refuses a plain http:// URL to another host, naming where it came from', async () => {
    const r = await runMq(['notify', '42'], { env: env({ MQ_NOTIFY_SLACK_URL: 'http://hooks.slack.example/x' }) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('MQ_NOTIFY_SLACK_URL: must use https:// (http:// only to localhost)');
    expect(r.stderr).not.toContain('hooks.slack.example');
  });
});
