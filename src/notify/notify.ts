// Posting "a PR left the queue" to each target. `notifyLeftQueue` is the one entry point: `mq notify N`,
// `mq notify --watch` and a webhooks listener call it per event.
import type { MergeQueueService } from '../api/service.js';
import type { Target } from '../context.js';
import { ExitCode, MqError } from '../errors.js';
import { commentMarker, githubComment, slackBody, teamsBody, webhookBody } from './bodies.js';
import { type SendContext, send } from './deliver.js';
import { buildMessage, type LeftQueueEvent, type LeftState, type NotifyMessage } from './message.js';
import { type SinkName, SINK_NAMES, type Sinks, shownUrl } from './targets.js';

export interface NotifyContext extends SendContext {
  client: MergeQueueService;
  target: Target;
  sinks: Sinks;
  /** Which outcomes are posted (`--on`). */
  on: ReadonlySet<LeftState>;
  /** Targets already posted for this event (a watch's state): skipped. */
  skip?: (sink: SinkName) => boolean;
}

export interface DeliveryResult {
  target: SinkName;
  ok: boolean;
  attempts: number;
  /** GitHub: `created` or `updated`. */
  action?: string;
  error?: string;
  exitCode: number;
}

export interface NotifyOutcome {
  pr: number;
  state: string;
  /** False when the PR has not left the queue or its outcome is not in `--on`. */
  posted: boolean;
  message?: NotifyMessage;
  deliveries: DeliveryResult[];
}

const LABEL: Record<SinkName, string> = { slack: 'Slack', teams: 'Teams', webhook: 'the webhook', github: 'GitHub' };

/** Reads the PR's story and posts it to every target not skipped; failures are in the results, not thrown. */
export async function notifyLeftQueue(event: LeftQueueEvent, ctx: NotifyContext): Promise<NotifyOutcome> {
  if (!ctx.on.has(event.state)) return { pr: event.pr, state: event.state, posted: false, deliveries: [] };
  const { fetchStory } = await import('../stats/lazy.js');
  const { record, story } = await fetchStory(ctx.client, ctx.target, event.pr);
  return deliverMessage(buildMessage(record, story, ctx.target), ctx);
}

/** Posts a built message to every configured target not skipped. */
export async function deliverMessage(message: NotifyMessage, ctx: NotifyContext): Promise<NotifyOutcome> {
  const deliveries: DeliveryResult[] = [];
  for (const name of SINK_NAMES) {
    if ((name === 'github' ? !ctx.sinks.github : !ctx.sinks[name]) || ctx.skip?.(name)) continue;
    try {
      const { attempts, action } = await deliverTo(name, message, ctx);
      deliveries.push({ target: name, ok: true, attempts, action, exitCode: 0 });
    } catch (err) {
      if (!(err instanceof MqError) || err.exitCode === ExitCode.interrupted) throw err;
      deliveries.push({ target: name, ok: false, attempts: 0, error: err.why, exitCode: err.exitCode });
    }
  }
  return { pr: message.pr, state: message.state, posted: true, message, deliveries };
}

async function deliverTo(
  name: SinkName,
  m: NotifyMessage,
  ctx: NotifyContext,
): Promise<{ attempts: number; action?: string }> {
  const { sinks } = ctx;
  if (name === 'github') return upsertComment(m, ctx);
  const url = sinks[name] as string;
  const body =
    name === 'slack'
      ? slackBody(m, sinks.authors.get(m.author.toLowerCase()))
      : name === 'teams'
        ? teamsBody(m)
        : webhookBody(m);
  const a = await send(
    { method: 'POST', url, shownUrl: shownUrl(url), body: JSON.stringify(body), what: LABEL[name] },
    ctx,
  );
  return { attempts: a.attempts };
}

/** Comment pages read to find mq's comment (100 comments a page). */
const MAX_COMMENT_PAGES = 10;

/** One comment per PR and branch: found by its marker and updated in place, else created. */
async function upsertComment(m: NotifyMessage, ctx: NotifyContext): Promise<{ attempts: number; action: string }> {
  const { token, apiUrl } = ctx.sinks.github as NonNullable<Sinks['github']>;
  const headers = {
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
  };
  const { owner, name } = ctx.target.repo;
  const repo = `${apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    send(
      {
        method,
        url,
        shownUrl: url,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        what: 'GitHub',
      },
      ctx,
    );
  const marker = commentMarker(m.branch);
  let found: number | undefined;
  for (let page = 1; page <= MAX_COMMENT_PAGES && found === undefined; page++) {
    const a = await call('GET', `${repo}/issues/${m.pr}/comments?per_page=100&page=${page}`);
    let list: unknown;
    try {
      list = JSON.parse(a.body);
    } catch {
      throw new MqError(ExitCode.unavailable, 'post to GitHub', 'GitHub answered a comment list that is not JSON');
    }
    if (!Array.isArray(list)) break;
    for (const c of list as Array<{ id?: unknown; body?: unknown }>) {
      if (typeof c.body === 'string' && c.body.startsWith(marker) && Number.isSafeInteger(c.id)) found = c.id as number;
    }
    if (list.length < 100) break;
  }
  const body = { body: githubComment(m) };
  if (found !== undefined) {
    const a = await call('PATCH', `${repo}/issues/comments/${found}`, body);
    return { attempts: a.attempts, action: 'updated' };
  }
  const a = await call('POST', `${repo}/issues/${m.pr}/comments`, body);
  return { attempts: a.attempts, action: 'created' };
}
