import { Command } from 'commander';
import { parsePriority, priorityValue, type Priority } from '../cli/args.js';
import { formatRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { act, onePr, prDocument, withExamples, withPlainHelp } from './shared.js';

export interface PriorityOptions {
  pr: number;
  priority?: Priority;
  noBatch?: boolean;
  dryRun?: boolean;
}

/** A live PR's priority and batching: v2 changes the entry in place, v1 resubmits it (its documented upsert). */
export async function runPriority(opts: PriorityOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun });
  const req = {
    ...target,
    pr: { number: opts.pr },
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    ...(opts.noBatch !== undefined ? { noBatch: opts.noBatch } : {}),
  };
  const via = await client.setPriority(req);
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, doc: { requests: deps.dryRuns } } };
  const after = await client.getSubmittedPullRequest(req);
  const shown = after.priorityName ?? (after.priorityValue == null ? 'unknown' : String(after.priorityValue));
  deps.out.note([
    own(paints.green, '✓'),
    ` PR #${opts.pr}: priority `,
    v(shown),
    ...(after.noBatch == null ? [] : [after.noBatch ? ', tested alone' : ', may be batched']),
    ...(via === 'resubmit' ? [own(paints.dim, ' (v1: resubmitted, its way of changing a queued PR)')] : []),
  ]);
  const common = { action: 'priority', repo: formatRepo(target.repo), targetBranch: target.targetBranch };
  const item = {
    pr: opts.pr,
    ok: true,
    exitCode: 0,
    ...common,
    via,
    state: after.state ?? null,
    priorityName: after.priorityName ?? null,
    priorityValue: after.priorityValue ?? (opts.priority === undefined ? null : priorityValue(opts.priority)),
    noBatch: after.noBatch ?? null,
  };
  return { data: prDocument([item], common), exitCode: 0 };
}

function priorityArg(text: string): Priority {
  try {
    return parsePriority(text);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.why.replace(/^--priority/, 'priority'));
    throw err;
  }
}

export function priorityCommand(ctx: Context): Command {
  const cmd = new Command('priority')
    .summary("change a queued PR's priority or batching")
    .description(
      'Change the priority (urgent, high, medium, low, or 0-255; lower goes first) or the batching of a PR the ' +
        'queue holds, without taking it out. On the v2 API the entry is changed in place; on v1, which has no ' +
        'such call, the PR is resubmitted (v1 updates a queued PR on resubmit), and mq says so. A PR not in the ' +
        'queue exits 3 with a hint to submit it.',
    )
    .argument('<pr>', 'PR number')
    .argument('[priority]', 'urgent, high, medium, low, or 0-255')
    // --batch first: then --no-batch sets no default, and neither flag leaves the batching alone.
    .option('--batch', 'let it be batched again')
    .option('--no-batch', 'test it alone, never in a batch')
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(
        ctx,
        'priority',
        (pr: string, priority: string | undefined, f: { batch?: boolean; dryRun?: boolean }): PriorityOptions => {
          const given = priority === undefined ? undefined : priorityArg(priority);
          // commander folds --batch and --no-batch into one flag: true, false, or unset.
          const noBatch = f.batch === undefined ? undefined : !f.batch;
          if (given === undefined && noBatch === undefined)
            throw new UsageError('priority: give a priority, --no-batch or --batch', {
              hints: ['for example: mq priority 42 urgent'],
            });
          return { pr: onePr(ctx.env, pr), priority: given, noBatch, dryRun: f.dryRun };
        },
        runPriority,
      ),
    );
  withPlainHelp(cmd, [plainNone('nothing on stdout: a confirmation on stderr, and the exit code')]);
  return withExamples(cmd, ['mq priority 42 urgent', 'mq priority 42 --no-batch', 'mq priority 42 10 --batch']);
}
