import { Command } from 'commander';
import type { MergeQueueClient } from '../../api/client.js';
import type { QueueEntry } from '../../api/schemas.js';
import type { Context, Target } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { json } from '../../output/render.js';
import { formatDuration } from '../../util/duration.js';
import { ACTIVE_STATES, countsText } from '../../views/queue.js';
import { withExamples } from '../shared.js';
import { poll } from '../../util/poll.js';
import { parseWaitOptions, type WaitSettings } from '../wait.js';
import { printStateChange, setQueueState } from './set-state.js';

export interface DrainOptions {
  wait?: boolean;
  interval?: string;
  dryRun?: boolean;
}

export interface DrainWait {
  outcome: 'drained' | 'timeout';
  waitedMs: number;
  state: string | null;
  /** PRs still pending, testing or waiting to merge when the wait ended. */
  remaining: QueueEntry[];
}

const isActive = (e: QueueEntry) => (ACTIVE_STATES as readonly string[]).includes(e.state ?? '');

/** Polls the queue until no PR is pending, testing or waiting to merge, or the timeout passes. */
export async function waitForDrain(ctx: Context, client: MergeQueueClient, target: Target, settings: WaitSettings): Promise<DrainWait> {
  const started = ctx.now();
  const deadline = started + settings.timeoutMs;
  const style = ctx.styleErr;
  let lastProgress = '';
  let lastState: string | null | undefined;
  let remaining: QueueEntry[] = [];
  let state: string | null = null;
  const outcome = await poll(ctx, {
    intervalMs: settings.intervalMs,
    deadline,
    what: 'reading the queue',
    read: () => client.getQueue(target, { deadline }),
    onValue: (q) => {
      state = q.state ?? null;
      remaining = (q.enqueuedPullRequests ?? []).filter(isActive);
      if (lastState !== undefined && state !== lastState && state !== 'draining') {
        ctx.io.err(`${style.yellow('!')} the queue is now ${state ?? 'unknown'}, not draining; PRs may keep entering\n`);
      }
      lastState = state;
      const elapsed = formatDuration(ctx.now() - started);
      const progress = remaining.length === 0 ? 'empty' : countsText(remaining);
      if (progress !== lastProgress) {
        ctx.io.err(`draining ${target.targetBranch}: ${remaining.length === 0 ? 'no PR in flight' : progress} ${style.dim(`(${elapsed})`)}\n`);
        lastProgress = progress;
      }
      return remaining.length === 0;
    },
  });
  return { outcome: outcome === 'done' ? 'drained' : 'timeout', waitedMs: ctx.now() - started, state, remaining };
}

export async function runQueueDrain(ctx: Context, opts: DrainOptions): Promise<number> {
  if (opts.wait && opts.dryRun) throw new UsageError('--wait cannot be used with --dry-run: a dry run changes nothing to wait for');
  if (!opts.wait && opts.interval !== undefined) throw new UsageError('--interval only applies with --wait');
  // Before the client exists: while waiting, --timeout bounds the wait, not each request.
  const settings = opts.wait ? parseWaitOptions(ctx, { interval: opts.interval ?? '10s' }) : undefined;
  const { change, client, target } = await setQueueState(ctx, 'drain', opts);
  if (!settings) {
    printStateChange(ctx, change, opts.dryRun === true);
    return 0;
  }
  const wantsJson = ctx.format() === 'json';
  if (!wantsJson) printStateChange(ctx, change, false);
  const result = await waitForDrain(ctx, client, target, settings);
  const style = ctx.styleErr;
  if (result.outcome === 'drained') {
    ctx.io.err(`${style.green('✓')} drained ${target.targetBranch}: no PR is pending, testing or waiting to merge (${formatDuration(result.waitedMs)})\n`);
    ctx.io.err('hint: the queue stays draining: `mq queue resume` to reopen it, or `mq queue delete` to remove it\n');
  } else {
    const list = result.remaining.map((e) => `#${e.prNumber}`).join(', ');
    ctx.io.err(`${style.red('✗')} still ${countsText(result.remaining)} after ${formatDuration(result.waitedMs)} (--timeout)${list ? `: ${list}` : ''}\n`);
  }
  if (wantsJson) ctx.io.out(json({ ...change, wait: result }));
  return result.outcome === 'drained' ? 0 : ExitCode.timeout;
}

export function queueDrainCommand(ctx: Context): Command {
  const cmd = new Command('drain')
    .summary('drain the queue: finish the PRs in it, admit no new ones')
    .description(
      'Set the queue state to draining: PRs already in the queue are tested and merged, no new PRs enter. Prints the state before and after. With --wait, then polls until no PR is pending, testing or waiting to merge, printing progress to stderr; --timeout bounds the wait (default 2h, exit 8 when it runs out). The queue stays draining afterwards.',
    )
    .option('--wait', 'then wait until no PR is pending, testing or waiting to merge')
    .option('--interval <duration>', 'with --wait: time between polls (default 10s)')
    .option('--dry-run', 'print the request instead of sending it')
    .action(async (opts: DrainOptions) => {
      ctx.exitCode = await runQueueDrain(ctx, opts);
    });
  return withExamples(cmd, ['mq queue drain', 'mq queue drain --wait --timeout 1h', 'mq queue drain --wait --json && mq queue delete --yes'], 'Exit codes: 0 drained (or state set) · 8 PRs still in flight at --timeout · 130 interrupted.');
}
