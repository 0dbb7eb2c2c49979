import { resolve } from 'node:path';
import { Command } from 'commander';
import { formatRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { ConfigError, ExitCode, type ExitCodeValue, MqError, mostSevere, UsageError } from '../errors.js';
import { isTerminal, type TerminalState } from '../domain/vocabulary.js';
import type { NotifyContext, NotifyOutcome } from '../notify/notify.js';
import { defaultStatePath } from '../notify/state.js';
import type { SinkFlags } from '../notify/targets.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { parseDuration } from '../util/duration.js';
import { watchAndNotify } from './notify-watch.js';
import { act, onePr, withExamples, withPlainHelp } from './shared.js';

/** The outcomes `--on` takes, in the order help names them; the default posts the two that need someone. */
const OUTCOMES: readonly TerminalState[] = ['failed', 'cancelled', 'merged'];
const DEFAULT_ON: readonly TerminalState[] = ['failed', 'cancelled'];

export interface NotifyOptions {
  /** One PR, now; absent with `watch`. */
  pr?: number;
  watch?: { intervalMs: number; state?: string };
  on: TerminalState[];
  sinks: SinkFlags;
}

/** `--on failed,merged`: outcomes, each once (Trunk's `canceled` spelling taken too). */
export function parseOn(text: string): TerminalState[] {
  const out = new Set<TerminalState>();
  for (const raw of text.split(',')) {
    const word = raw
      .trim()
      .toLowerCase()
      .replace(/^canceled$/, 'cancelled');
    if (!(OUTCOMES as readonly string[]).includes(word))
      throw new UsageError(`--on: ${JSON.stringify(raw.trim())} is not an outcome; expected ${OUTCOMES.join(', ')}`, {
        hints: ['for example --on failed,cancelled,merged'],
      });
    out.add(word as TerminalState);
  }
  return [...out];
}

function report(deps: Deps, o: NotifyOutcome): void {
  for (const d of o.deliveries) {
    const to = { slack: 'Slack', teams: 'Teams', webhook: 'the webhook', github: 'a GitHub comment' }[d.target];
    if (d.ok)
      deps.out.note([
        own(paints.green, '✓'),
        ` PR #${o.pr} (${o.state}) posted to ${to}${d.action ? ` (${d.action})` : ''}`,
      ]);
    else
      deps.out.note([own(paints.red, '✗'), ` PR #${o.pr} (${o.state}): posting to ${to} failed: `, v(d.error ?? '')]);
  }
}

const outcomeDoc = (o: NotifyOutcome) => ({
  pr: o.pr,
  state: o.state,
  posted: o.posted,
  deliveries: o.deliveries,
  ...(o.message ? { message: o.message } : {}),
});

/**
 * What notifyLeftQueue needs, from the command's deps: the targets (environment and files), the client,
 * the outcomes posted. A webhooks listener builds one with it and calls notifyLeftQueue per event.
 */
export async function notifyContext(deps: Deps, opts: Pick<NotifyOptions, 'on' | 'sinks'>): Promise<NotifyContext> {
  const { resolveSinks } = await import('../notify/index.js');
  const sinks = resolveSinks(opts.sinks, deps.env, deps.cwd);
  return {
    client: await deps.client(),
    target: deps.target(),
    sinks,
    on: new Set(opts.on),
    clock: deps.clock,
    signal: deps.signal,
    env: deps.env,
    debug: deps.debugEnabled ? (line) => deps.debug(line) : undefined,
    backoffMs: deps.env.MQ_RETRY_BASE_MS ? Number(deps.env.MQ_RETRY_BASE_MS) : undefined,
  };
}

export async function runNotify(opts: NotifyOptions, deps: Deps): Promise<Result> {
  const lazy = await import('../notify/index.js');
  const ctx = await notifyContext(deps, opts);
  const { client, target } = ctx;
  try {
    if (opts.watch) return await watch(opts.watch, ctx, deps, lazy.notifyLeftQueue);
    const pr = opts.pr as number;
    const { fetchStory } = await import('../stats/lazy.js');
    const { record, story } = await fetchStory(client, target, pr);
    const state = story.state;
    if (!isTerminal(state) || !ctx.on.has(state)) {
      const why = isTerminal(state)
        ? `${state}, and --on is ${opts.on.join(',')}`
        : `${state}: it has not left the queue`;
      deps.out.note(['PR #', String(pr), ' is ', v(why), '; nothing posted']);
      return { data: { pr, state, posted: false, deliveries: [] }, exitCode: 0 };
    }
    const outcome = await lazy.deliverMessage(lazy.buildMessage(record, story, target), ctx);
    report(deps, outcome);
    const failed = outcome.deliveries.filter((d) => !d.ok);
    if (failed.length > 0)
      throw new MqError(
        mostSevere(failed.map((d) => d.exitCode)) as ExitCodeValue,
        `notify PR #${pr}`,
        failed.map((d) => d.error).join('; '),
        { hints: [`post it again to those only: mq notify ${pr} ${failed.map((d) => `--${d.target}`).join(' ')}`] },
      );
    return { data: outcomeDoc(outcome), exitCode: 0 };
  } finally {
    await lazy.closeDelivery();
  }
}

async function watch(
  w: NonNullable<NotifyOptions['watch']>,
  ctx: NotifyContext,
  deps: Deps,
  notify: typeof import('../notify/notify.js').notifyLeftQueue,
): Promise<Result> {
  const queue = `${ctx.client.http.settings.baseUrl} ${formatRepo(ctx.target.repo)} ${ctx.target.targetBranch}`;
  const statePath = w.state ? resolve(deps.cwd, w.state) : defaultStatePath(deps.env, deps.env.HOME, queue);
  if (!statePath)
    throw new ConfigError('notify --watch: no private cache directory to keep its state in', {
      hints: ['pass --state FILE'],
    });
  const { unposted } = await watchAndNotify(ctx, {
    intervalMs: w.intervalMs,
    statePath,
    notify,
    onBlip: (message) => deps.out.note([own(paints.yellow, '!'), ` ${message}`]),
    report: async (o) => {
      report(deps, o);
      if (deps.out.format() === 'json') await deps.out.stream(outcomeDoc(o), {});
    },
  });
  // Ctrl-C ends a watch (130); with a post still undelivered, 6.
  if (unposted === 0) return { exitCode: ExitCode.interrupted };
  throw new MqError(ExitCode.unavailable, 'notify --watch', `${unposted} PR(s) left the queue unposted`, {
    hints: ['the state file keeps them: the next start posts them'],
  });
}

interface Flags extends SinkFlags {
  watch?: boolean;
  on: string;
  interval?: string;
  state?: string;
}

/** Where and what to post: the flags `mq notify` and `mq webhooks listen --notify` share. */
export function withSinkOptions(cmd: Command): Command {
  return cmd
    .option('--slack', 'post to Slack (MQ_NOTIFY_SLACK_URL)')
    .option('--teams', 'post to Microsoft Teams (MQ_NOTIFY_TEAMS_URL)')
    .option('--github', 'comment on the PR (GITHUB_TOKEN)')
    .option('--webhook', 'post a JSON document (MQ_NOTIFY_WEBHOOK_URL)')
    .option('--slack-url-file <file>', 'read the Slack webhook URL from a file')
    .option('--teams-url-file <file>', 'read the Teams workflow URL from a file')
    .option('--webhook-url-file <file>', 'read the webhook URL from a file')
    .option('--github-token-file <file>', 'read the GitHub token from a file')
    .option('--on <outcomes>', 'which outcomes to post: failed, cancelled, merged', DEFAULT_ON.join(','))
    .option('--authors <file>', 'GitHub login -> Slack user id (JSON, or `login: U123` lines): mention authors');
}

/** The parsed sink flags. */
export function sinkOptions(f: SinkFlags & { on: string }): Pick<NotifyOptions, 'on' | 'sinks'> {
  const sinks: SinkFlags = {};
  for (const k of ['slack', 'teams', 'github', 'webhook'] as const) if (f[k]) sinks[k] = true;
  for (const k of ['slackUrlFile', 'teamsUrlFile', 'webhookUrlFile', 'githubTokenFile', 'authors'] as const)
    if (f[k] !== undefined) sinks[k] = f[k];
  return { on: parseOn(f.on), sinks };
}

/** What a webhooks listener calls per verified event: a PR that left the queue is posted, the rest ignored. */
export async function notifyOnEvent(deps: Deps, opts: Pick<NotifyOptions, 'on' | 'sinks'>) {
  const lazy = await import('../notify/index.js');
  const ctx = await notifyContext(deps, opts);
  return async (type: string, pr: number | undefined): Promise<void> => {
    const left = pr === undefined ? undefined : lazy.leftQueueEventOf(type, pr);
    if (!left) return;
    report(deps, await lazy.notifyLeftQueue(left, ctx));
  };
}

export function notifyCommand(ctx: Context): Command {
  const cmd = new Command('notify')
    .summary('post a message when a PR leaves the queue (Slack, Teams, GitHub comment, webhook)')
    .description(
      [
        'Tell people a PR left the merge queue: the PR, its title and author, what happened in plain words, ' +
          'the failing checks with their links, and the next step. Once for one PR (a PR still in the queue: ' +
          'said, nothing posted, exit 0), or with --watch by polling the queue until Ctrl-C, posting once per ' +
          'trip that leaves it; a state file remembers what was posted, so after a restart what left meanwhile ' +
          'is posted once and nothing twice.',
        '',
        'Targets read their secrets from the environment or a file, never the command line: ' +
          'MQ_NOTIFY_SLACK_URL (Slack incoming webhook, Block Kit), MQ_NOTIFY_TEAMS_URL (Teams workflow webhook, ' +
          'Adaptive Card), MQ_NOTIFY_WEBHOOK_URL (a JSON document, type mq.pull_request.left_queue) and ' +
          'GITHUB_TOKEN (one PR comment, updated in place; GITHUB_API_URL for GitHub Enterprise). Without a ' +
          'target flag, every webhook whose variable is set. URLs must be https:// (http:// only to localhost). ' +
          'A delivery is retried on 429, 5xx and network failures; one that still fails exits 6 (refused with ' +
          'another 4xx: 5).',
      ].join('\n'),
    )
    .argument('[pr]', 'PR number (in GitHub Actions it defaults to the PR of the workflow run)');
  withSinkOptions(cmd)
    .option('--watch', 'poll the queue until Ctrl-C and post each PR that leaves it')
    .option('--interval <duration>', 'with --watch: time between reads (default 30s)')
    .option('--state <file>', "with --watch: the state file (default: in mq's cache directory)")
    .action(
      act(
        ctx,
        'notify',
        (pr: string | undefined, f: Flags): NotifyOptions => {
          const { on, sinks } = sinkOptions(f);
          if (!f.watch) {
            for (const [flag, value] of [
              ['--interval', f.interval],
              ['--state', f.state],
            ] as const)
              if (value !== undefined) throw new UsageError(`${flag}: only with --watch`);
            return { pr: onePr(ctx.env, pr), on, sinks };
          }
          if (pr !== undefined)
            throw new UsageError('--watch: follows the whole queue; drop the PR number', {
              hints: ['or drop --watch to post about one PR'],
            });
          const intervalMs = parseDuration(f.interval ?? '30s', '--interval');
          if (intervalMs < 500) throw new UsageError('--interval: must be at least 500ms');
          return { watch: { intervalMs, ...(f.state !== undefined ? { state: f.state } : {}) }, on, sinks };
        },
        runNotify,
      ),
    );
  withPlainHelp(cmd, [plainNone('nothing on stdout: a ✓ or ✗ line per target on stderr, and the exit code')]);
  return withExamples(cmd, [
    'mq submit --wait "$PR" || mq notify "$PR"',
    'mq notify 42 --slack --github',
    'mq notify --watch --teams --on failed,cancelled,merged',
    'mq notify 42 --slack --authors .github/slack-ids.json',
  ]);
}
