import { Command } from 'commander';
import { formatRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { ExitCode, MqError, withHint } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { stateAfter } from './cancel.js';
import { act, onePr, withExamples, withPlainHelp, prDocument } from './shared.js';

export interface RestartOptions {
  pr: number;
  dryRun?: boolean;
}

export async function runRestart(opts: RestartOptions, deps: Deps): Promise<Result> {
  const { pr } = opts;
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun });
  try {
    await client.restartTestsOnPullRequest({ ...target, pr: { number: pr } });
  } catch (err) {
    // A 404 for a PR that failed or was cancelled: it left the queue; only a resubmit tests it again.
    if (opts.dryRun || !(err instanceof MqError) || err.exitCode !== ExitCode.notFound) throw err;
    const state = await stateAfter(client, target, pr);
    if (state !== 'failed' && state !== 'cancelled') throw err;
    const branch = deps.options.branch ? ` --branch ${target.targetBranch}` : '';
    const left = state === 'failed' ? 'failed' : 'was cancelled';
    throw withHint(
      err,
      `PR #${pr} ${left} and left the queue, so no tests run to restart: resubmit it with \`mq submit ${pr}${branch}\``,
    );
  }
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, doc: { requests: deps.dryRuns } } };
  const state = await stateAfter(client, target, pr);
  deps.out.note([
    own(paints.green, '✓'),
    ` restarted tests of PR #${pr}`,
    ...(state ? ['; it is now ', v(state)] : []),
  ]);
  const common = { action: 'restart', repo: formatRepo(target.repo), targetBranch: target.targetBranch };
  return { data: prDocument([{ pr, ok: true, exitCode: 0, ...common, state }], common), exitCode: 0 };
}

export function restartCommand(ctx: Context): Command {
  const cmd = new Command('restart')
    .summary('re-run the tests of a PR in the queue')
    .description('Restart the tests of a PR that is testing or pending failure, without moving it in the queue.')
    .argument('[pr]', 'PR number')
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(
        ctx,
        'restart',
        (pr: string | undefined, f: { dryRun?: boolean }): RestartOptions => ({
          pr: onePr(ctx.env, pr),
          dryRun: f.dryRun,
        }),
        runRestart,
      ),
    );
  withPlainHelp(cmd, [plainNone('nothing on stdout: a ✓ line on stderr, and the exit code')]);
  return withExamples(cmd, ['mq restart 42', 'mq restart 42 --json']);
}
