// `mq notify --watch`: polls the queue as `mq queue watch` does (diffQueue), and posts once per trip
// that leaves it. On start it reads the service's history since the state file's `since`, so what left
// while it was down is posted once; each post is remembered per target, so nothing is posted twice.
import type { Queue } from '../api/schemas.js';
import { ExitCode, MqError } from '../errors.js';
import { isTerminal, type TerminalState } from '../domain/vocabulary.js';
import type { NotifyContext, NotifyOutcome, notifyLeftQueue } from '../notify/notify.js';
import { loadState, MAX_POSTED, saveState } from '../notify/state.js';
import type { SinkName, Sinks } from '../notify/targets.js';
import { poll } from '../util/poll.js';
import { diffQueue } from './queue/watch.js';

export interface WatchNotifyOptions {
  intervalMs: number;
  statePath: string;
  /** Each outcome as it is posted (or fails to be). */
  report: (outcome: NotifyOutcome) => Promise<void>;
  /** The lazy bundle's notifyLeftQueue. */
  notify: typeof notifyLeftQueue;
  onBlip?: (message: string) => void;
}

interface Candidate {
  pr: number;
  state: TerminalState;
  /** The service's stateChangedAt of the trip's end: with the PR, the trip's identity. */
  changedAt: string;
}

/** History pages read when catching up after a restart. */
const MAX_CATCH_UP_PAGES = 50;
/** Read back a little before `since`: the service's clock ticks in whole seconds on some answers. */
const CATCH_UP_MARGIN_MS = 60_000;

/**
 * Runs until Ctrl-C, then answers how many trips are still unposted (a delivery that failed is retried
 * each poll, and the state file keeps it for the next start).
 */
export async function watchAndNotify(ctx: NotifyContext, opts: WatchNotifyOptions): Promise<{ unposted: number }> {
  const { client, target } = ctx;
  const state = loadState(opts.statePath);
  const posted = new Set(state.posted);
  const pending = new Map<string, Candidate>();
  const keyOf = (sink: SinkName, c: Candidate) => `${sink}:${c.pr}@${c.changedAt}`;
  const wanted = (pr: number | null | undefined, s: string | null | undefined, at: string | null | undefined) => {
    if (typeof pr !== 'number' || !s || !at || !isTerminal(s) || !ctx.on.has(s)) return;
    pending.set(`${pr}@${at}`, { pr, state: s, changedAt: at });
  };
  const configured = (Object.keys(ctx.sinks) as Array<keyof Sinks>).filter(
    (k): k is SinkName => k !== 'authors' && Boolean(ctx.sinks[k]),
  );
  /** PRs that left the list, their final state not read yet. */
  const unresolved = new Set<number>();
  let caughtUp = state.since === null;
  /** The service is unreachable for now: said, and tried again on the next poll. */
  const later = (err: unknown) => {
    if (!(err instanceof MqError) || err.exitCode !== ExitCode.unavailable) throw err;
    opts.onBlip?.(`${err.what} failed (${err.why}); trying again on the next poll`);
  };
  let prev: Queue | undefined;
  const polling = poll(ctx, {
    intervalMs: opts.intervalMs,
    what: 'reading the queue',
    read: (call) => client.getQueue(target, call),
    onBlip: opts.onBlip,
    onValue: async (queue) => {
      const now = client.serviceNow(() => ctx.clock.now());
      if (!caughtUp) {
        try {
          await catchUp(state.since as number);
          caughtUp = true;
        } catch (err) {
          later(err);
        }
      }
      if (prev !== undefined)
        for (const ev of diffQueue(prev, queue))
          if (ev.to === 'left' && ev.subject !== 'queue') unresolved.add(ev.subject);
      prev = queue;
      for (const pr of unresolved) {
        try {
          const r = await client.getSubmittedPullRequest({ ...target, pr: { number: pr } });
          wanted(pr, r.state, r.stateChangedAt);
          unresolved.delete(pr);
        } catch (err) {
          if (err instanceof MqError && err.exitCode === ExitCode.notFound) unresolved.delete(pr);
          else later(err);
        }
      }
      for (const [id, c] of pending) {
        if (configured.every((sink) => posted.has(keyOf(sink, c)))) {
          pending.delete(id);
          continue;
        }
        try {
          const outcome = await opts.notify(
            { pr: c.pr, state: c.state },
            { ...ctx, skip: (sink) => posted.has(keyOf(sink, c)) },
          );
          for (const d of outcome.deliveries) if (d.ok) posted.add(keyOf(d.target, c));
          if (outcome.deliveries.every((d) => d.ok)) pending.delete(id);
          if (outcome.deliveries.length > 0) await opts.report(outcome);
        } catch (err) {
          later(err);
        }
      }
      // Anything not yet handled keeps `since` before it, so a restart reads it again.
      const held = [...pending.values()].map((c) => Date.parse(c.changedAt) || now);
      if (!caughtUp || unresolved.size > 0) held.push(state.since ?? now);
      state.since = Math.min(now, ...held);
      state.posted = [...posted].slice(-MAX_POSTED);
      saveState(opts.statePath, state);
    },
  });

  async function catchUp(from: number): Promise<void> {
    const since = new Date(from - CATCH_UP_MARGIN_MS).toISOString();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_CATCH_UP_PAGES; page++) {
      const p = await client.listPullRequests({ ...target, since, cursor, take: 100 });
      for (const e of p.pullRequests ?? []) wanted(e.prNumber, e.state, e.stateChangedAt);
      cursor = p.nextCursor ?? undefined;
      if (!cursor || (p.pullRequests ?? []).length === 0) break;
    }
  }
  try {
    await polling;
  } catch (err) {
    if (err instanceof MqError && err.exitCode === ExitCode.interrupted) return { unposted: pending.size };
    throw err;
  }
  return { unposted: pending.size };
}
