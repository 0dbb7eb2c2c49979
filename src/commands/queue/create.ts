import { Command } from 'commander';
import { MAX_U32, QUEUE_MODES } from '../../api/constants.js';
import type { Queue } from '../../api/schemas.js';
import { parseIntIn } from '../../cli/args.js';
import type { Context } from '../../context.js';
import { ApiError, ExitCode, MqError } from '../../errors.js';
import { renderFields } from '../../output/render.js';
import { queueSettingFields, queueSummaryFields } from '../../views/queue.js';
import { formatRepo } from '../../config/resolve.js';
import { emit, finishDryRun, withExamples } from '../shared.js';
import { choiceOption, identity, queueName } from './common.js';

export interface CreateOptions {
  mode?: (typeof QUEUE_MODES)[number];
  concurrency?: number;
  dryRun?: boolean;
}

export async function runQueueCreate(ctx: Context, opts: CreateOptions): Promise<number> {
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  const request = { ...target, mode: opts.mode, concurrency: opts.concurrency };
  try {
    await client.createQueue(request);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      throw new MqError(ExitCode.rejected, `create the queue for ${target.targetBranch}`, `a queue for branch "${target.targetBranch}" already exists in ${formatRepo(target.repo)} (HTTP 409)`, {
        hints: [`see it with \`mq queue show --branch ${target.targetBranch}\`; change its settings with \`mq queue update\``],
      });
    }
    throw err;
  }
  if (opts.dryRun) {
    finishDryRun(ctx, { ...identity(target), mode: opts.mode ?? null, concurrency: opts.concurrency ?? null });
    return 0;
  }
  // The service answers create with an empty body; read the queue back to show what was made.
  let queue: Queue | undefined;
  try {
    queue = await client.getQueue(target);
  } catch {
    queue = undefined;
  }
  ctx.io.err(`${ctx.styleErr.green('✓')} created the queue for ${queueName(target)}\n`);
  const format = ctx.format();
  await emit(ctx, { created: true, ...identity(target), mode: opts.mode ?? null, concurrency: opts.concurrency ?? null, queue: queue ?? null }, () => {
    if (!queue) return '';
    const fields = format === 'plain' || format === 'raw' ? queueSettingFields(queue) : queueSummaryFields(queue, formatRepo(target.repo), ctx.style);
    return renderFields(fields, format, ctx.style);
  });
  return 0;
}

export function queueCreateCommand(ctx: Context): Command {
  const cmd = new Command('create')
    .summary('create a merge queue for the target branch')
    .description(
      'Create the merge queue of the target branch (--branch). Only the mode and the concurrency can be set at creation; set everything else afterwards with `mq queue update`. A queue that already exists for the branch is refused (exit 5).',
    )
    .addOption(choiceOption('--mode <mode>', 'queue mode (service default: single)', QUEUE_MODES))
    .option('--concurrency <n>', `PRs or batches tested at once, 1-${MAX_U32} (service default: 1)`, (v: string) => parseIntIn(v, '--concurrency', 1, MAX_U32))
    .option('--dry-run', 'print the request instead of sending it')
    .action(async (opts: CreateOptions) => {
      ctx.exitCode = await runQueueCreate(ctx, opts);
    });
  return withExamples(cmd, ['mq queue create --branch main', 'mq queue create --branch release --mode parallel --concurrency 4', 'mq queue create --branch main --dry-run']);
}
