import { Command } from 'commander';
import type { Queue } from '../../api/schemas.js';
import { formatRepo } from '../../config/resolve.js';
import type { Context, Deps, Target } from '../../context.js';
import type { Block, Result, View } from '../../output/present.js';
import { own, paints, v, type Line } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import {
  bannerText,
  countsText,
  PR_FIT,
  PR_HEADERS,
  QUEUE_PR_PLAIN,
  QUEUE_SETTINGS_PLAIN,
  queueBanner,
  queueRows,
  queueSettingFields,
  queueSummaryFields,
} from '../../views/queue.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { queueName } from './common.js';

export interface ShowOptions {
  settings?: boolean;
}

/**
 * The queue, in every format. On a terminal the banner of a queue that is not running leads;
 * piped, stdout carries only rows (the behaviour puts the summary and banner on stderr).
 */
export function queueView(queue: Queue, target: Target, now: number, opts: ShowOptions = {}): View {
  const entries = queue.enqueuedPullRequests ?? [];
  const settings = queueSettingFields(queue);
  const summary = queueSummaryFields(queue, formatRepo(target.repo));
  const plain: Block[] = opts.settings ? [{ fields: settings }] : [{ headers: PR_HEADERS, rows: queueRows(entries, now, false) }];

  const mdBanner = bannerText(queue.state);
  const markdown: Block[] = [
    ...(mdBanner ? [{ lines: [`> **⚠ ${mdBanner}**`, ''] }] : []),
    { fields: opts.settings ? settings : summary, title: `Merge queue ${target.targetBranch}` },
    ...(opts.settings || entries.length === 0 ? [] : [{ lines: [''] }, { headers: PR_HEADERS, rows: queueRows(entries, now, true), fit: PR_FIT }]),
  ];

  const banner = queueBanner(queue.state);
  const head: Block[] = banner ? [{ lines: [banner, ''] }] : [];
  const table: Block[] = opts.settings
    ? [...head, { fields: settings }]
    : [
        ...head,
        { fields: summary },
        { lines: [''] },
        entries.length === 0 ? { lines: [own(paints.dim, 'No PRs in the queue.')] } : { headers: PR_HEADERS, rows: queueRows(entries, now, true), fit: PR_FIT },
      ];
  return { table, plain, markdown };
}

export async function runQueueShow(opts: ShowOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const queue = await client.getQueue(target);
  // Piped, stdout carries only rows: the state and the banner go to stderr.
  const banner = queueBanner(queue.state);
  const bannerLines: Line[] = banner ? [banner] : [];
  const summary: Line[] = opts.settings
    ? []
    : [['queue ', v(queueName(target)), ': ', v(queue.state ?? 'unknown', stateColor), ' · ', v(countsText(queue.enqueuedPullRequests ?? []))]];
  const { enqueuedPullRequests, ...settings } = queue;
  const data = opts.settings ? settings : { ...queue, enqueuedPullRequests: enqueuedPullRequests ?? [] };
  return {
    data,
    view: queueView(
      queue,
      target,
      client.serviceNow(() => deps.clock.now()),
      opts,
    ),
    notes: { json: bannerLines, plain: [...bannerLines, ...summary], raw: [...bannerLines, ...summary] },
    exitCode: 0,
  };
}

export function queueShowCommand(ctx: Context): Command {
  const cmd = new Command('show')
    .summary('show the queue: state, settings and enqueued PRs')
    .description(
      [
        'Show the merge queue of the target branch: its state (a paused, draining or switching queue is flagged with a banner), its key settings, and the enqueued PRs in queue order with their state, time in that state and priority.',
        '',
        'Piped (or -o plain), stdout carries one line per PR and nothing else (columns below); the queue state and the banner go to stderr. With --settings, stdout carries one `key<TAB>value` line per setting instead (keys are the flags of `mq queue update`, plus state and enqueued). --json prints the whole record the service returned.',
      ].join('\n'),
    )
    .option('--settings', 'print the queue state and settings only, one key per line when piped')
    .action(act(ctx, 'queue show', (f: ShowOptions): ShowOptions => ({ settings: f.settings }), runQueueShow));
  withPlainHelp(cmd, [QUEUE_PR_PLAIN, { ...QUEUE_SETTINGS_PLAIN, what: 'with --settings, one line per setting' }]);
  return withExamples(cmd, [
    'mq queue show',
    "mq queue show | awk -F'\\t' '$3 == \"testing\" { print $2 }'",
    "mq queue show --settings | awk -F'\\t' '$1 == \"state\" { print $2 }'",
    'mq queue show --branch release --json | jq ".enqueuedPullRequests | length"',
  ]);
}
