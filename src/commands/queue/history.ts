import { Command } from 'commander';
import { PR_STATES } from '../../domain/vocabulary.js';
import type { QueueEntry } from '../../api/schemas.js';
import { parseIntIn } from '../../cli/args.js';
import type { Context, Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { plainColumns, plainNumber, plainSecondsSince } from '../../output/plain.js';
import type { Row } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import { parseDuration } from '../../util/duration.js';
import { priorityText, sinceText } from '../../views/pull-request.js';
import { checkReach } from '../../stats/window.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { choiceOption } from './common.js';

export const MAX_HISTORY = 10_000;
const PAGE = 100;

export interface HistoryOptions {
  state?: (typeof PR_STATES)[number];
  since?: string;
  limit: number;
}

/** How an ISO 8601 date or time starts (anything else given to --since is a duration). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** An ISO date or time, or a duration back from now (`2h`, `3d`). Returns an ISO timestamp. */
export function parseSince(text: string, now: number): string {
  const t = text.trim();
  if (ISO_DATE.test(t)) {
    const ms = Date.parse(t);
    if (Number.isNaN(ms))
      throw new UsageError(
        `--since: ${JSON.stringify(text)} is not a valid date; use ISO 8601 (2026-05-01 or ` +
          `2026-05-01T09:00:00Z) or a duration like 2h or 3d`,
      );
    if (ms > now) throw new UsageError(`--since: ${JSON.stringify(text)} is in the future`);
    return new Date(ms).toISOString();
  }
  let ms: number;
  try {
    ms = parseDuration(t, '--since');
  } catch {
    throw new UsageError(`--since: ${JSON.stringify(text)} is neither an ISO 8601 date nor a duration like 2h or 3d`);
  }
  if (ms <= 0) throw new UsageError('--since: the duration must be greater than zero');
  checkReach(ms, text, '--since');
  return new Date(now - ms).toISOString();
}

/** The most PRs read to find the newest `--limit` when the service does not list newest first. */
export const MAX_HISTORY_READ = 10_000;

const changedAt = (e: QueueEntry): number => {
  const t = e.stateChangedAt ? Date.parse(e.stateChangedAt) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
};

/**
 * The newest `limit` PRs, newest first, following `nextCursor`; a service paging in another order
 * (the emulator) is read to the end, up to MAX_HISTORY_READ.
 */
export async function runQueueHistory(opts: HistoryOptions, deps: Deps): Promise<Result> {
  // Checked before anything is sent.
  let since = opts.since !== undefined ? parseSince(opts.since, deps.clock.now()) : undefined;
  const target = deps.target();
  const client = await deps.client();
  if (opts.since !== undefined && !ISO_DATE.test(opts.since.trim())) {
    // Durations count back from the service's clock (Date header; right against an emulator), read with the queue.
    await client.getQueueState(target);
    since = parseSince(
      opts.since,
      client.serviceNow(() => deps.clock.now()),
    );
  }
  let prs: QueueEntry[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let newestFirst = true;
  let more = false;
  for (;;) {
    const budget = (newestFirst ? opts.limit : MAX_HISTORY_READ) - prs.length;
    if (budget <= 0) break;
    const take = Math.min(PAGE, budget);
    const page = await client.listPullRequests({ ...target, state: opts.state, since, cursor, take });
    const items = (page.pullRequests ?? []).slice(0, take);
    for (const e of items) {
      const last = prs[prs.length - 1];
      if (newestFirst && last && changedAt(e) > changedAt(last)) newestFirst = false;
      prs.push(e);
    }
    const next = page.nextCursor ?? undefined;
    // A cursor seen before would loop forever; an empty page means the end whatever the cursor says.
    more = Boolean(next) && items.length > 0 && !seen.has(next as string);
    if (!more) break;
    seen.add(next as string);
    cursor = next;
  }
  const partial = !newestFirst && more && prs.length >= MAX_HISTORY_READ;
  if (!newestFirst) {
    // Stable: PRs changed at the same time keep the service's order.
    prs = prs
      .map((e, i) => ({ e, i }))
      .sort((a, b) => changedAt(b.e) - changedAt(a.e) || a.i - b.i)
      .slice(0, opts.limit)
      .map((x) => x.e);
  }
  if (partial) {
    deps.out.note(
      `warning: the newest of the first ${MAX_HISTORY_READ} PRs the service listed; narrow the window with ` +
        `--since or --state to see all`,
    );
  }
  const now = client.serviceNow(() => deps.clock.now());
  const headers = ['PR', 'State', 'Since', 'Priority', 'Author', 'Title'];
  const human = historyRows(prs, now);
  return {
    data: prs,
    exitCode: 0,
    notes: { table: prs.length === 0 ? ['No PRs match.'] : [] },
    view: {
      table:
        prs.length === 0 ? [] : [{ headers, rows: human, fit: { truncate: ['Title'], drop: ['Priority', 'Author'] } }],
      markdown: [{ headers, rows: human }],
      plain: [{ headers: [], rows: historyPlainRows(prs, now) }],
    },
  };
}

function historyRows(prs: readonly QueueEntry[], now: number): Row[] {
  return prs.map((e) => {
    const ago = sinceText(e.stateChangedAt, now);
    return [
      e.prNumber === null || e.prNumber === undefined ? '' : `#${e.prNumber}`,
      { value: e.state ?? 'unknown', paint: stateColor },
      ago ? `${ago} ago` : '',
      priorityText(e.priorityName, e.priorityValue),
      e.prAuthor ?? '',
      e.prTitle ?? '',
    ];
  });
}

/** `mq queue history` piped. */
export const HISTORY_PLAIN = plainColumns('one line per PR', [
  'pr',
  'state',
  'state_changed_at',
  'in_state_seconds',
  'priority',
  'priority_value',
  'author',
  'title',
]);

function historyPlainRows(prs: readonly QueueEntry[], now: number): Row[] {
  return prs.map((e) =>
    HISTORY_PLAIN.row({
      pr: plainNumber(e.prNumber),
      state: e.state ?? 'unknown',
      state_changed_at: e.stateChangedAt ?? '',
      in_state_seconds: plainSecondsSince(e.stateChangedAt, now),
      priority: e.priorityName ?? '',
      priority_value: plainNumber(e.priorityValue),
      author: e.prAuthor ?? '',
      title: e.prTitle ?? '',
    }),
  );
}

export function queueHistoryCommand(ctx: Context): Command {
  const cmd = new Command('history')
    .summary('list PRs that went through the queue')
    .description(
      `List the newest PRs of the queue (newest first, by the time of their last state change), optionally ` +
        `only those in one state or changed since a time: --limit keeps the newest N. Uses the service's ` +
        `listPullRequests endpoint.`,
    )
    .addOption(choiceOption('--state <state>', 'only PRs in this state', PR_STATES))
    .option('--since <when>', 'only PRs changed since this ISO 8601 time, or this long ago (2h, 3d)')
    .option(
      '--limit <n>',
      `the newest this many PRs, 1-${MAX_HISTORY}`,
      (val: string) => parseIntIn(val, '--limit', 1, MAX_HISTORY),
      50,
    )
    .action(
      act(
        ctx,
        'queue history',
        (f: HistoryOptions): HistoryOptions => ({ state: f.state, since: f.since, limit: f.limit }),
        runQueueHistory,
      ),
    );
  withPlainHelp(cmd, [HISTORY_PLAIN]);
  return withExamples(cmd, [
    'mq queue history --since 2h',
    'mq queue history --state failed --since 3d --limit 200',
    'mq queue history --state merged --since 2026-05-01 --json | jq length',
  ]);
}
