/** `mq queue …`: the on-call verbs for one queue (the target branch of the repository). */
import { Command } from 'commander';
import { addSubcommands, type CommandEntry } from '../../cli/stubs.js';
import type { Context } from '../../context.js';
import { queueCreateCommand } from './create.js';
import { queueDeleteCommand } from './delete.js';
import { queueDrainCommand } from './drain.js';
import { queueEtaCheckCommand } from './eta-check.js';
import { queueGraphCommand } from './graph.js';
import { queueHistoryCommand } from './history.js';
import { queueStatsCommand } from './stats.js';
import { queuePauseCommand } from './pause.js';
import { queueResumeCommand } from './resume.js';
import { queueOrderCommand } from './order.js';
import { queueShowCommand } from './show.js';
import { queueSimulateCommand } from './simulate.js';
import { queueTestingCommand } from './testing.js';
import { queueUpdateCommand } from './update.js';
import { queueWatchCommand } from './watch.js';

/**
 * `argv`: the command line; the subcommands it does not name are stubs made from `entries` (the
 * command table's) (undefined: all built).
 */
export function queueCommand(ctx: Context, argv?: readonly string[], entries?: readonly CommandEntry[]): Command {
  const cmd = new Command('queue')
    .summary('inspect and administer the merge queue of a branch')
    .description(
      'Inspect and administer the merge queue of the target branch (--branch, MQ_BRANCH, or the default ' +
        'branch of origin) in the repository (--repo). Changes (create, update, pause, resume, drain, delete) ' +
        'accept --dry-run, which prints the request and sends nothing.',
    );
  return addSubcommands(
    cmd,
    entries,
    {
      show: () => queueShowCommand(ctx),
      order: () => queueOrderCommand(ctx),
      graph: () => queueGraphCommand(ctx),
      watch: () => queueWatchCommand(ctx),
      history: () => queueHistoryCommand(ctx),
      stats: () => queueStatsCommand(ctx),
      testing: () => queueTestingCommand(ctx),
      pause: () => queuePauseCommand(ctx),
      resume: () => queueResumeCommand(ctx),
      drain: () => queueDrainCommand(ctx),
      update: () => queueUpdateCommand(ctx),
      create: () => queueCreateCommand(ctx),
      delete: () => queueDeleteCommand(ctx),
      simulate: () => queueSimulateCommand(ctx),
      'eta-check': () => queueEtaCheckCommand(ctx),
    },
    argv,
  );
}
