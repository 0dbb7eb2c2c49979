import { Command } from 'commander';
import type { MergeQueueService } from '../api/service.js';
import { formatRepo } from '../config/resolve.js';
import type { Context, Deps, Target } from '../context.js';
import { ExitCode, MqError } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { runOverPrs } from './bulk.js';
import { act, prArguments, withExamples, withPlainHelp, prDocument } from './shared.js';
import { parallelOption } from './submit.js';

/** The state a mutation left the PR in, read back (best effort: the mutation already succeeded). */
export async function stateAfter(client: MergeQueueService, target: Target, pr: number): Promise<string | undefined> {
  try {
    const record = await client.getSubmittedPullRequest({ ...target, pr: { number: pr } });
    return record.state ?? undefined;
  } catch {
    return undefined;
  }
}

export interface CancelOptions {
  prs: string[];
  parallel: number;
  dryRun?: boolean;
}

export async function runCancel(opts: CancelOptions, deps: Deps): Promise<Result> {
  const prs = await prArguments(deps, opts.prs);
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun });
  const bulk = prs.length > 1 || opts.prs.includes('-');
  const { results, exitCode } = await runOverPrs(
    deps,
    prs,
    { parallel: opts.parallel, action: 'cancel', bulk },
    async (pr) => {
      try {
        await client.cancelPullRequest({ ...target, pr: { number: pr } });
      } catch (err) {
        // The service answers 404 for a PR no longer in the queue; one it already cancelled is done.
        if (opts.dryRun || !(err instanceof MqError) || err.exitCode !== ExitCode.notFound) throw err;
        if ((await stateAfter(client, target, pr)) !== 'cancelled') throw err;
        return {
          repo: formatRepo(target.repo),
          targetBranch: target.targetBranch,
          state: 'cancelled',
          alreadyCancelled: true,
        };
      }
      if (opts.dryRun) return { dryRun: true };
      return {
        repo: formatRepo(target.repo),
        targetBranch: target.targetBranch,
        state: await stateAfter(client, target, pr),
      };
    },
    (r) => (r.alreadyCancelled ? 'already cancelled' : `cancelled${r.state ? ` (now ${r.state})` : ''}`),
  );
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, bulk, doc: { requests: deps.dryRuns } } };
  const first = results[0];
  if (!bulk && first?.alreadyCancelled)
    deps.out.note([own(paints.green, '✓'), ` PR #${first.pr} was already cancelled`]);
  else if (!bulk && first)
    deps.out.note([
      own(paints.green, '✓'),
      ` cancelled PR #${first.pr}`,
      ...(first.state ? ['; it is now ', v(first.state)] : []),
    ]);
  return {
    data: prDocument(results, { action: 'cancel', repo: formatRepo(target.repo), targetBranch: target.targetBranch }),
    exitCode,
  };
}

export function cancelCommand(ctx: Context): Command {
  const cmd = new Command('cancel')
    .summary('remove PRs from the merge queue')
    .description('Cancel one or more PRs: they leave the queue, and PRs tested on top of them restart.')
    .argument('[pr...]', 'PR numbers; `-` reads them from stdin')
    .addOption(parallelOption())
    .option('--dry-run', 'print the requests instead of sending them')
    .action(
      act(
        ctx,
        'cancel',
        (prs: string[], f: { parallel: number; dryRun?: boolean }): CancelOptions => ({
          prs,
          parallel: f.parallel,
          dryRun: f.dryRun,
        }),
        runCancel,
      ),
    );
  withPlainHelp(cmd, [plainNone('nothing on stdout: one ✓ or ✗ line per PR on stderr, and the exit code')]);
  return withExamples(cmd, ['mq cancel 42', 'mq cancel 101 102 103 --json', 'mq cancel 42 --dry-run']);
}
