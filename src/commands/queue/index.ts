/** `mq queue …`: the on-call verbs for one queue (the target branch of the repository). */
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { queueCreateCommand } from './create.js';
import { queueDeleteCommand } from './delete.js';
import { queueDrainCommand } from './drain.js';
import { queueHistoryCommand } from './history.js';
import { queueStatsCommand } from './stats.js';
import { queuePauseCommand } from './pause.js';
import { queueResumeCommand } from './resume.js';
import { queueShowCommand } from './show.js';
import { queueSimulateCommand } from './simulate.js';
import { queueTestingCommand } from './testing.js';
import { queueUpdateCommand } from './update.js';
import { queueWatchCommand } from './watch.js';

export function queueCommand(ctx: Context): Command {
  const cmd = new Command('queue')
    .summary('inspect and administer the merge queue of a branch')
    .description(
      'Inspect and administer the merge queue of the target branch (--branch, MQ_BRANCH, or the default branch of origin) in the repository (--repo). Changes (create, update, pause, resume, drain, delete) accept --dry-run, which prints the request and sends nothing.',
    );
  for (const sub of [
    queueShowCommand(ctx),
    queueWatchCommand(ctx),
    queueHistoryCommand(ctx),
    queueStatsCommand(ctx),
    queueTestingCommand(ctx),
    queuePauseCommand(ctx),
    queueResumeCommand(ctx),
    queueDrainCommand(ctx),
    queueUpdateCommand(ctx),
    queueCreateCommand(ctx),
    queueDeleteCommand(ctx),
    queueSimulateCommand(ctx),
  ]) {
    cmd.addCommand(sub);
  }
  return cmd;
}
