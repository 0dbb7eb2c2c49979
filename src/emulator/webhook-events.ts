/**
 * What the engine's effects become on the wire: `pull_request.*` events for PR transitions, and
 * `pull_request_batch.*` events, three of them derived from the PR transitions of one engine step.
 */
import { testBranchOf, type Effect, type EffectRun, type PrStateEffect, type BatchEffect, type RepoRef } from './engine/index.js';

const PR_EVENTS: Partial<Record<PrStateEffect['to'], { status: string; reasonField: string }>> = {
  not_ready: { status: 'submitted', reasonField: 'submitted_reason' },
  pending: { status: 'queued', reasonField: 'queued_reason' },
  testing: { status: 'testing', reasonField: '' },
  pending_failure: { status: 'pending_failure', reasonField: 'failure_reason' },
  failed: { status: 'failed', reasonField: 'failure_reason' },
  // One L in webhooks, unlike the API's state.
  cancelled: { status: 'canceled', reasonField: 'cancellation_reason' },
  merged: { status: 'merged', reasonField: 'merged_reason' },
};

const BATCH_REASON: Record<BatchStatus, string> = {
  submitted: '',
  queued: 'queued_reason',
  testing: '',
  pending_failure: 'failure_reason',
  failed: 'failure_reason',
  canceled: 'cancellation_reason',
  merged: 'merged_reason',
};
type BatchStatus = BatchEffect['event'] | 'submitted' | 'queued' | 'canceled';

export interface WebhookEvent {
  type: string;
  prNumbers: number[];
  /** Ordering keys: one per PR the event is about. */
  keys: string[];
  /**
   * Builds the payload. Called at most once, when the event is first sent or persisted: behind a
   * dead receiver most events are dropped by the queue cap before that, and building (and
   * serialising) them at once only made garbage.
   */
  payload: () => Record<string, unknown>;
}

const repository = (r: RepoRef) => ({ host: r.host, owner: r.owner, name: r.name });
// Joined rather than concatenated: a flat string, not a rope several times its size (a key lives as long as its delivery).
const orderKey = (r: RepoRef, branch: string, pr: number) => [r.host, '/', r.owner, '/', r.name, ':', branch, '#', pr].join('');

/** A `pull_request_batch.*` event (trunk-wire §3.2: pr_numbers and pr_numbers_in_batch, test branch required). */
export function batchEvent(
  status: BatchStatus,
  b: { repo: RepoRef; branch: string; prNumbers: number[]; run: EffectRun; reason: string; at: number },
): WebhookEvent {
  const reasonField = BATCH_REASON[status];
  return {
    type: `pull_request_batch.${status}`,
    prNumbers: [...b.prNumbers],
    keys: b.prNumbers.map((n) => orderKey(b.repo, b.branch, n)),
    payload: () => ({
      type: `pull_request_batch.${status}`,
      action: status,
      status,
      pr_numbers: [...b.prNumbers],
      pr_numbers_in_batch: [...b.run.prNumbers],
      repository: repository(b.repo),
      target_branch: b.branch,
      timestamp: new Date(b.at).toISOString(),
      test_branch: b.run.testBranch,
      test_branch_sha: b.run.testBranchSha,
      batched: true,
      is_bisection: b.run.isBisection,
      ...(reasonField ? { [reasonField]: b.reason } : {}),
    }),
  };
}

/**
 * A `pull_request.*` event as it waits in a receiver's queue: the fields its payload needs, every
 * one a number, a boolean or a reference to a string the engine or this module already holds, so
 * queueing an event allocates no strings, arrays or closures, and the object can be reused for the
 * next event once its delivery is dropped (webhooks.ts: behind a dead receiver ~190,000 events go
 * that way in a 20,000-PR run).
 */
export interface PrEvent {
  type: string;
  status: string;
  reasonField: string;
  author: string;
  prNumber: number;
  host: string;
  owner: string;
  name: string;
  branch: string;
  reason: string;
  at: number;
  withRun: boolean;
  /** The run's id and first PR: its test branch is spelled out only when the payload is built. */
  runId: string;
  runFirstPr: number;
  testBranchSha: string;
  batched: boolean;
  isBisection: boolean;
}

const PR_TYPE: Record<string, string> = Object.fromEntries(Object.values(PR_EVENTS).map((k) => [k.status, `pull_request.${k.status}`]));
const WITH_BISECTION_FLAG = new Set(['testing', 'failed', 'canceled']);

/**
 * The `pull_request.*` event of a PR transition written into `into` (a fresh object when not
 * given), or null when the transition has no webhook (tests_passed).
 */
export function prEventOf(effect: PrStateEffect, into?: PrEvent): PrEvent | null {
  const kind = PR_EVENTS[effect.to];
  if (!kind) return null;
  const run = effect.run;
  const withRun = kind.status !== 'submitted' && kind.status !== 'queued' && run !== null;
  const ev = into ?? ({} as PrEvent);
  ev.type = PR_TYPE[kind.status] as string;
  ev.status = kind.status;
  ev.reasonField = kind.reasonField;
  ev.author = effect.author;
  ev.prNumber = effect.prNumber;
  ev.host = effect.repo.host;
  ev.owner = effect.repo.owner;
  ev.name = effect.repo.name;
  ev.branch = effect.branch;
  ev.reason = effect.reason;
  ev.at = effect.at;
  ev.withRun = withRun;
  ev.runId = withRun ? run.id : '';
  ev.runFirstPr = withRun ? (run.prNumbers[0] ?? 0) : 0;
  ev.testBranchSha = withRun ? run.testBranchSha : '';
  ev.batched = withRun ? run.prNumbers.length > 1 : false;
  ev.isBisection = run?.isBisection ?? false;
  return ev;
}

/** The ordering key of a PR event (one line per PR and receiver). */
export const prEventKey = (ev: PrEvent): string => orderKey(ev, ev.branch, ev.prNumber);

/** The payload of a `pull_request.*` event. */
export function prPayload(ev: PrEvent): Record<string, unknown> {
  const { status, host, owner, name, prNumber: n } = ev;
  return {
    type: ev.type,
    action: status,
    status,
    author: ev.author,
    http_details_url: `https://${host}/${owner}/${name}/pull/${n}`,
    pr_number: n,
    repository: { host, owner, name },
    target_branch: ev.branch,
    timestamp: new Date(ev.at).toISOString(),
    ...(ev.withRun
      ? {
          test_branch: testBranchOf({ group: [ev.runFirstPr], id: ev.runId, isBisection: ev.isBisection }),
          test_branch_sha: ev.testBranchSha,
          batched: ev.batched,
        }
      : {}),
    ...(WITH_BISECTION_FLAG.has(status) ? { is_bisection: ev.isBisection } : {}),
    ...(ev.reasonField ? { [ev.reasonField]: ev.reason } : {}),
  };
}

/** The event an engine effect becomes, or null (tests_passed has no webhook). */
export function eventFor(effect: Effect): WebhookEvent | null {
  if (effect.type === 'batch') return batchEvent(effect.event, effect);
  const ev = prEventOf(effect);
  if (!ev) return null;
  return { type: ev.type, prNumbers: [ev.prNumber], keys: [prEventKey(ev)], payload: () => prPayload(ev) };
}

// ---- batch events derived from PR transitions ------------------------------------------------------

/**
 * The engine reports a batch's testing, pending_failure, failed and merged itself. Three more are
 * derived here from the PR transitions of one engine step (they arrive synchronously together):
 *  - `pull_request_batch.submitted`: a batch was formed and handed to testing (just before its
 *    `.testing`);
 *  - `pull_request_batch.queued`: two or more PRs of one batch went back to the queue together
 *    (a restart, a bisection, a PR of the batch leaving);
 *  - `pull_request_batch.canceled`: a PR of a batch was cancelled while the batch was under test, so
 *    the batch's run was cancelled; `pr_numbers` are the batch's PRs that left the run with it.
 * Each is sent after the PR events it summarises.
 */
export class BatchCollector {
  private groups = new Map<string, { queued: PrStateEffect[]; cancelled: PrStateEffect[] }>();
  private scheduled = false;

  constructor(private readonly emit: (e: WebhookEvent) => void) {}

  /** Returns the events to send before this effect's own event. */
  before(effect: Effect): WebhookEvent[] {
    if (effect.type === 'batch' && effect.event === 'testing') return [batchEvent('submitted', { ...effect, reason: '' })];
    return [];
  }

  /** Takes a PR transition that may belong to a batch event; false when it does not. */
  note(effect: Effect): boolean {
    if (effect.type !== 'pr_state' || !effect.run || effect.run.prNumbers.length < 2) return false;
    if (effect.to !== 'pending' && effect.to !== 'cancelled') return false;
    const key = `${effect.repo.host}/${effect.repo.owner}/${effect.repo.name}:${effect.branch}|${effect.run.id}`;
    let g = this.groups.get(key);
    if (effect.to === 'pending') {
      if (effect.from !== 'testing' && effect.from !== 'pending_failure' && effect.from !== 'tests_passed') return false;
      if (!g) this.groups.set(key, (g = { queued: [], cancelled: [] }));
      g.queued.push(effect);
    } else {
      // Cancelled while on the run, or just sent back from it in this same step (a cancel first
      // returns the whole batch to the queue, then the PR leaves).
      const i = g ? g.queued.findIndex((q) => q.prNumber === effect.prNumber) : -1;
      if (effect.from !== 'testing' && i < 0) return false;
      if (!g) this.groups.set(key, (g = { queued: [], cancelled: [] }));
      if (i >= 0) g.queued.splice(i, 1);
      g.cancelled.push(effect);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
    return true;
  }

  flush(): void {
    this.scheduled = false;
    if (this.groups.size === 0) return;
    const groups = this.groups;
    this.groups = new Map();
    for (const { queued, cancelled } of groups.values()) {
      const first = (cancelled[0] ?? queued[0])!;
      const base = { repo: first.repo, branch: first.branch, run: first.run!, at: first.at };
      if (cancelled.length > 0) {
        const prs = [...cancelled, ...queued].map((e) => e.prNumber).sort((a, b) => a - b);
        this.emit(batchEvent('canceled', { ...base, prNumbers: prs, reason: cancelled[0]!.reason }));
      }
      if (queued.length >= 2) {
        this.emit(batchEvent('queued', { ...base, prNumbers: queued.map((e) => e.prNumber), reason: queued[0]!.reason }));
      }
    }
  }
}

// ---- delivery ----------------------------------------------------------------------------------------
