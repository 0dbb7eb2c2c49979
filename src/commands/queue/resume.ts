import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import type { Result } from '../../output/present.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { setQueueState, stateChangeResult, STATE_CHANGE_PLAIN } from './set-state.js';

export interface ResumeOptions {
  dryRun?: boolean;
}

export async function runQueueResume(opts: ResumeOptions, deps: Deps): Promise<Result> {
  const { change } = await setQueueState(deps, 'resume', opts);
  return stateChangeResult(deps, change, opts.dryRun === true);
}

export function queueResumeCommand(ctx: Context): Command {
  const cmd = new Command('resume')
    .summary('resume a paused or draining queue')
    .description(
      'Set the queue state back to running: waiting PRs are admitted and tested in priority order. ' +
        'Resuming a running queue is harmless. Prints the state before and after.',
    )
    .option('--dry-run', 'print the request instead of sending it')
    .action(act(ctx, 'queue resume', (f: ResumeOptions): ResumeOptions => ({ dryRun: f.dryRun }), runQueueResume));
  withPlainHelp(cmd, [STATE_CHANGE_PLAIN]);
  return withExamples(cmd, ['mq queue resume', 'mq queue resume --branch release --json', 'mq queue resume --dry-run']);
}
