import { Command } from 'commander';
import { QUEUE_SETTINGS } from '../../domain/queue-settings.js';
import type { Queue } from '../../api/schemas.js';
import { formatRepo } from '../../config/resolve.js';
import type { Context, Deps } from '../../context.js';
import { ApiError, ExitCode, MqError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { QUEUE_SETTINGS_PLAIN, queueSettingFields, queueSummaryFields } from '../../views/queue.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { identity, queueName } from './common.js';
import { settingOption } from './update.js';

export interface CreateOptions {
  mode?: string;
  concurrency?: number;
  dryRun?: boolean;
}

export async function runQueueCreate(opts: CreateOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun });
  const request = { ...target, mode: opts.mode as 'single' | 'parallel' | undefined, concurrency: opts.concurrency };
  try {
    await client.createQueue(request);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      throw new MqError(
        ExitCode.rejected,
        `create the queue for ${target.targetBranch}`,
        `a queue for branch "${target.targetBranch}" already exists in ${formatRepo(target.repo)} (HTTP 409)`,
        {
          hints: [
            `see it with \`mq queue show --branch ${target.targetBranch}\`; ` +
              'change its settings with `mq queue update`',
          ],
        },
      );
    }
    throw err;
  }
  if (opts.dryRun)
    return {
      exitCode: 0,
      dryRun: {
        requests: deps.dryRuns,
        doc: { ...identity(target), mode: opts.mode ?? null, concurrency: opts.concurrency ?? null },
      },
    };
  // The service answers create with an empty body; read the queue back to show what was made.
  let queue: Queue | undefined;
  try {
    queue = await client.getQueue(target);
  } catch {
    queue = undefined;
  }
  deps.out.note([own(paints.green, '✓'), ' created the queue for ', v(queueName(target))]);
  const data = {
    created: true,
    ...identity(target),
    mode: opts.mode ?? null,
    concurrency: opts.concurrency ?? null,
    queue: queue ?? null,
  };
  if (!queue) return { data, exitCode: 0 };
  const summary = queueSummaryFields(queue, formatRepo(target.repo));
  return {
    data,
    exitCode: 0,
    view: {
      plain: [{ fields: queueSettingFields(queue) }],
      table: [{ fields: summary }],
      markdown: [{ fields: summary }],
    },
  };
}

const CREATE_SETTINGS = QUEUE_SETTINGS.filter((s) => 'create' in s);

export function queueCreateCommand(ctx: Context): Command {
  const cmd = new Command('create')
    .summary('create a merge queue for the target branch')
    .description(
      'Create the merge queue of the target branch (--branch). Only the mode and the concurrency can be ' +
        'set at creation; set everything else afterwards with `mq queue update`. A queue that already exists ' +
        'for the branch is refused (exit 5).',
    );
  for (const s of CREATE_SETTINGS) for (const o of settingOption(s, s.create.help, s.flag)) cmd.addOption(o);
  cmd
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(
        ctx,
        'queue create',
        (f: CreateOptions): CreateOptions => ({ mode: f.mode, concurrency: f.concurrency, dryRun: f.dryRun }),
        runQueueCreate,
      ),
    );
  withPlainHelp(cmd, [{ ...QUEUE_SETTINGS_PLAIN, what: 'the new queue, one line per setting' }]);
  return withExamples(cmd, [
    'mq queue create --branch main',
    'mq queue create --branch release --mode parallel --concurrency 4',
    'mq queue create --branch main --dry-run',
  ]);
}
