import { Command } from 'commander';
import type { MergeQueueClient } from '../api/client.js';
import type { Context, Target } from '../context.js';
import { formatRepo } from '../config/resolve.js';
import { runOverPrs } from './bulk.js';
import { emit, finishDryRun, prArguments, withExamples } from './shared.js';
import { parallelOption } from './submit.js';

/** The state a mutation left the PR in, read back (best effort: the mutation already succeeded). */
export async function stateAfter(client: MergeQueueClient, target: Target, pr: number): Promise<string | undefined> {
  try {
    const record = await client.getSubmittedPullRequest({ ...target, pr: { number: pr } });
    return record.state ?? undefined;
  } catch {
    return undefined;
  }
}

export async function runCancel(ctx: Context, prArgs: string[], opts: { parallel: number; dryRun?: boolean }): Promise<number> {
  const prs = await prArguments(ctx, prArgs);
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  const bulk = prs.length > 1 || prArgs.includes('-');
  const { results, exitCode } = await runOverPrs(
    ctx,
    prs,
    { parallel: opts.parallel, action: 'cancel', bulk },
    async (pr) => {
      await client.cancelPullRequest({ ...target, pr: { number: pr } });
      if (opts.dryRun) return { dryRun: true };
      return { repo: formatRepo(target.repo), targetBranch: target.targetBranch, state: await stateAfter(client, target, pr) };
    },
    (r) => `cancelled${r.state ? ` (now ${r.state})` : ''}`,
  );
  if (opts.dryRun) {
    finishDryRun(ctx, {}, bulk);
    return 0;
  }
  const first = results[0];
  if (!bulk && first) ctx.io.err(`${ctx.styleErr.green('✓')} cancelled PR #${first.pr}${first.state ? `; it is now ${first.state}` : ''}\n`);
  await emit(ctx, bulk ? results : first, () => '');
  return exitCode;
}

export function cancelCommand(ctx: Context): Command {
  const cmd = new Command('cancel')
    .summary('remove PRs from the merge queue')
    .description('Cancel one or more PRs: they leave the queue, and PRs tested on top of them restart.')
    .argument('[pr...]', 'PR numbers; `-` reads them from stdin')
    .addOption(parallelOption())
    .option('--dry-run', 'print the requests instead of sending them')
    .action(async (prs: string[], opts: { parallel: number; dryRun?: boolean }) => {
      ctx.exitCode = await runCancel(ctx, prs, opts);
    });
  return withExamples(cmd, ['mq cancel 42', 'mq cancel 101 102 103 --json', 'mq cancel 42 --dry-run']);
}
