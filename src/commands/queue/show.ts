import { Command } from 'commander';
import type { Queue } from '../../api/schemas.js';
import type { Context, Target } from '../../context.js';
import { formatRepo } from '../../config/resolve.js';
import { renderFields, renderRows, type Format } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import { bannerText, countsText, PR_HEADERS, queueBanner, queueRows, queueSettingFields, queueSummaryFields } from '../../views/queue.js';
import { emit, withExamples } from '../shared.js';
import { bannerToStderr, queueName } from './common.js';

export interface ShowOptions {
  settings?: boolean;
}

/**
 * The queue as text for stdout. On a terminal the banner of a queue that is not running leads;
 * piped, stdout carries only rows (the caller puts the summary and banner on stderr).
 */
export async function renderQueue(ctx: Context, queue: Queue, target: Target, format: Format, opts: ShowOptions = {}): Promise<string> {
  const style = ctx.style;
  const entries = queue.enqueuedPullRequests ?? [];
  if (format === 'plain' || format === 'raw') {
    if (opts.settings) return renderFields(queueSettingFields(queue), 'plain', style);
    return renderRows(PR_HEADERS, queueRows(entries, ctx.now(), style, false), 'plain', style);
  }
  if (format === 'markdown') {
    const banner = bannerText(queue.state);
    const head = banner ? `> **⚠ ${banner}**\n\n` : '';
    const fields = opts.settings ? queueSettingFields(queue) : queueSummaryFields(queue, formatRepo(target.repo), style);
    const settings = renderFields(fields, 'markdown', style, `Merge queue ${target.targetBranch}`);
    if (opts.settings || entries.length === 0) return head + settings;
    return `${head}${settings}\n${await renderRows(PR_HEADERS, queueRows(entries, ctx.now(), style, true), 'markdown', style)}`;
  }
  const banner = queueBanner(queue.state, style);
  const head = banner ? `${banner}\n\n` : '';
  if (opts.settings) return head + renderFields(queueSettingFields(queue), 'table', style);
  const summary = renderFields(queueSummaryFields(queue, formatRepo(target.repo), style), 'table', style);
  const table = entries.length === 0 ? `${style.dim('No PRs in the queue.')}\n` : await renderRows(PR_HEADERS, queueRows(entries, ctx.now(), style, true), 'table', style);
  return `${head}${summary}\n${table}`;
}

export async function runQueueShow(ctx: Context, opts: ShowOptions): Promise<number> {
  const target = ctx.target();
  const client = await ctx.client();
  const queue = await client.getQueue(target);
  const format = ctx.format();
  if (format === 'json') {
    const { enqueuedPullRequests, ...settings } = queue;
    await emit(ctx, opts.settings ? settings : { ...queue, enqueuedPullRequests: enqueuedPullRequests ?? [] }, () => '');
    bannerToStderr(ctx, queue.state);
    return 0;
  }
  if (format !== 'table' && format !== 'markdown') {
    bannerToStderr(ctx, queue.state);
    if (!opts.settings) {
      const state = queue.state ?? 'unknown';
      ctx.io.err(`queue ${queueName(target)}: ${stateColor(ctx.styleErr, state)} · ${countsText(queue.enqueuedPullRequests ?? [])}\n`);
    }
  }
  ctx.io.out(await renderQueue(ctx, queue, target, format, opts));
  return 0;
}

export function queueShowCommand(ctx: Context): Command {
  const cmd = new Command('show')
    .summary('show the queue: state, settings and enqueued PRs')
    .description(
      [
        'Show the merge queue of the target branch: its state (a paused, draining or switching queue is flagged with a banner), its key settings, and the enqueued PRs in queue order with their state, time in that state and priority.',
        '',
        'Piped (or -o plain), stdout carries one line per PR and nothing else, tab-separated: position, PR number, state, seconds in that state, priority, author, title; the queue state and the banner go to stderr. With --settings, stdout carries one `key<TAB>value` line per setting instead (keys are the flags of `mq queue update`, plus state and enqueued). --json prints the whole record the service returned.',
      ].join('\n'),
    )
    .option('--settings', 'print the queue state and settings only, one key per line when piped')
    .action(async (opts: ShowOptions) => {
      ctx.exitCode = await runQueueShow(ctx, opts);
    });
  return withExamples(cmd, [
    'mq queue show',
    "mq queue show | awk -F'\\t' '$3 == \"testing\" { print $2 }'",
    "mq queue show --settings | awk -F'\\t' '$1 == \"state\" { print $2 }'",
    'mq queue show --branch release --json | jq ".enqueuedPullRequests | length"',
  ]);
}
