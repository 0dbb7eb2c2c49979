import { Command } from 'commander';
import type { MergeQueueService } from '../../api/service.js';
import type { QueueEntry } from '../../api/schemas.js';
import type { Context, Deps, Target } from '../../context.js';
import { ExitCode, MqError, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { formatDuration } from '../../util/duration.js';
import { poll } from '../../util/poll.js';
import { ACTIVE_STATES, countsText } from '../../views/queue.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { parseWaitSettings, type WaitSettings } from '../wait.js';
import {
  setQueueState,
  stateChangeNotes,
  stateChangeResult,
  STATE_CHANGE_PLAIN,
  stateChangeView,
} from './set-state.js';

export interface DrainOptions {
  /** --wait, with its --timeout and --interval. */
  wait?: WaitSettings;
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
export async function waitForDrain(
  deps: Deps,
  client: MergeQueueService,
  target: Target,
  settings: WaitSettings,
  deadline?: number,
): Promise<DrainWait> {
  const started = deps.clock.now();
  let lastProgress = '';
  let lastState: string | null | undefined;
  let remaining: QueueEntry[] = [];
  let state: string | null = null;
  const outcome = await poll(deps, {
    intervalMs: settings.intervalMs,
    deadline: deadline ?? started + settings.timeoutMs,
    what: 'reading the queue',
    read: (call) => client.getQueue(target, call),
    onBlip: (message) => deps.out.note([own(paints.yellow, '!'), ` ${message}`]),
    onValue: (q) => {
      state = q.state ?? null;
      remaining = (q.enqueuedPullRequests ?? []).filter(isActive);
      if (lastState !== undefined && state !== lastState && state !== 'draining') {
        deps.out.note([
          own(paints.yellow, '!'),
          ' the queue is now ',
          v(state ?? 'unknown'),
          ', not draining; PRs may keep entering',
        ]);
      }
      lastState = state;
      const elapsed = formatDuration(deps.clock.now() - started);
      const progress = remaining.length === 0 ? 'empty' : countsText(remaining);
      if (progress !== lastProgress) {
        deps.out.note([
          `draining `,
          v(target.targetBranch),
          ': ',
          v(remaining.length === 0 ? 'no PR in flight' : progress),
          ' ',
          own(paints.dim, `(${elapsed})`),
        ]);
        lastProgress = progress;
      }
      return remaining.length === 0;
    },
  });
  return {
    outcome: outcome === 'done' ? 'drained' : 'timeout',
    waitedMs: deps.clock.now() - started,
    state,
    remaining,
  };
}

export async function runQueueDrain(opts: DrainOptions, deps: Deps): Promise<Result> {
  const settings = opts.wait;
  // --timeout bounds all of drain --wait, the state change included.
  const deadline = settings ? deps.clock.now() + settings.timeoutMs : undefined;
  const waiting = settings !== undefined;
  const { change, client, target } = await setQueueState(deps, 'drain', { dryRun: opts.dryRun, waiting, deadline });
  if (!settings) return stateChangeResult(deps, change, opts.dryRun === true);
  if (deps.out.format() !== 'json') stateChangeNotes(deps, change);
  let result: DrainWait;
  try {
    result = await waitForDrain(deps, client, target, settings, deadline);
  } catch (err) {
    // Ctrl-C stops the wait, not the drain: say so, and how to undo it or wait again.
    if (err instanceof MqError && err.exitCode === ExitCode.interrupted) {
      throw new MqError(
        ExitCode.interrupted,
        'interrupted',
        'stopped waiting; the queue stays draining (PRs in it are still tested and merged, no new PRs enter)',
        {
          hints: [
            `reopen it with \`mq queue resume --branch ${target.targetBranch}\`, ` +
              `or wait again with \`mq queue drain --wait --branch ${target.targetBranch}\``,
          ],
        },
      );
    }
    throw err;
  }
  if (result.outcome === 'drained') {
    deps.out.note([
      own(paints.green, '✓'),
      ' drained ',
      v(target.targetBranch),
      `: no PR is pending, testing or waiting to merge (${formatDuration(result.waitedMs)})`,
    ]);
    deps.out.note('hint: the queue stays draining: `mq queue resume` to reopen it, or `mq queue delete` to remove it');
  } else {
    const list = result.remaining.map((e) => `#${e.prNumber}`).join(', ');
    deps.out.note([
      own(paints.red, '✗'),
      ' still ',
      v(countsText(result.remaining)),
      ` after ${formatDuration(result.waitedMs)} (--timeout)`,
      ...(list ? [': ', v(list)] : []),
    ]);
  }
  return {
    data: { ...change, wait: result },
    view: stateChangeView(change),
    exitCode: result.outcome === 'drained' ? 0 : ExitCode.timeout,
  };
}

interface DrainFlags {
  wait?: boolean;
  interval?: string;
  dryRun?: boolean;
}

export function queueDrainCommand(ctx: Context): Command {
  const cmd = new Command('drain')
    .summary('drain the queue: finish the PRs in it, admit no new ones')
    .description(
      'Set the queue state to draining: PRs already in the queue are tested and merged, no new PRs enter. ' +
        'Prints the state before and after. With --wait, then polls until no PR is pending, testing or ' +
        'waiting to merge, printing progress to stderr; --timeout bounds the wait (default 2h, exit 8 when it ' +
        'runs out). The queue stays draining afterwards.',
    )
    .option('--wait', 'then wait until no PR is pending, testing or waiting to merge')
    .option('--interval <duration>', 'with --wait: time between polls (default 10s)')
    .option('--dry-run', 'print the request instead of sending it')
    .action(
      act(
        ctx,
        'queue drain',
        (f: DrainFlags): DrainOptions => {
          if (f.wait && f.dryRun)
            throw new UsageError('--wait cannot be used with --dry-run: a dry run changes nothing to wait for');
          if (!f.wait && f.interval !== undefined) throw new UsageError('--interval only applies with --wait');
          return {
            dryRun: f.dryRun,
            ...(f.wait ? { wait: parseWaitSettings(ctx.options.timeout, f.interval ?? '10s') } : {}),
          };
        },
        runQueueDrain,
      ),
    );
  withPlainHelp(cmd, [STATE_CHANGE_PLAIN]);
  return withExamples(
    cmd,
    ['mq queue drain', 'mq queue drain --wait --timeout 1h', 'mq queue drain --wait --json && mq queue delete --yes'],
    'Exit codes: 0 drained (or state set) · 8 PRs still in flight at --timeout · 130 interrupted.',
  );
}
