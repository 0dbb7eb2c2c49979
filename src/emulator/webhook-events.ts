// Engine effects on the wire: `pull_request.*` per PR transition, `pull_request_batch.*` per batch.
import {
  testBranchOf,
  type Effect,
  type EffectRun,
  type PrStateEffect,
  type BatchEffect,
  type RepoRef,
} from './engine/index.js';

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
  /** Builds the payload, at most once when first sent or persisted (most die in the queue cap before). */
  payload: () => Record<string, unknown>;
}

const repository = (r: RepoRef) => ({ host: r.host, owner: r.owner, name: r.name });
// Joined, not concatenated: a flat string, not a rope (a key lives as long as its delivery).
const orderKey = (r: RepoRef, branch: string, pr: number) =>
  [r.host, '/', r.owner, '/', r.name, ':', branch, '#', pr].join('');

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
 * A `pull_request.*` event waiting in a receiver's queue: numbers, booleans and references only, so
 * queueing allocates nothing and the object is reused once dropped (webhooks.ts).
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

const PR_TYPE: Record<string, string> = Object.fromEntries(
  Object.values(PR_EVENTS).map((k) => [k.status, `pull_request.${k.status}`]),
);
const WITH_BISECTION_FLAG = new Set(['testing', 'failed', 'canceled']);

/** The event of a PR transition, written into `into` if given; null when it has none (tests_passed). */
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

export const prEventKey = (ev: PrEvent): string => orderKey(ev, ev.branch, ev.prNumber);

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

/**
 * Derives batch events from one engine step's PR transitions (the engine emits testing/pending_failure/
 * failed/merged): `.submitted` before `.testing`, `.queued` when 2+ PRs of a batch go back together,
 * `.canceled` when a PR's cancel cancels the batch's run. Each follows the PR events it sums up.
 */
export class BatchCollector {
  private groups = new Map<string, { queued: PrStateEffect[]; cancelled: PrStateEffect[] }>();
  private scheduled = false;

  constructor(private readonly emit: (e: WebhookEvent) => void) {}

  /** Returns the events to send before this effect's own event. */
  before(effect: Effect): WebhookEvent[] {
    if (effect.type === 'batch' && effect.event === 'testing')
      return [batchEvent('submitted', { ...effect, reason: '' })];
    return [];
  }

  /** Takes a PR transition that may belong to a batch event; false when it does not. */
  note(effect: Effect): boolean {
    if (effect.type !== 'pr_state' || !effect.run || effect.run.prNumbers.length < 2) return false;
    if (effect.to !== 'pending' && effect.to !== 'cancelled') return false;
    const key = `${effect.repo.host}/${effect.repo.owner}/${effect.repo.name}:${effect.branch}|${effect.run.id}`;
    let g = this.groups.get(key);
    if (effect.to === 'pending') {
      if (effect.from !== 'testing' && effect.from !== 'pending_failure' && effect.from !== 'tests_passed')
        return false;
      if (!g) this.groups.set(key, (g = { queued: [], cancelled: [] }));
      g.queued.push(effect);
    } else {
      // Cancelled on the run, or sent back from it in this step (a cancel first requeues the whole batch).
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
        this.emit(
          batchEvent('queued', { ...base, prNumbers: queued.map((e) => e.prNumber), reason: queued[0]!.reason }),
        );
      }
    }
  }
}
