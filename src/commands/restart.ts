import { Command } from 'commander';
import type { Context } from '../context.js';
import { formatRepo } from '../config/resolve.js';
import { stateAfter } from './cancel.js';
import { emit, finishDryRun, onePr, withExamples } from './shared.js';

export async function runRestart(ctx: Context, prArg: string | undefined, opts: { dryRun?: boolean }): Promise<number> {
  const pr = onePr(ctx, prArg);
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  await client.restartTestsOnPullRequest({ ...target, pr: { number: pr } });
  if (opts.dryRun) {
    finishDryRun(ctx);
    return 0;
  }
  const state = await stateAfter(client, target, pr);
  ctx.io.err(`${ctx.styleErr.green('✓')} restarted tests of PR #${pr}${state ? `; it is now ${state}` : ''}\n`);
  await emit(ctx, { pr, ok: true, exitCode: 0, action: 'restart', repo: formatRepo(target.repo), targetBranch: target.targetBranch, state }, () => '');
  return 0;
}

export function restartCommand(ctx: Context): Command {
  const cmd = new Command('restart')
    .summary('re-run the tests of a PR in the queue')
    .description('Restart the tests of a PR that is testing or pending failure, without moving it in the queue.')
    .argument('[pr]', 'PR number')
    .option('--dry-run', 'print the request instead of sending it')
    .action(async (pr: string | undefined, opts: { dryRun?: boolean }) => {
      ctx.exitCode = await runRestart(ctx, pr, opts);
    });
  return withExamples(cmd, ['mq restart 42', 'mq restart 42 --json']);
}
