import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withExamples } from '../shared.js';
import { printStateChange, setQueueState } from './set-state.js';

export async function runQueueResume(ctx: Context, opts: { dryRun?: boolean }): Promise<number> {
  const { change } = await setQueueState(ctx, 'resume', opts);
  printStateChange(ctx, change, opts.dryRun === true);
  return 0;
}

export function queueResumeCommand(ctx: Context): Command {
  const cmd = new Command('resume')
    .summary('resume a paused or draining queue')
    .description('Set the queue state back to running: waiting PRs are admitted and tested in priority order. Resuming a running queue is harmless. Prints the state before and after.')
    .option('--dry-run', 'print the request instead of sending it')
    .action(async (opts: { dryRun?: boolean }) => {
      ctx.exitCode = await runQueueResume(ctx, opts);
    });
  return withExamples(cmd, ['mq queue resume', 'mq queue resume --branch release --json', 'mq queue resume --dry-run']);
}
