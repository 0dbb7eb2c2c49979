import { Command } from 'commander';
import type { Queue } from '../../api/schemas.js';
import type { Context, Deps } from '../../context.js';
import { ExitCode, MqError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { formatRepo } from '../../config/resolve.js';
import { plainColumns } from '../../output/plain.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { canPrompt, identity, queueName } from './common.js';

export interface DeleteOptions {
  yes?: boolean;
  dryRun?: boolean;
}

export async function runQueueDelete(opts: DeleteOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const what = `delete the queue for ${target.targetBranch}`;
  const interactive = !opts.yes && !opts.dryRun && canPrompt(deps);
  // In CI, refuse before touching the network: the answer would be the same after any read.
  if (!opts.yes && !opts.dryRun && !interactive) {
    throw new MqError(ExitCode.confirm, what, 'confirmation needed, but there is no terminal to ask on', {
      hints: ['pass --yes to delete the queue without asking'],
    });
  }
  const client = await deps.client({ dryRun: opts.dryRun });
  let queue: Queue | undefined;
  try {
    queue = await client.getQueue(target);
  } catch (err) {
    if (!opts.dryRun) throw err;
    deps.out.note([
      own(paints.yellow, '!'),
      ' could not read the queue (',
      v(err instanceof MqError ? err.why : String(err)),
      ')',
    ]);
  }
  const entries = queue?.enqueuedPullRequests ?? [];
  if (entries.length > 0) {
    const numbers = entries.map((e) => e.prNumber).filter((n): n is number => typeof n === 'number');
    const shown =
      numbers
        .slice(0, 10)
        .map((n) => `#${n}`)
        .join(', ') + (numbers.length > 10 ? ', …' : '');
    throw new MqError(
      ExitCode.rejected,
      what,
      `the queue is not empty: ${entries.length} PR${entries.length === 1 ? ' is' : 's are'} enqueued (${shown})`,
      {
        hints: [
          'let them finish and admit no more: `mq queue drain --wait`, then delete',
          `or take them out: \`mq cancel ${numbers.slice(0, 10).join(' ')}${numbers.length > 10 ? ' …' : ''}\``,
        ],
      },
    );
  }
  if (interactive) {
    const answer = await deps.io.prompt(
      `Delete the merge queue for ${queueName(target)}? This cannot be undone.\nType the branch name ` +
        `(${target.targetBranch}) to confirm: `,
    );
    if (answer.trim() !== target.targetBranch) {
      throw new MqError(
        ExitCode.confirm,
        what,
        `not confirmed (expected "${target.targetBranch}"); nothing was deleted`,
      );
    }
  }
  await client.deleteQueue(target);
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, doc: { ...identity(target) } } };
  deps.out.note([own(paints.green, '✓'), ' deleted the queue for ', v(queueName(target))]);
  return {
    data: { deleted: true, ...identity(target) },
    exitCode: 0,
    view: {
      plain: [
        { headers: [], rows: [DELETE_PLAIN.row({ branch: target.targetBranch, repo: formatRepo(target.repo) })] },
      ],
      raw: [],
    },
  };
}

/** `mq queue delete` piped. */
export const DELETE_PLAIN = plainColumns('one line', ['branch', 'repo'], 'deleted');

export function queueDeleteCommand(ctx: Context): Command {
  const cmd = new Command('delete')
    .summary('delete the queue of the target branch (it must be empty)')
    .description(
      'Delete the merge queue of the target branch. The queue must be empty: a queue with enqueued PRs is ' +
        'refused (exit 5) with their numbers; drain it first (`mq queue drain --wait`) or cancel them. On a ' +
        'terminal you are asked to type the branch name; --yes skips the question. Without a terminal (or ' +
        'with CI set) and without --yes, nothing is done and mq exits 10; a wrong answer also exits 10.',
    )
    .option('-y, --yes', 'delete without asking for confirmation')
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(ctx, 'queue delete', (f: DeleteOptions): DeleteOptions => ({ yes: f.yes, dryRun: f.dryRun }), runQueueDelete),
    );
  withPlainHelp(cmd, [DELETE_PLAIN]);
  return withExamples(cmd, [
    'mq queue delete --branch old-release',
    'mq queue delete --branch old-release --yes',
    'mq queue drain --wait && mq queue delete --yes',
  ]);
}
