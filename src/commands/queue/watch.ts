import { Command } from 'commander';
import type { MergeQueueService } from '../../api/service.js';
import type { Queue, QueueEntry } from '../../api/schemas.js';
import type { Context, Deps, Target } from '../../context.js';
import { ExitCode, MqError, UsageError } from '../../errors.js';
import type { Block, Result } from '../../output/present.js';
import { plainColumns } from '../../output/plain.js';
import { own, paints, type Row, v, type Line, type Span } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import { parseDuration } from '../../util/duration.js';
import { poll } from '../../util/poll.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { queueView } from './show.js';

export interface WatchEvent {
  /** `queue` for the queue's own state, else the PR number. */
  subject: 'queue' | number;
  /** null when the PR was not in the queue before (or on the first read). */
  from: string | null;
  /** The new state; `left` for a PR no longer listed whose final state is unknown. */
  to: string;
  title?: string;
}

const key = (e: QueueEntry): string => String(e.prNumber ?? e.id ?? '');

/** What changed between two reads of the queue; `prev` undefined means the first read (everything is new). */
export function diffQueue(prev: Queue | undefined, next: Queue): WatchEvent[] {
  const events: WatchEvent[] = [];
  const nextState = next.state ?? 'unknown';
  if (prev?.state !== next.state)
    events.push({
      subject: 'queue',
      from: prev ? (prev.state ?? 'unknown') : null,
      to: nextState,
      title: next.branch ?? undefined,
    });
  const before = new Map((prev?.enqueuedPullRequests ?? []).map((e) => [key(e), e]));
  const after = new Map((next.enqueuedPullRequests ?? []).map((e) => [key(e), e]));
  for (const [k, e] of after) {
    const old = before.get(k);
    const state = e.state ?? 'unknown';
    if (!old || (old.state ?? 'unknown') !== state) {
      events.push({
        subject: e.prNumber ?? Number(k),
        from: old ? (old.state ?? 'unknown') : null,
        to: state,
        title: e.prTitle ?? undefined,
      });
    }
  }
  for (const [k, e] of before) {
    if (!after.has(k))
      events.push({
        subject: e.prNumber ?? Number(k),
        from: e.state ?? 'unknown',
        to: 'left',
        title: e.prTitle ?? undefined,
      });
  }
  return events;
}

/** `mq queue watch` piped: one line per change, as it happens. */
export const WATCH_PLAIN = plainColumns('one line per change', ['at', 'subject', 'from', 'to', 'title']);

/** For scripts: the PR number without `#` (or `queue`), '' for an unknown before-state. */
export function eventPlainRow(event: WatchEvent, at: string): Row {
  return WATCH_PLAIN.row({
    at,
    subject: String(event.subject),
    from: event.from ?? '',
    to: event.to,
    title: event.title ?? '',
  });
}

/** A change on a terminal that is not live (`-o table` piped): `#42`, `-` for an unknown before-state. */
export function eventRow(event: WatchEvent, at: string): string[] {
  const subject = event.subject === 'queue' ? 'queue' : `#${event.subject}`;
  return [at, subject, event.from ?? '-', event.to, event.title ?? ''];
}

function eventLine(event: WatchEvent, at: string): Line {
  const subject = event.subject === 'queue' ? own(paints.bold, 'queue') : `#${event.subject}`;
  const from: Span[] = event.from === null ? [] : [v(event.from), ' -> '];
  return [
    own(paints.dim, at.slice(11, 19)),
    ' ',
    subject,
    ' ',
    ...from,
    v(event.to, stateColor),
    ...(event.title ? [v(`  ${event.title}`, paints.dim)] : []),
  ];
}

/** A PR that left the list: ask for its final state (merged, failed, cancelled); best effort. */
async function resolveLeft(client: MergeQueueService, target: Target, events: WatchEvent[]): Promise<void> {
  await Promise.all(
    events.map(async (ev) => {
      if (ev.to !== 'left' || ev.subject === 'queue') return;
      try {
        const record = await client.getSubmittedPullRequest({ ...target, pr: { number: ev.subject } });
        if (record.state) ev.to = record.state;
      } catch {
        // keep `left`
      }
    }),
  );
}

export interface WatchOptions {
  interval: string;
  intervalMs: number;
}

export async function runQueueWatch(opts: WatchOptions, deps: Deps): Promise<Result> {
  const format = deps.out.format();
  if (format === 'markdown')
    throw new UsageError(
      '-o markdown: mq queue watch prints a live table or one line per change; use -o table, plain or --json',
    );
  const target = deps.target();
  const client = await deps.client();
  const live = format === 'table' && deps.io.stdoutIsTTY;
  const recent: Line[] = [];
  let prev: Queue | undefined;
  try {
    await poll(deps, {
      intervalMs: opts.intervalMs,
      what: 'reading the queue',
      read: (call) => client.getQueue(target, call),
      onBlip: (message) => deps.out.note([own(paints.yellow, '!'), ` ${message}`]),
      onValue: async (queue) => {
        const at = new Date(client.serviceNow(() => deps.clock.now())).toISOString();
        const events = diffQueue(prev, queue);
        await resolveLeft(client, target, events);
        if (live) {
          // Changes after the first read are kept under the table, newest last.
          if (prev) for (const ev of events) recent.push(eventLine(ev, at));
          recent.splice(0, Math.max(0, recent.length - 8));
          const footer = own(paints.dim, `updated ${at.slice(11, 19)} UTC · every ${opts.interval} · Ctrl-C to stop`);
          const view = queueView(
            queue,
            target,
            client.serviceNow(() => deps.clock.now()),
          );
          await deps.out.redraw([
            ...((view as { table: Block[] }).table ?? []),
            ...(recent.length ? [{ lines: ['', own(paints.bold, 'Recent changes'), ...recent] }] : []),
            { lines: ['', footer] },
          ]);
        } else {
          for (const ev of events) {
            const doc = {
              at,
              subject: ev.subject === 'queue' ? 'queue' : 'pr',
              ...(ev.subject === 'queue' ? {} : { pr: ev.subject }),
              from: ev.from,
              to: ev.to,
              title: ev.title ?? null,
            };
            await deps.out.stream(doc, {
              table: [{ headers: [], rows: [eventRow(ev, at)] }],
              plain: [{ headers: [], rows: [eventPlainRow(ev, at)] }],
            });
          }
        }
        prev = queue;
      },
    });
    return { exitCode: 0 };
  } catch (err) {
    // Ctrl-C is how a watch ends: stop quietly with the interrupted code.
    if (err instanceof MqError && err.exitCode === ExitCode.interrupted) return { exitCode: ExitCode.interrupted };
    throw err;
  } finally {
    // Back from the alternate screen however the watch ends; the last frame stays in the scrollback.
    if (live) await deps.out.endLive();
  }
}

export function queueWatchCommand(ctx: Context): Command {
  const cmd = new Command('watch')
    .summary('follow the queue live')
    .description(
      [
        'Poll the queue until Ctrl-C (exit 130). On a terminal the queue table is redrawn in place, with ' +
          'the latest changes under it. Piped, one line per change (columns below; subject is `queue` or a PR ' +
          'number, from is empty when new). The first read lists every PR as new. A PR that leaves the queue ' +
          'shows its final state (merged, failed, cancelled) when the service still knows it, else `left`.',
        '',
        'With --json, one JSON object per change and per line (JSON Lines), not a single document.',
      ].join('\n'),
    )
    .option('--interval <duration>', 'time between reads', '5s')
    .action(
      act(
        ctx,
        'queue watch',
        (f: { interval: string }): WatchOptions => {
          const intervalMs = parseDuration(f.interval, '--interval');
          if (intervalMs < 500) throw new UsageError('--interval: must be at least 500ms');
          return { interval: f.interval, intervalMs };
        },
        runQueueWatch,
      ),
    );
  withPlainHelp(cmd, [WATCH_PLAIN]);
  return withExamples(cmd, [
    'mq queue watch',
    'mq queue watch --interval 10s | grep -E "\\t(failed|pending_failure)\\t"',
    'mq queue watch --json | jq -c "select(.to == \\"merged\\")"',
  ]);
}
