import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { setQueueState, stateChangeResult, STATE_CHANGE_PLAIN } from './set-state.js';

export interface PauseOptions {
  reason?: string;
  dryRun?: boolean;
}

export async function runQueuePause(opts: PauseOptions, deps: Deps): Promise<Result> {
  const { change } = await setQueueState(deps, 'pause', opts);
  return stateChangeResult(deps, change, opts.dryRun === true);
}

export function queuePauseCommand(ctx: Context): Command {
  const cmd = new Command('pause')
    .summary('pause the queue: nothing is tested or merged')
    .description(
      'Set the queue state to paused: no new tests start and nothing merges until `mq queue resume`; the ' +
        'order of the queue is kept and tests already running finish. Prints the state before and ' +
        'after.\n\nThe API has no field for a reason: --reason is not sent to the service. It is printed back ' +
        "with the change and recorded in this command's output (and --json), for the incident log.",
    )
    .option(
      '--reason <text>',
      'why the queue is paused; shown and recorded in the output only (not sent: the API has no such field)',
    )
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(
        ctx,
        'queue pause',
        (f: PauseOptions): PauseOptions => {
          if (f.reason !== undefined && f.reason.trim() === '')
            throw new UsageError('--reason: the reason cannot be empty');
          return { reason: f.reason, dryRun: f.dryRun };
        },
        runQueuePause,
      ),
    );
  withPlainHelp(cmd, [STATE_CHANGE_PLAIN]);
  return withExamples(cmd, [
    'mq queue pause --reason "main is red: INC-1234"',
    'mq queue pause --branch release --json >> incident-log.jsonl',
    'mq queue pause --dry-run',
  ]);
}
