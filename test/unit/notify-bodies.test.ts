/** The message in each target's syntax: service text made inert (Slack, Adaptive Card, GitHub markdown). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubComment, slackBody, teamsBody, webhookBody } from '../../src/notify/bodies.js';
import { leftQueueEventOf, type NotifyMessage } from '../../src/notify/message.js';
import { checkSinkUrl, readAuthors } from '../../src/notify/targets.js';

const HOSTILE: NotifyMessage = {
  repo: 'acme/app',
  branch: 'main',
  pr: 42,
  url: 'https://github.com/acme/app/pull/42',
  title: 'Fix <!channel> <http://evil.example|docs> [click](http://evil.example) @here & more',
  author: 'mallory',
  state: 'failed',
  what: 'failed in the merge queue',
  reason: 'failed: required status `ci` failed <!everyone>',
  checks: [{ name: '[x](http://evil.example) <b>', conclusion: 'failure', url: 'https://ci.example/r/1?a=b|c>d' }],
  moreChecks: 2,
  next: { text: 'fix the failing checks', command: 'mq submit 42' },
  at: '2026-11-22T12:00:00Z',
};

describe('notification bodies', () => {
  it('Slack: no mention or link from the service, URLs cannot end their <url|label> early', () => {
    const text = JSON.stringify(slackBody(HOSTILE));
    for (const bad of ['<!channel>', '<!everyone>', '<http://evil.example|', '@here', '|c>d'])
      expect(text).not.toContain(bad);
    expect(text).toContain('Fix &lt;!channel&gt; &lt;http://evil.example|docs&gt;');
    expect(text).toContain('<https://ci.example/r/1?a=b%7Cc&gt;d|[x](http://evil.example) &lt;b&gt;> (failure)');
    expect(text).toContain('• and 2 more');
    // Only a Slack user id is ever put in a mention.
    expect(JSON.stringify(slackBody(HOSTILE, 'U0MAL1'))).toContain('by <@U0MAL1>');
    expect(JSON.stringify(slackBody(HOSTILE, '!channel'))).toContain('by mallory');
  });

  it('Teams: an Adaptive Card in the attachments envelope, markdown and HTML inert', () => {
    const body = teamsBody(HOSTILE) as any;
    const card = body.attachments[0].content;
    expect(card.body.map((b: { type: string }) => b.type)).toEqual([
      'TextBlock',
      'TextBlock',
      'FactSet',
      'TextBlock',
      'TextBlock',
    ]);
    expect(card.body[1].text).toBe(
      'Fix &lt;!channel&gt; &lt;http://evil.example\\|docs&gt; \\[click\\](http://evil.example) @here &amp; more',
    );
    expect(card.body[4].text).toBe('- \\[x\\](http://evil.example) &lt;b&gt; (failure)\n- and 2 more');
  });

  it('GitHub: the marker first, links and HTML from the service inert, check URLs as link targets only', () => {
    const md = githubComment(HOSTILE);
    expect(md.split('\n')[0]).toBe('<!-- mq-notify main -->');
    expect(md).toContain('failed: required status \\`ci\\` failed &lt;!everyone&gt;');
    expect(md).toContain('- [\\[x\\](http://evil.example) &lt;b&gt;](<https://ci.example/r/1?a=b|cd>) (failure)');
    expect(md).not.toContain('[x](http');
  });

  it('webhook: exact strings', () => {
    expect(webhookBody(HOSTILE)).toMatchObject({ title: HOSTILE.title, reason: HOSTILE.reason, pr: 42, version: 1 });
  });
});

describe('webhook events a listener hands to notifyLeftQueue', () => {
  it('maps the PR events that leave the queue, and nothing else', () => {
    expect(leftQueueEventOf('pull_request.failed', 42)).toEqual({ pr: 42, state: 'failed' });
    expect(leftQueueEventOf('pull_request.canceled', 7)).toEqual({ pr: 7, state: 'cancelled' });
    expect(leftQueueEventOf('pull_request.merged', 7)).toEqual({ pr: 7, state: 'merged' });
    expect(leftQueueEventOf('pull_request.testing', 7)).toBeUndefined();
    expect(leftQueueEventOf('pull_request.failed', 0)).toBeUndefined();
  });
});

describe('targets', () => {
  it('takes https, http only to loopback, naming the source and never echoing the URL', () => {
    expect(checkSinkUrl('https://hooks.slack.com/services/X', 'MQ_NOTIFY_SLACK_URL')).toBe(
      'https://hooks.slack.com/services/X',
    );
    expect(checkSinkUrl('http://127.0.0.1:8080/x', 'f')).toBe('http://127.0.0.1:8080/x');
    expect(() => checkSinkUrl('http://hooks.example/SECRET', 'MQ_NOTIFY_TEAMS_URL')).toThrow(
      /^usage: MQ_NOTIFY_TEAMS_URL: must use https:\/\/ \(http:\/\/ only to localhost\)$/,
    );
    expect(() => checkSinkUrl('hooks.example/SECRET', 'X')).toThrow(/^usage: X: not a URL$/);
  });

  it('reads the authors file as JSON or `login: id` lines, refusing what is not a Slack id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mq-authors-'));
    writeFileSync(join(dir, 'a.json'), '{"Alice": "U0ALICE1"}');
    writeFileSync(join(dir, 'a.txt'), '# who\nbob: W0BOB22\n\n');
    writeFileSync(join(dir, 'bad.txt'), 'bob: <!channel>\n');
    expect([...readAuthors('a.json', dir)]).toEqual([['alice', 'U0ALICE1']]);
    expect([...readAuthors('a.txt', dir)]).toEqual([['bob', 'W0BOB22']]);
    expect(() => readAuthors('bad.txt', dir)).toThrow(
      /^usage: --authors: bad\.txt:1: expected a Slack user id like U0123ABCD/,
    );
  });
});
