import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withExamples } from '../shared.js';
import { printStateChange, setQueueState } from './set-state.js';

export interface PauseOptions {
  reason?: string;
  dryRun?: boolean;
}

export async function runQueuePause(ctx: Context, opts: PauseOptions): Promise<number> {
  if (opts.reason !== undefined && opts.reason.trim() === '') throw new UsageError('--reason: the reason cannot be empty');
  const { change } = await setQueueState(ctx, 'pause', opts);
  printStateChange(ctx, change, opts.dryRun === true);
  return 0;
}

export function queuePauseCommand(ctx: Context): Command {
  const cmd = new Command('pause')
    .summary('pause the queue: nothing is tested or merged')
    .description(
      'Set the queue state to paused: no new tests start and nothing merges until `mq queue resume`; the order of the queue is kept and tests already running finish. Prints the state before and after.\n\nThe API has no field for a reason: --reason is not sent to the service. It is printed back with the change and recorded in this command\'s output (and --json), for the incident log.',
    )
    .option('--reason <text>', 'why the queue is paused; shown and recorded in the output only (not sent: the API has no such field)')
    .option('--dry-run', 'print the request instead of sending it')
    .action(async (opts: PauseOptions) => {
      ctx.exitCode = await runQueuePause(ctx, opts);
    });
  return withExamples(cmd, ['mq queue pause --reason "main is red: INC-1234"', 'mq queue pause --branch release --json >> incident-log.jsonl', 'mq queue pause --dry-run']);
}
