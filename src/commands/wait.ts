/**
 * `mq wait`: poll a PR until it merges (exit 0), leaves the queue (exit 9) or --timeout passes
 * (exit 8). Transient failures of a poll are retried, never reported as the outcome; 401 and 404
 * end the wait with their own codes. State changes stream to stderr; --json prints one final
 * document with the transitions seen.
 */
import { Command } from 'commander';
import type { MergeQueueClient } from '../api/client.js';
import type { SubmittedPullRequest } from '../api/schemas.js';
import { parsePrNumber } from '../cli/args.js';
import { inferPrNumber } from '../config/github.js';
import { checkedTimeout, MAX_TIMEOUT_MS, type Context, type Target } from '../context.js';
import { UsageError } from '../errors.js';
import { json, renderFields } from '../output/render.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { poll } from '../util/poll.js';
import { pullRequestFields } from '../views/pull-request.js';
import { withExamples } from './shared.js';

export interface WaitFlags {
  wait?: boolean;
  interval?: string;
}

export interface WaitSettings {
  timeoutMs: number;
  intervalMs: number;
}

export const DEFAULT_WAIT_TIMEOUT = '2h';

export function parseWaitOptions(ctx: Context, flags: WaitFlags): WaitSettings {
  const timeoutMs = checkedTimeout(parseDuration(ctx.options.timeout ?? DEFAULT_WAIT_TIMEOUT, '--timeout'), '--timeout');
  const intervalMs = parseDuration(flags.interval ?? '15s', '--interval');
  if (intervalMs < 100) throw new UsageError('--interval: must be at least 100ms');
  if (intervalMs > MAX_TIMEOUT_MS) throw new UsageError('--interval: must be at most 24 days');
  // While waiting, --timeout bounds the whole wait; each request keeps its own limit.
  ctx.waiting = true;
  return { timeoutMs, intervalMs };
}

export interface Transition {
  from: string | null;
  to: string;
  at: string;
  /** Time spent in `from`, as far as this wait saw it. */
  afterMs: number | null;
}

type Outcome = 'merged' | 'failed' | 'cancelled' | 'left_queue' | 'timeout';

const EXIT_FOR: Record<Outcome, number> = { merged: 0, failed: 9, cancelled: 9, left_queue: 9, timeout: 8 };



function stateTime(pr: SubmittedPullRequest, fallback: number): number {
  const t = pr.stateChangedAt ? Date.parse(pr.stateChangedAt) : NaN;
  return Number.isNaN(t) ? fallback : t;
}

export async function waitForPr(
  ctx: Context,
  client: MergeQueueClient,
  target: Target,
  pr: number,
  settings: WaitSettings,
  info: { submitted?: boolean } = {},
): Promise<number> {
  const started = ctx.now();
  const deadline = started + settings.timeoutMs;
  const transitions: Transition[] = [];
  const style = ctx.styleErr;
  let last: SubmittedPullRequest | undefined;
  let lastChange = started;
  // Set inside the poll callback; 'timeout' unless a read ended the wait first.
  let outcome = 'timeout' as Outcome;
  let reason = '';

  await poll(ctx, {
    intervalMs: settings.intervalMs,
    deadline,
    jitter: true,
    what: `PR #${pr}: poll`,
    read: () => client.getSubmittedPullRequest({ ...target, pr: { number: pr } }, { deadline }),
    onValue: (record) => {
      const state = record.state ?? 'unknown';
      if (state !== last?.state) {
        const at = stateTime(record, ctx.now());
        const afterMs = last ? Math.max(0, at - lastChange) : null;
        transitions.push({ from: last?.state ?? null, to: state, at: new Date(at).toISOString(), afterMs });
        const prev = last ? `${last.state} → ` : '';
        const spent = afterMs !== null ? style.dim(` (after ${formatDuration(afterMs)} in ${last?.state})`) : '';
        ctx.io.err(`PR #${pr}: ${prev}${style.bold(state)}${spent}\n`);
        lastChange = at;
      }
      last = record;
      if (state === 'merged' || state === 'failed' || state === 'cancelled') {
        outcome = state;
        return true;
      }
      if (record.isCurrentlySubmittedToQueue === false) {
        outcome = 'left_queue';
        reason = `the service says PR #${pr} is no longer in the queue, though its state is ${state}`;
        return true;
      }
      return false;
    },
  });

  const exitCode = EXIT_FOR[outcome];
  const waitedMs = ctx.now() - started;
  const finalState = last?.state ?? null;
  const summary =
    outcome === 'merged'
      ? `PR #${pr} merged`
      : outcome === 'timeout'
        ? `PR #${pr} still ${finalState ?? 'unknown'} after ${formatDuration(waitedMs)} (--timeout)`
        : outcome === 'left_queue'
          ? reason
          : `PR #${pr} ${outcome}`;
  ctx.io.err(`${exitCode === 0 ? style.green('✓') : style.red('✗')} ${summary}\n`);

  const doc = { pr, outcome, exitCode, state: finalState, submitted: info.submitted ?? false, waitedMs, transitions, pullRequest: last ?? null };
  const format = ctx.format();
  if (format === 'json') ctx.io.out(json(doc));
  else if (format === 'markdown') {
    const rows = transitions.map((t) => `| ${t.at} | ${t.from ?? '—'} | ${t.to} | ${t.afterMs === null ? '' : formatDuration(t.afterMs)} |`);
    const fields = last ? renderFields(pullRequestFields(last, ctx.now(), ctx.style), 'markdown', ctx.style, `PR #${pr}: ${outcome}`) : `### PR #${pr}: ${outcome}\n`;
    ctx.io.out(`${fields}\n| At | From | To | After |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`);
  } else if (format === 'plain') ctx.io.out(`${pr}\t${outcome}\t${finalState ?? ''}\t${Math.round(waitedMs / 1000)}\n`);
  return exitCode;
}

export async function runWait(ctx: Context, prArg: string | undefined, flags: WaitFlags): Promise<number> {
  const pr = prArg !== undefined ? parsePrNumber(prArg) : inferPrNumber(ctx.env);
  const settings = parseWaitOptions(ctx, flags);
  const target = ctx.target();
  const client = await ctx.client();
  return waitForPr(ctx, client, target, pr, settings);
}

export function waitCommand(ctx: Context): Command {
  const cmd = new Command('wait')
    .summary('wait until a PR merges or leaves the queue')
    .description(
      'Poll a submitted PR until it merges (exit 0), fails or is cancelled (exit 9), or --timeout passes (exit 8, default 2h). State changes are printed to stderr as they happen.',
    )
    .argument('[pr]', 'PR number (in GitHub Actions it defaults to the PR of the workflow run)')
    .option('--interval <duration>', 'time between polls (jittered; slower after failures)', '15s')
    .action(async (pr: string | undefined, opts: WaitFlags) => {
      ctx.exitCode = await runWait(ctx, pr, opts);
    });
  return withExamples(cmd, ['mq wait 42', 'mq wait 42 --timeout 30m --interval 10s', 'mq wait "$PR" --json > result.json'], 'Exit codes: 0 merged · 8 timed out · 9 failed, cancelled or removed.');
}
