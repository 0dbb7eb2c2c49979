// `mq queue eta-check`: how good mq's own ETA is on this queue (src/planner/eta-check.ts), per history length.
import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import { exitCodeForStatus, MqError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints } from '../../output/render.js';
import { MAX_WINDOW_DAYS, resolveWindow, windowFlags } from '../../stats/window.js';
import {
  ETA_CHECK_HEADERS,
  ETA_CHECK_NOTE,
  ETA_CHECK_PLAIN,
  etaCheckPlainRows,
  etaCheckRows,
  etaCheckSkipped,
} from '../../views/eta-check.js';
import { act, withExamples, withPlainHelp } from '../shared.js';

export interface EtaCheckOptions {
  since?: string;
  until?: string;
}

const DAY = 86_400_000;

export async function runQueueEtaCheck(opts: EtaCheckOptions, deps: Deps): Promise<Result> {
  const flags = windowFlags(opts.since ?? '7d', opts.until);
  const target = deps.target();
  const client = await deps.client();
  const queue = await client.getQueue(target);
  const now = client.serviceNow(() => deps.clock.now());
  const window = resolveWindow(flags.since, flags.until, now);
  const planner = await import('../../planner/index.js');
  // The fits look back up to the longest history length before each PR, within what the service keeps.
  const longest = Math.max(...planner.ETA_CHECK_HISTORY_DAYS) * DAY;
  const historyStart = Math.max(now - MAX_WINDOW_DAYS * DAY, window.since - longest);
  const { fetchWindow } = await import('../../stats/lazy.js');
  const data = await fetchWindow(client, target, { since: historyStart, until: window.until }, undefined, queue);
  if (data.noTestingHistory !== null) {
    throw new MqError(
      exitCodeForStatus(data.noTestingHistory),
      'queue eta-check',
      `the service does not offer testing history (listMergeQueueTestingResults answered HTTP ` +
        `${data.noTestingHistory}), which the estimator fits test times from`,
      { hints: ['`mq queue stats` still shows the time to merge'] },
    );
  }
  const result = planner.runEtaCheck({ window, historyStart, prs: data.prs, attempts: data.attempts, queue });
  const rows = etaCheckRows(result);
  const skipped = etaCheckSkipped(result);
  const note = [
    ETA_CHECK_NOTE,
    ...(skipped === null ? [] : [skipped]),
    ...(result.checked < result.merged
      ? [`${result.checked} of the ${result.merged} merged PRs checked, spread evenly over the window.`]
      : []),
  ];
  return {
    data: result,
    exitCode: 0,
    view: {
      table: [
        { headers: ETA_CHECK_HEADERS, rows },
        { lines: note.map((l) => own(paints.dim, l)), wrap: 0 },
      ],
      plain: [{ headers: [], rows: etaCheckPlainRows(result) }],
      markdown: [{ headers: ETA_CHECK_HEADERS, rows }, { lines: note.flatMap((l) => ['', l]) }],
    },
  };
}

export function queueEtaCheckCommand(ctx: Context): Command {
  const cmd = new Command('eta-check')
    .summary("backtest mq's merge-time estimate on the queue's history: calibration and error")
    .description(
      "Backtest mq's own ETA (the queue run forward many times on the planner's engine) on the queue's " +
        'history: for each PR merged in the window (default: the last 7 days), what the estimator would have ' +
        'said when the PR was submitted (the PRs ahead of it and the runs under test then, read from the ' +
        'history; test time, failure and flake rates fitted only from the 1, 3 or 7 days before that ' +
        'moment), against when it merged. Reported per history length: merged PRs estimated, the share of ' +
        'merges at or before the p90 and the p50 (calibration: a good p90 covers about 90%), and the median ' +
        "absolute error of the p50, as a duration and as a share of the PR's time in queue. The queue's " +
        'current settings stand for the past ones. At most 300 merged PRs are checked, spread evenly over ' +
        'the window (a line says so). JSON durations are seconds.',
    )
    .option('--since <when>', 'start of the window: a duration back (7d) or an ISO 8601 time', undefined)
    .option('--until <when>', 'end of the window: a duration back or an ISO 8601 time (default: now)')
    .action(
      act(
        ctx,
        'queue eta-check',
        (o: EtaCheckOptions): EtaCheckOptions => ({ since: o.since, until: o.until }),
        runQueueEtaCheck,
      ),
    );
  withPlainHelp(cmd, [ETA_CHECK_PLAIN]);
  return withExamples(cmd, [
    'mq queue eta-check',
    'mq queue eta-check --since 14d -o markdown >> "$GITHUB_STEP_SUMMARY"',
  ]);
}
