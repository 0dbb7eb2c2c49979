import { Command } from 'commander';
import type { MergeQueueService } from '../../api/service.js';
import type { Queue, QueueEntry } from '../../api/schemas.js';
import { formatRepo } from '../../config/resolve.js';
import type { Context, Deps, Target } from '../../context.js';
import { MqError } from '../../errors.js';
import type { Block, Result, View } from '../../output/present.js';
import { own, paints, v, type Line, type Row } from '../../output/render.js';
import { plainBool, plainNumber } from '../../output/plain.js';
import { stateColor } from '../../output/style.js';
import { formatDuration } from '../../util/duration.js';
import {
  BANNER_WRAP,
  bannerText,
  countsText,
  NOT_READY_HEADERS,
  notReadyReasons,
  PR_FIT,
  PR_HEADERS,
  QUEUE_PR_PLAIN,
  QUEUE_SETTINGS_PLAIN,
  queueBanner,
  queueRows,
  queueSettingFields,
  queueSummaryFields,
  type ReadinessLike,
} from '../../views/queue.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { queueName } from './common.js';

export interface ShowOptions {
  settings?: boolean;
}

/** A PR submitted to the queue that has not entered it yet, with what it waits for. */
export type NotReadyPr = QueueEntry & { readiness?: ReadinessLike | null; waitingFor: string[] };

/** The most not-ready PRs read (pages of 100). */
const NOT_READY_PAGES = 10;
const LOOKUP_CHUNK = 50;

/** Not-ready PRs (absent from `enqueuedPullRequests`): listed, then their readiness read 50 at a time. */
export async function listNotReady(
  client: MergeQueueService,
  target: Target,
  queue: Queue,
  signal?: AbortSignal,
): Promise<NotReadyPr[]> {
  const known = new Set((queue.enqueuedPullRequests ?? []).map((e) => e.prNumber));
  const entries: QueueEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < NOT_READY_PAGES; page++) {
    const res = await client.listPullRequests(
      { ...target, state: 'not_ready', take: 100, ...(cursor ? { cursor } : {}) },
      { signal },
    );
    for (const e of res.pullRequests ?? []) {
      if (typeof e.prNumber === 'number' && !known.has(e.prNumber) && (e.state ?? 'not_ready') === 'not_ready') {
        known.add(e.prNumber);
        entries.push(e);
      }
    }
    cursor = res.nextCursor ?? undefined;
    if (!cursor) break;
  }
  const readiness = new Map<number, ReadinessLike | null | undefined>();
  for (let i = 0; i < entries.length; i += LOOKUP_CHUNK) {
    const prs = entries.slice(i, i + LOOKUP_CHUNK).map((e) => ({ number: e.prNumber as number }));
    const res = await client.getSubmittedPullRequests({ ...target, prs }, { signal });
    for (const p of res.pullRequests ?? []) if (typeof p.prNumber === 'number') readiness.set(p.prNumber, p.readiness);
  }
  return entries.map((e) => {
    const r = readiness.get(e.prNumber as number);
    return { ...e, state: 'not_ready', readiness: r ?? null, waitingFor: notReadyReasons(r, e, queue) };
  });
}

function secondsIn(e: QueueEntry, now: number): number | undefined {
  const t = e.stateChangedAt ? Date.parse(e.stateChangedAt) : NaN;
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000));
}

/** Not-ready PRs: on a terminal with time waited and why; piped, the PR columns, no position, the reason last. */
const NOT_READY_FIT = { truncate: ['Why', 'Title'], drop: ['Author', 'Waiting'] };

export function notReadyRows(prs: readonly NotReadyPr[], now: number, human: boolean): Row[] {
  return prs.map((e): Row => {
    const s = secondsIn(e, now);
    const why = e.waitingFor.join('; ');
    if (human)
      return [
        `#${e.prNumber}`,
        s === undefined ? '' : formatDuration(s * 1000),
        why,
        e.prAuthor ?? '',
        e.prTitle ?? '',
      ];
    return QUEUE_PR_PLAIN.row({
      position: '',
      pr: String(e.prNumber),
      state: 'not_ready',
      in_state_seconds: s === undefined ? '' : String(s),
      priority: e.priorityName ?? '',
      priority_value: plainNumber(e.priorityValue),
      skip_the_line: plainBool(e.skipTheLine),
      no_batch: plainBool(e.noBatch),
      author: e.prAuthor ?? '',
      title: e.prTitle ?? '',
      waiting_for: why,
    });
  });
}

/** The queue in every format; piped, stdout has rows only (summary and banner go to stderr). */
export function queueView(
  queue: Queue,
  target: Target,
  now: number,
  opts: ShowOptions = {},
  notReady: readonly NotReadyPr[] = [],
): View {
  const entries = queue.enqueuedPullRequests ?? [];
  const settings = queueSettingFields(queue);
  const summary = queueSummaryFields(
    { ...queue, enqueuedPullRequests: [...entries, ...notReady] },
    formatRepo(target.repo),
  );
  const plain: Block[] = opts.settings
    ? [{ fields: settings }]
    : [{ headers: PR_HEADERS, rows: [...queueRows(entries, now, false), ...notReadyRows(notReady, now, false)] }];
  const notReadyTitle = `Not ready (${notReady.length}): submitted, waiting to enter the queue`;
  const notReadyBlocks = (human: Block[]): Block[] => (notReady.length === 0 || opts.settings ? [] : human);

  const mdBanner = bannerText(queue.state);
  const markdown: Block[] = [
    ...(mdBanner ? [{ lines: [`> **⚠ ${mdBanner}**`, ''] }] : []),
    { fields: opts.settings ? settings : summary, title: `Merge queue ${target.targetBranch}` },
    ...(opts.settings || entries.length === 0
      ? []
      : [{ lines: [''] }, { headers: PR_HEADERS, rows: queueRows(entries, now, true) }]),
    ...notReadyBlocks([
      { lines: ['', `**${notReadyTitle}**`, ''] },
      { headers: NOT_READY_HEADERS, rows: notReadyRows(notReady, now, true) },
    ]),
  ];

  const banner = queueBanner(queue.state);
  const head: Block[] = banner ? [{ lines: [banner, ''], wrap: BANNER_WRAP }] : [];
  const table: Block[] = opts.settings
    ? [...head, { fields: settings }]
    : [
        ...head,
        { fields: summary },
        { lines: [''] },
        entries.length === 0
          ? { lines: [own(paints.dim, notReady.length === 0 ? 'No PRs in the queue.' : 'No PRs in the queue yet.')] }
          : { headers: PR_HEADERS, rows: queueRows(entries, now, true), fit: PR_FIT },
        ...notReadyBlocks([
          { lines: ['', notReadyTitle] },
          { headers: NOT_READY_HEADERS, rows: notReadyRows(notReady, now, true), fit: NOT_READY_FIT },
        ]),
      ];
  return { table, plain, markdown };
}

export async function runQueueShow(opts: ShowOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const queue = await client.getQueue(target);
  let notReady: NotReadyPr[] = [];
  const warnings: Line[] = [];
  if (!opts.settings) {
    try {
      notReady = await listNotReady(client, target, queue, deps.signal);
    } catch (err) {
      // Best effort: the queue itself was read; say what is missing rather than fail.
      if (!(err instanceof MqError)) throw err;
      warnings.push([own(paints.yellow, 'warning:'), ' PRs submitted but not ready are not shown: ', v(err.why)]);
    }
  }
  // Piped, stdout carries only rows: the state and the banner go to stderr.
  const banner = queueBanner(queue.state);
  const bannerLines: Line[] = banner ? [banner] : [];
  const summary: Line[] = opts.settings
    ? []
    : [
        [
          'queue ',
          v(queueName(target)),
          ': ',
          v(queue.state ?? 'unknown', stateColor),
          ' · ',
          v(countsText([...(queue.enqueuedPullRequests ?? []), ...notReady])),
        ],
      ];
  const { enqueuedPullRequests, ...settings } = queue;
  const data = opts.settings
    ? settings
    : { ...queue, enqueuedPullRequests: enqueuedPullRequests ?? [], notReadyPullRequests: notReady };
  const all = [...warnings];
  return {
    data,
    view: queueView(
      queue,
      target,
      client.serviceNow(() => deps.clock.now()),
      opts,
      notReady,
    ),
    notes: {
      json: [...bannerLines, ...all],
      plain: [...bannerLines, ...all, ...summary],
      raw: [...bannerLines, ...all, ...summary],
      table: all,
      markdown: all,
    },
    exitCode: 0,
  };
}

export function queueShowCommand(ctx: Context): Command {
  const cmd = new Command('show')
    .summary('show the queue: state, settings and enqueued PRs')
    .description(
      [
        'Show the merge queue of the target branch: its state (a paused, draining or switching queue is ' +
          'flagged with a banner), its key settings, the enqueued PRs in queue order with their state, time ' +
          'in that state and priority, and the PRs submitted but not ready yet with why each waits (impacted ' +
          'targets missing, checks pending, base branch mismatch, the queue not running).',
        '',
        'Piped (or -o plain), stdout carries one line per PR and nothing else (columns below; PRs not ' +
          'ready yet follow the enqueued ones, with an empty position and `waiting_for` saying why they ' +
          'wait); the queue state and the banner go to stderr. With --settings, stdout carries one ' +
          '`key<TAB>value` line per setting instead (keys are the flags of `mq queue update`, plus state and ' +
          'enqueued). --json prints the whole record the service returned (enums in lowercase, older field ' +
          'names such as isBatching under the current ones), plus `notReadyPullRequests` (each with ' +
          '`readiness` and `waitingFor`).',
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
