// The message as each target reads it: Slack Block Kit, a Teams Adaptive Card, a GitHub comment and
// a generic JSON document. Every value from the service is made inert for the target's syntax.
import { safeLine, safeMarkdown } from '../output/sanitize.js';
import type { NotifyMessage } from './message.js';

/** Slack mrkdwn: `&<>` escaped (no `<!channel>`, no `<url|label>`), `@` kept from starting a mention. */
export function slackText(text: string): string {
  return safeLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/@/g, '@\u200b');
}

/** A URL inside Slack's `<url|label>`: no `|` or `>` can end it early. */
const slackUrl = (url: string) => slackText(url).replace(/\|/g, '%7C');

/** Slack user ids as Slack issues them (`U123ABC`, `W…`): anything else is never put in a mention. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,20}$/;

/** Slack incoming webhook: Block Kit, with `text` as the notification's fallback. */
export function slackBody(m: NotifyMessage, mention?: string): Record<string, unknown> {
  const author = m.author
    ? ` by ${mention && SLACK_USER_ID.test(mention) ? `<@${mention}>` : slackText(m.author)}`
    : '';
  const head = `<${slackUrl(m.url)}|PR #${m.pr}> ${m.what} (${slackText(m.repo)}, ${slackText(m.branch)})`;
  const blocks: Array<Record<string, unknown>> = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${head}*\n${slackText(m.title)}${author}` } },
    { type: 'section', text: { type: 'mrkdwn', text: slackText(m.reason) } },
  ];
  if (m.checks.length > 0) {
    const lines = m.checks.map(
      (c) =>
        `• ${c.url ? `<${slackUrl(c.url)}|${slackText(c.name)}>` : slackText(c.name)} (${slackText(c.conclusion)})`,
    );
    if (m.moreChecks > 0) lines.push(`• and ${m.moreChecks} more`);
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Failing checks*\n${lines.join('\n')}` } });
  }
  const next = m.next.command ? `Next: ${m.next.text}: \`${m.next.command}\`` : `Next: ${m.next.text}`;
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: next }] });
  return { text: `PR #${m.pr} ${m.what}: ${slackText(m.title)}`, blocks };
}

/** Adaptive Card text: markdown syntax escaped, HTML inert. */
const cardText = (text: string) => safeMarkdown(text);

/** A Teams workflow webhook ("post to a channel when a webhook request is received"): an Adaptive Card. */
export function teamsBody(m: NotifyMessage): Record<string, unknown> {
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', size: 'Medium', weight: 'Bolder', wrap: true, text: `PR #${m.pr} ${m.what}` },
    { type: 'TextBlock', wrap: true, text: cardText(m.title) },
    {
      type: 'FactSet',
      facts: [
        { title: 'Repository', value: cardText(`${m.repo} (${m.branch})`) },
        ...(m.author ? [{ title: 'Author', value: cardText(m.author) }] : []),
        { title: 'What happened', value: cardText(m.reason) },
        { title: 'Next', value: cardText(m.next.command ? `${m.next.text}: ${m.next.command}` : m.next.text) },
      ],
    },
  ];
  if (m.checks.length > 0) {
    body.push({ type: 'TextBlock', weight: 'Bolder', text: 'Failing checks' });
    const lines = m.checks.map((c) => `- ${cardText(c.name)} (${cardText(c.conclusion)})`);
    if (m.moreChecks > 0) lines.push(`- and ${m.moreChecks} more`);
    body.push({ type: 'TextBlock', wrap: true, text: lines.join('\n') });
  }
  const actions = [
    { type: 'Action.OpenUrl', title: `Open PR #${m.pr}`, url: m.url },
    ...m.checks
      .filter((c) => c.url)
      .slice(0, 3)
      .map((c) => ({ type: 'Action.OpenUrl', title: safeLine(c.name).slice(0, 40), url: c.url })),
  ];
  const card = { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4' };
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: { ...card, body, actions },
      },
    ],
  };
}

/** The hidden first line of mq's comment on a PR: found again to update it, per target branch. */
export const commentMarker = (branch: string) => `<!-- mq-notify ${encodeURIComponent(branch)} -->`;

/** The PR comment: markdown with every value inert. */
export function githubComment(m: NotifyMessage): string {
  const md = (t: string) => safeMarkdown(t);
  const lines = [
    commentMarker(m.branch),
    `**PR #${m.pr} ${m.what}** (${md(m.repo)}, ${md(m.branch)})`,
    '',
    md(m.reason),
  ];
  if (m.checks.length > 0) {
    lines.push('', '**Failing checks**', '');
    for (const c of m.checks) {
      const name = c.url ? `[${md(c.name)}](<${c.url.replace(/[<>\s]/g, '')}>)` : md(c.name);
      lines.push(`- ${name} (${md(c.conclusion)})`);
    }
    if (m.moreChecks > 0) lines.push(`- and ${m.moreChecks} more`);
  }
  lines.push('', m.next.command ? `Next: ${m.next.text}: \`${m.next.command}\`` : `Next: ${m.next.text}`);
  if (m.at) lines.push('', `<sub>${md(m.at)} · mq notify</sub>`);
  return `${lines.join('\n')}\n`;
}

/** The generic webhook's document (version 1): exact strings, JSON-escaped. */
export function webhookBody(m: NotifyMessage): Record<string, unknown> {
  return {
    type: 'mq.pull_request.left_queue',
    version: 1,
    repo: m.repo,
    branch: m.branch,
    pr: m.pr,
    url: m.url,
    title: m.title,
    author: m.author,
    state: m.state,
    at: m.at,
    reason: m.reason,
    failingChecks: m.checks,
    moreFailingChecks: m.moreChecks,
    next: m.next,
  };
}
