import { Command, Option } from 'commander';
import { parseIntIn, parsePriority, priorityValue, type Priority } from '../cli/args.js';
import { formatRepo } from '../config/resolve.js';
import type { MergeQueueService } from '../api/service.js';
import type { Context, Deps, Target } from '../context.js';
import { ExitCode, MqError, UsageError, withHint } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { runOverPrs } from './bulk.js';
import { act, collect, prArguments, withExamples, withPlainHelp, prDocument } from './shared.js';
import { parseWaitSettings, requeueOf, WAIT_PLAIN, waitForPr, type WaitSettings } from './wait.js';

export interface SubmitOptions {
  /** PR numbers as given; `-` reads them from stdin. */
  prs: string[];
  priority?: Priority;
  /** --no-batch: test this PR alone. */
  noBatch?: true;
  parallel: number;
  dryRun?: boolean;
  /** --wait, with its --timeout and --interval. */
  wait?: WaitSettings;
}

export async function runSubmit(opts: SubmitOptions, deps: Deps): Promise<Result> {
  const prs = await prArguments(deps, opts.prs);
  const bulk = prs.length > 1 || opts.prs.includes('-');
  if (opts.wait && bulk) {
    throw new UsageError('--wait takes one PR', { hints: ['submit them together, then wait for each: mq wait <pr>'] });
  }
  // --timeout bounds all of submit --wait, the submit request included.
  const deadline = opts.wait ? deps.clock.now() + opts.wait.timeoutMs : undefined;
  const target = deps.target();
  // Every request of this client, the state read included, is bound to that deadline.
  const client = await deps.client({ dryRun: opts.dryRun, waiting: opts.wait !== undefined, deadline });
  // Read alongside the submits (a paused queue stays paused while they are sent): no extra round trip.
  const queue = opts.dryRun ? undefined : readQueueState(deps, client, target);
  // A 404 from submit while the queue's read is a bare 404 too: the branch has no queue.
  const branch = target.targetBranch;
  const branchFlag = deps.options.branch ? ` --branch ${branch}` : '';
  const createHint = `there is no merge queue for ${branch}: create one with \`mq queue create${branchFlag}\``;
  const noQueue = async (code: number) => code === ExitCode.notFound && (await queue)?.missing === true;
  const { results, exitCode } = await runOverPrs(
    deps,
    prs,
    { parallel: opts.parallel, action: 'submit', bulk },
    async (pr) => {
      await client.submitPullRequest(
        { ...target, pr: { number: pr }, priority: opts.priority, noBatch: opts.noBatch },
        { deadline, signal: deps.signal },
      );
      return {
        repo: formatRepo(target.repo),
        targetBranch: target.targetBranch,
        ...(opts.priority !== undefined
          ? { priority: opts.priority, priorityValue: priorityValue(opts.priority) }
          : {}),
        ...(opts.noBatch ? { noBatch: opts.noBatch } : {}),
        ...(opts.dryRun ? { dryRun: true } : {}),
      };
    },
    () => `submitted to ${target.targetBranch}`,
  ).catch(async (err) => {
    throw err instanceof MqError && (await noQueue(err.exitCode)) ? withHint(err, createHint) : err;
  });
  if (bulk && (await noQueue(exitCode))) deps.out.note(['hint: ', v(createHint)]);
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, bulk, doc: { requests: deps.dryRuns } } };
  const warn = async (stillOn = () => true) => {
    const state = results.some((r) => r.ok) ? (await queue)?.state : undefined;
    // Own keys only: the state is the service's word (`constructor` is no state).
    const text = state !== undefined && Object.hasOwn(NOT_ADMITTING, state) ? NOT_ADMITTING[state] : undefined;
    if (text && stillOn()) deps.out.note([own(paints.yellow, 'warning:'), ` ${text}`]);
  };
  if (opts.wait && !bulk && results[0]?.ok) {
    // The state read never holds the wait up: its warning comes when it lands, if the wait is still on.
    let waiting = true;
    void warn(() => waiting);
    try {
      const resubmit = { priority: opts.priority, noBatch: opts.noBatch };
      return await waitForPr(deps, client, target, prs[0] as number, opts.wait, {
        submitted: true,
        deadline,
        resubmit,
      });
    } finally {
      waiting = false;
    }
  }
  if (!bulk)
    deps.out.note([
      own(paints.green, '✓'),
      ` submitted PR #${prs[0]} to the `,
      v(target.targetBranch),
      ' queue of ',
      v(formatRepo(target.repo)),
    ]);
  await warn();
  return {
    data: prDocument(results, { action: 'submit', repo: formatRepo(target.repo), targetBranch: target.targetBranch }),
    exitCode,
  };
}

/** What a queue in each state does with a PR just submitted to it (running: nothing to say). */
const NOT_ADMITTING: Record<string, string> = {
  paused: 'queued, but the queue is paused: it will not start testing until it is resumed (mq queue resume)',
  draining: 'queued, but the queue is draining: it will not start testing',
  switching_modes: 'queued, but the queue is switching modes: it will not start testing until the switch is done',
};

/** Best effort: the queue's state, or that it does not exist (404 without hint); never rejects. */
async function readQueueState(
  deps: Deps,
  client: MergeQueueService,
  target: Target,
): Promise<{ state?: string; missing?: true }> {
  try {
    return { state: await client.getQueueState(target, { signal: deps.signal }) };
  } catch (err) {
    const bare404 = err instanceof MqError && err.exitCode === ExitCode.notFound && err.hints.length === 0;
    return bare404 ? { missing: true } : {};
  }
}

export function parallelOption(): Option {
  return new Option('--parallel <n>', 'requests in flight at once for several PRs')
    .default(8)
    .argParser((val) => parseIntIn(val, '--parallel', 1, 64));
}

interface SubmitFlags {
  priority?: Priority;
  batch?: boolean;
  parallel: number;
  dryRun?: boolean;
  wait?: boolean;
  interval?: string;
  requeue?: string;
  flakyCheck?: string[];
}

export function submitCommand(ctx: Context): Command {
  const cmd = new Command('submit')
    .summary('submit PRs to the merge queue')
    .description(
      'Submit one or more pull requests to the merge queue of the target branch. Resubmitting a queued PR ' +
        'updates its priority.',
    )
    .argument('[pr...]', "PR numbers; `-` reads them from stdin (in GitHub Actions: defaults to the run's PR)")
    .addOption(
      new Option('-p, --priority <priority>', 'urgent, high, medium, low, or 0-255 (0 is the most urgent)').argParser(
        parsePriority,
      ),
    )
    .option('--no-batch', 'test this PR alone, never in a batch')
    .addOption(parallelOption())
    .option('--dry-run', 'print the requests instead of sending them')
    .option(
      '--wait',
      'then wait until the PR merges or leaves the queue (one PR; --timeout bounds the wait, default 2h)',
    )
    .option('--interval <duration>', 'with --wait: time between polls (default 15s)')
    .option(
      '--requeue <n>',
      'with --wait: resubmit it up to N times (0-10, 0: off) after a flaky or infrastructure failure',
    )
    .option('--flaky-check <name>', 'with --requeue: a check known to be flaky (repeatable)', collect)
    .action(
      act(
        ctx,
        'submit',
        (prs: string[], f: SubmitFlags): SubmitOptions => {
          if (!f.wait && f.interval !== undefined) throw new UsageError('--interval only applies with --wait');
          if (!f.wait && (f.requeue !== undefined || f.flakyCheck))
            throw new UsageError(
              `${f.requeue !== undefined ? '--requeue' : '--flaky-check'} only applies with --wait`,
              {
                hints: ['mq submit "$PR" --wait --requeue 2'],
              },
            );
          return {
            prs,
            priority: f.priority,
            ...(f.batch === false ? { noBatch: true as const } : {}),
            parallel: f.parallel,
            dryRun: f.dryRun,
            ...(f.wait
              ? { wait: { ...parseWaitSettings(ctx.options.timeout, f.interval ?? '15s'), ...requeueOf(f) } }
              : {}),
          };
        },
        runSubmit,
      ),
    );
  withPlainHelp(cmd, [
    plainNone('nothing on stdout: one ✓ or ✗ line per PR on stderr, and the exit code'),
    { ...WAIT_PLAIN, what: 'with --wait, one line when the wait ends' },
  ]);
  return withExamples(cmd, [
    'mq submit 42',
    'mq submit 42 --priority high --no-batch',
    'mq submit "$PR" --wait --timeout 2h --json',
    'mq submit "$PR" --wait --requeue 2',
    'gh pr list --label ready --json number -q ".[].number" | mq submit -',
  ]);
}
