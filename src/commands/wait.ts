// `mq wait`: poll a PR until merged (0), left the queue (9) or --timeout (8); transient poll failures
// are retried, 401/404 keep their codes, never reaching the service is 6. Transitions go to stderr.
import { Command } from 'commander';
import type { MergeQueueService } from '../api/service.js';
import type { SubmittedPullRequest } from '../api/schemas.js';
import { checkedTimeout, MAX_TIMEOUT_MS, type Context, type Deps, type Target } from '../context.js';
import { ExitCode, MqError, UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainColumns } from '../output/plain.js';
import { own, paints, v, type Line } from '../output/render.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { poll } from '../util/poll.js';
import type { FailureDecision } from '../stats/failure-kind.js';
import { etaInterval } from '../views/eta.js';
import { pullRequestFields } from '../views/pull-request.js';
import { parseRequeue, requeueAfterFailure, type Requeue, type RequeueSettings, type Resubmit } from './requeue.js';
import { etaReader, type WaitEta } from './wait-eta.js';
import { act, collect, onePr, withExamples, withPlainHelp, prDocument } from './shared.js';

export interface WaitSettings {
  timeoutMs: number;
  intervalMs: number;
  /** --requeue N (with --flaky-check): resubmit after a flake or an infrastructure failure. */
  requeue?: RequeueSettings;
  /** The ETA on the progress lines: the service's estimate where served, or mq's simulation (--eta). */
  eta?: WaitEta;
}

export const DEFAULT_WAIT_TIMEOUT = '2h';

/** --timeout (the whole wait) and --interval, checked; wiring only. */
export function parseWaitSettings(
  timeout: string | undefined,
  interval: string,
): Pick<WaitSettings, 'timeoutMs' | 'intervalMs'> {
  const timeoutMs = checkedTimeout(parseDuration(timeout ?? DEFAULT_WAIT_TIMEOUT, '--timeout'), '--timeout');
  const intervalMs = parseDuration(interval, '--interval');
  if (intervalMs < 100) throw new UsageError('--interval: must be at least 100ms');
  if (intervalMs > MAX_TIMEOUT_MS) throw new UsageError('--interval: must be at most 24 days');
  return { timeoutMs, intervalMs };
}

export interface Transition {
  from: string | null;
  to: string;
  at: string;
  /** Time spent in `from`, as far as this wait saw it. */
  afterMs: number | null;
}

type Outcome = 'merged' | 'failed' | 'cancelled' | 'left_queue' | 'timeout';

const ENDS = new Set(['merged', 'failed', 'cancelled']);
const EXIT_FOR: Record<Outcome, number> = { merged: 0, failed: 9, cancelled: 9, left_queue: 9, timeout: 8 };

function stateTime(pr: SubmittedPullRequest, fallback: number): number {
  const t = pr.stateChangedAt ? Date.parse(pr.stateChangedAt) : NaN;
  return Number.isNaN(t) ? fallback : t;
}

/** A poll answer mq cannot follow: no state, or the record of another PR. */
function checkRecord(record: SubmittedPullRequest, pr: number): string {
  const what = `get PR #${pr}`;
  const hints = ['check that the API URL points at the merge queue service; rerun with --debug to see the response'];
  if (typeof record.prNumber === 'number' && record.prNumber !== pr) {
    throw new MqError(
      ExitCode.unexpected,
      what,
      `the service sent something unexpected: the record of PR #${record.prNumber}`,
      { hints },
    );
  }
  if (!record.state)
    throw new MqError(ExitCode.unexpected, what, 'the service sent something unexpected: a record without a state', {
      hints,
    });
  return record.state;
}

export interface WaitInfo {
  submitted?: boolean;
  /** Epoch ms the wait ends at (submit --wait computes it before submitting). */
  deadline?: number;
  /** How a requeue resubmits (submit --wait: its own flags). */
  resubmit?: Resubmit;
}

export async function waitForPr(
  deps: Deps,
  client: MergeQueueService,
  target: Target,
  pr: number,
  settings: WaitSettings,
  info: WaitInfo = {},
): Promise<Result> {
  const started = deps.clock.now();
  const deadline = info.deadline ?? started + settings.timeoutMs;
  const transitions: Transition[] = [];
  let last: SubmittedPullRequest | undefined;
  let lastChange = started;
  // Set inside the poll callback; 'timeout' unless a read ended the wait first.
  let outcome = 'timeout' as Outcome;
  let reason = '';
  const requeues: Requeue[] = [];
  let failure: FailureDecision | null = null;
  // The failed record a requeue answered: read again before the resubmit shows, it is not the end.
  let answered: string | null = null;
  let answeredOne = false;
  const eta = settings.eta ? etaReader(deps, client, target, pr, settings.eta) : null;

  await poll(deps, {
    intervalMs: settings.intervalMs,
    deadline,
    jitter: true,
    what: `PR #${pr}: poll`,
    read: (call) => client.getSubmittedPullRequest({ ...target, pr: { number: pr } }, call),
    onBlip: (message) => deps.out.note([own(paints.yellow, '!'), ` ${message}`]),
    onValue: async (record) => {
      const state = checkRecord(record, pr);
      const interval = eta && !ENDS.has(state) ? await eta() : null;
      if (state !== last?.state) {
        const at = stateTime(
          record,
          client.serviceNow(() => deps.clock.now()),
        );
        const afterMs = last ? Math.max(0, at - lastChange) : null;
        transitions.push({ from: last?.state ?? null, to: state, at: new Date(at).toISOString(), afterMs });
        const line: Line = [`PR #${pr}: `];
        if (last) line.push(v(last.state ?? ''), ' → ');
        line.push(v(state, paints.bold));
        if (afterMs !== null) line.push(own(paints.dim, ` (after ${formatDuration(afterMs)} in ${last?.state})`));
        if (interval)
          line.push(
            own(
              paints.dim,
              ` · ETA ${etaInterval(
                interval,
                client.serviceNow(() => deps.clock.now()),
              )}`,
            ),
          );
        deps.out.note(line);
        lastChange = at;
      }
      last = record;
      if (state === 'failed' && settings.requeue) {
        if (answeredOne && (record.stateChangedAt ?? null) === answered) return false;
        const step = await requeueAfterFailure(
          client,
          target,
          pr,
          settings.requeue,
          requeues.length,
          info.resubmit,
          () => client.serviceNow(() => deps.clock.now()),
          { deadline, signal: deps.signal },
        );
        if (step.action === 'requeued') requeues.push(step.requeue);
        if (step.action !== 'live') failure = step.decision;
        const mark = step.action === 'requeued' ? own(paints.yellow, '↻') : own(paints.dim, '·');
        deps.out.note([mark, ` PR #${pr} `, v(step.note)]);
        if (step.action !== 'stop') {
          answered = record.stateChangedAt ?? null;
          answeredOne = true;
          return false;
        }
      }
      if (state === 'merged' || state === 'failed' || state === 'cancelled') {
        outcome = state;
        return true;
      }
      if (record.isCurrentlySubmittedToQueue === false) {
        outcome = 'left_queue';
        reason = `the service says PR #${pr} is no longer in the queue, though its state is ${state}`;
        return true;
      }
      return false;
    },
  });

  const exitCode = EXIT_FOR[outcome];
  const waitedMs = deps.clock.now() - started;
  const finalState = last?.state ?? null;
  const summary =
    outcome === 'merged'
      ? `PR #${pr} merged`
      : outcome === 'timeout'
        ? `PR #${pr} still ${finalState ?? 'unknown'} after ${formatDuration(waitedMs)} (--timeout)`
        : outcome === 'left_queue'
          ? reason
          : `PR #${pr} ${outcome}`;
  deps.out.note([exitCode === 0 ? own(paints.green, '✓') : own(paints.red, '✗'), ' ', v(summary)]);

  const doc = prDocument(
    [
      {
        pr,
        ok: exitCode === 0,
        outcome,
        exitCode,
        state: finalState,
        submitted: info.submitted ?? false,
        waitedMs,
        transitions,
        pullRequest: last ?? null,
        ...(settings.requeue ? { requeues, failure } : {}),
      },
    ],
    {
      action: 'wait',
    },
  );
  const title = `PR #${pr}: ${outcome}`;
  return {
    data: doc,
    exitCode,
    view: {
      markdown: [
        last
          ? {
              fields: pullRequestFields(
                last,
                client.serviceNow(() => deps.clock.now()),
              ),
              title,
            }
          : { lines: [`### ${title}`] },
        { lines: [''] },
        {
          headers: ['At', 'From', 'To', 'After'],
          rows: transitions.map((t) => [
            t.at,
            t.from ?? '—',
            t.to,
            t.afterMs === null ? '' : formatDuration(t.afterMs),
          ]),
        },
      ],
      plain: [
        {
          headers: [],
          rows: [
            WAIT_PLAIN.row({
              pr: String(pr),
              outcome,
              state: finalState ?? '',
              waited_seconds: String(Math.round(waitedMs / 1000)),
            }),
          ],
        },
      ],
    },
  };
}

/** `mq wait` (and `mq submit --wait`) piped: one line when the wait ends. */
export const WAIT_PLAIN = plainColumns('one line when the wait ends', ['pr', 'outcome', 'state', 'waited_seconds']);

export interface WaitOptions extends Omit<WaitSettings, 'eta'> {
  pr: number;
  /** --eta: mq's simulation when the service serves no estimate. */
  eta?: boolean;
}

export async function runWait(opts: WaitOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const deadline = deps.clock.now() + opts.timeoutMs;
  const client = await deps.client({ waiting: true, deadline });
  const { eta, ...settings } = opts;
  return waitForPr(deps, client, target, opts.pr, { ...settings, eta: eta ? 'simulation' : 'service' }, { deadline });
}

interface WaitFlags {
  interval: string;
  requeue?: string;
  flakyCheck?: string[];
  eta?: boolean;
}

/** `{ requeue }` when --requeue N is on (N > 0); wiring only. */
export function requeueOf(flags: { requeue?: string; flakyCheck?: string[] }): { requeue?: RequeueSettings } {
  const requeue = parseRequeue(flags.requeue, flags.flakyCheck);
  return requeue ? { requeue } : {};
}

export function waitCommand(ctx: Context): Command {
  const cmd = new Command('wait')
    .summary('wait until a PR merges or leaves the queue')
    .description(
      'Poll a submitted PR until it merges (exit 0), fails or is cancelled (exit 9), or --timeout passes ' +
        '(exit 8, default 2h). State changes are printed to stderr as they happen, with the ETA when the service ' +
        "serves an estimate (read every 4th poll) or, with --eta, from mq's simulation (every 5 minutes at most).",
    )
    .argument('[pr]', 'PR number (in GitHub Actions it defaults to the PR of the workflow run)')
    .option('--interval <duration>', 'time between polls (jittered; slower after failures)', '15s')
    .option('--requeue <n>', 'resubmit it up to N times (0-10, 0: off) after a flaky or infrastructure failure')
    .option('--flaky-check <name>', 'with --requeue: a check known to be flaky (repeatable)', collect)
    .option('--eta', "ETA on the progress lines from mq's simulation where the service serves none")
    .action(
      act(
        ctx,
        'wait',
        (pr: string | undefined, flags: WaitFlags): WaitOptions => ({
          pr: onePr(ctx.env, pr),
          ...parseWaitSettings(ctx.options.timeout, flags.interval),
          ...requeueOf(flags),
          ...(flags.eta ? { eta: true } : {}),
        }),
        runWait,
      ),
    );
  withPlainHelp(cmd, [WAIT_PLAIN], '  outcome is merged, failed, cancelled, left_queue or timeout.');
  return withExamples(
    cmd,
    [
      'mq wait 42',
      'mq wait 42 --timeout 30m --interval 10s',
      'mq wait "$PR" --json > result.json',
      'mq wait 42 --requeue 2 --flaky-check e2e',
    ],
    'Exit codes: 0 merged · 8 timed out · 9 failed, cancelled or removed.\n\n' +
      'With --requeue N, a failure is classified from its timeline and checks: a flake (the failing checks\n' +
      'passed in another run of the same commit, or are named by --flaky-check) or an infrastructure failure\n' +
      '(a timeout, a GitHub API error) is resubmitted once the queue no longer holds the PR, at most N times\n' +
      'within --timeout; a failure of its own (or one in doubt) ends the wait with exit 9.',
  );
}
