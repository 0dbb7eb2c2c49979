import { Command, Option } from 'commander';
import { parseIntIn, parsePriority, priorityValue, type Priority } from '../cli/args.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { formatRepo } from '../config/resolve.js';
import { runOverPrs } from './bulk.js';
import { emit, finishDryRun, prArguments, withExamples } from './shared.js';
import { parseWaitOptions, waitForPr, type WaitFlags } from './wait.js';

export interface SubmitOptions extends WaitFlags {
  priority?: Priority;
  batch?: boolean;
  parallel: number;
  dryRun?: boolean;
}

export async function runSubmit(ctx: Context, prArgs: string[], opts: SubmitOptions): Promise<number> {
  const prs = await prArguments(ctx, prArgs);
  if (opts.wait && (prs.length > 1 || prArgs.includes('-'))) {
    throw new UsageError('--wait takes one PR', { hints: ['submit them together, then wait for each: mq wait <pr>'] });
  }
  if (!opts.wait && opts.interval !== undefined) throw new UsageError('--interval only applies with --wait');
  const waitSettings = opts.wait ? parseWaitOptions(ctx, opts) : undefined;
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  const bulk = prs.length > 1 || prArgs.includes('-');
  const noBatch = opts.batch === false ? true : undefined;
  const { results, exitCode } = await runOverPrs(
    ctx,
    prs,
    { parallel: opts.parallel, action: 'submit', bulk },
    async (pr) => {
      await client.submitPullRequest({ ...target, pr: { number: pr }, priority: opts.priority, noBatch });
      return {
        repo: formatRepo(target.repo),
        targetBranch: target.targetBranch,
        ...(opts.priority !== undefined ? { priority: opts.priority, priorityValue: priorityValue(opts.priority) } : {}),
        ...(noBatch ? { noBatch } : {}),
        ...(opts.dryRun ? { dryRun: true } : {}),
      };
    },
    () => `submitted to ${target.targetBranch}`,
  );
  if (opts.dryRun) {
    finishDryRun(ctx, {}, bulk);
    return 0;
  }
  if (waitSettings && !bulk && results[0]?.ok) {
    return waitForPr(ctx, client, target, prs[0] as number, waitSettings, { submitted: true });
  }
  if (!bulk) ctx.io.err(`${ctx.styleErr.green('✓')} submitted PR #${prs[0]} to the ${target.targetBranch} queue of ${formatRepo(target.repo)}\n`);
  await emit(ctx, bulk ? results : results[0], () => '');
  return exitCode;
}

export function parallelOption(): Option {
  return new Option('--parallel <n>', 'requests in flight at once for several PRs')
    .default(8)
    .argParser((v) => parseIntIn(v, '--parallel', 1, 64));
}

export function submitCommand(ctx: Context): Command {
  const cmd = new Command('submit')
    .summary('submit PRs to the merge queue')
    .description('Submit one or more pull requests to the merge queue of the target branch. Resubmitting a queued PR updates its priority.')
    .argument('[pr...]', 'PR numbers; `-` reads them from stdin (in GitHub Actions: defaults to the run\'s PR)')
    .addOption(new Option('-p, --priority <priority>', 'urgent, high, medium, low, or 0-255 (0 is the most urgent)').argParser(parsePriority))
    .option('--no-batch', 'test this PR alone, never in a batch')
    .addOption(parallelOption())
    .option('--dry-run', 'print the requests instead of sending them')
    .option('--wait', 'then wait until the PR merges or leaves the queue (one PR; --timeout bounds the wait, default 2h)')
    .option('--interval <duration>', 'with --wait: time between polls (default 15s)')
    .action(async (prs: string[], opts: SubmitOptions) => {
      ctx.exitCode = await runSubmit(ctx, prs, opts);
    });
  return withExamples(cmd, [
    'mq submit 42',
    'mq submit 42 --priority high --no-batch',
    'mq submit "$PR" --wait --timeout 2h --json',
    'gh pr list --label ready --json number -q ".[].number" | mq submit -',
  ]);
}
