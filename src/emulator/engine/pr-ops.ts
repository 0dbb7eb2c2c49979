// The API's pull-request operations, on a queue the caller resolved.
import { resolvePriority } from './config.js';
import { badRequest, notFound } from './errors.js';
import { fakePrFor, transition, type Core } from './lifecycle.js';
import { restartInBisection } from './bisection-nodes.js';
import { append } from './queue-order.js';
import { uuid } from './random.js';
import { cancelRun } from './runs.js';
import { leaveQueue, overtake, tryAdmit } from './membership.js';
import { reconcile } from './scheduler.js';
import { indexAdd } from './targets.js';
import { ensureFakePr } from './fake-prs.js';
import { describeQueue } from './state.js';
import { MAX_U32, PR_STATES, type PrState } from '../../domain/vocabulary.js';
import type { Entry, QueueRecord } from './types.js';
import { entryView, type EntryView } from './views.js';

export function checkPrNumber(n: number, field = 'pr.number', min = 0): void {
  if (!Number.isInteger(n) || n < min || n > MAX_U32) throw badRequest(`${field}: expected integer ${min}..${MAX_U32}`);
}

export function liveEntry(q: QueueRecord, n: number): Entry {
  const e = q.entries[String(n)];
  if (!e?.live) throw notFound(`pull request #${n} is not in the merge queue for ${describeQueue(q.repo, q.branch)}`);
  return e;
}

export function anyEntry(q: QueueRecord, n: number): Entry {
  const e = q.entries[String(n)];
  if (!e)
    throw notFound(
      `pull request #${n} has never been submitted to the merge queue for ${describeQueue(q.repo, q.branch)}`,
    );
  return e;
}

/** Submit: a live PR keeps entry and position (v1 rewrites priority/noBatch); an ended trip restarts at NOT_READY. */
export function submit(
  core: Core,
  q: QueueRecord,
  n: number,
  priority: string | number | null | undefined,
  noBatch: boolean | undefined,
): void {
  checkPrNumber(n);
  const existing = q.entries[String(n)];
  const prio = priority === undefined && existing?.live ? null : resolvePriority(priority);
  ensureFakePr(core, q, n);
  if (existing?.live) {
    if (noBatch !== undefined) existing.noBatch = noBatch;
    if (prio && prio.value !== existing.priorityValue) {
      existing.priorityValue = prio.value;
      existing.priorityName = prio.name;
      // Only a PR that has not started can move. Other PRs are displaced only by an urgent one.
      if (existing.list === 'waiting') {
        append(q, existing, 'waiting');
        if (existing.priorityValue === 0) overtake(core, q, existing);
      }
    } else if (prio) {
      existing.priorityName = prio.name;
    }
    reconcile(core, q);
    return;
  }
  const p = prio ?? resolvePriority(undefined);
  const now = core.state.now;
  let e = existing;
  if (!e) {
    e = {
      id: uuid(core.state),
      prNumber: n,
      ordinal: q.entryOrder.length,
      state: 'not_ready',
      stateChangedAt: now,
      live: true,
      priorityValue: p.value,
      priorityName: p.name,
      noBatch: false,
      submittedAt: now,
      admittedAt: null,
      firstTestAt: null,
      runId: null,
      verifiedByTestRun: null,
      failureReason: null,
      conclusionReason: null,
      mergeMethod: null,
      bucket: null,
      pinRank: null,
      targets: null,
      bisection: null,
      list: null,
      prev: null,
      next: null,
      history: [],
    };
    q.entries[String(n)] = e;
    q.entryOrder.push(n);
  }
  const from: PrState | null = existing ? existing.state : null;
  e.live = true;
  e.priorityValue = p.value;
  e.priorityName = p.name;
  e.noBatch = noBatch ?? false;
  e.submittedAt = now;
  e.admittedAt = null;
  e.firstTestAt = null;
  e.runId = null;
  e.verifiedByTestRun = null;
  e.failureReason = null;
  e.conclusionReason = null;
  e.mergeMethod = null;
  e.targets = null;
  e.bisection = null;
  append(q, e, 'notReady');
  transition(core, q, e, 'not_ready', 'USER_REQUESTED', null, from);
  tryAdmit(core, q, e);
  reconcile(core, q);
}

export function cancel(core: Core, q: QueueRecord, n: number): void {
  checkPrNumber(n);
  leaveQueue(core, q, liveEntry(q, n), 'cancelled', 'USER_REQUESTED');
  reconcile(core, q);
}

/**
 * restartTestsOnPullRequest (T15): TESTING or PENDING_FAILURE only; the PR keeps its position and
 * nobody else is retested (v1), except its batch mates on a shared run, or its bisection group.
 */
export function restart(core: Core, q: QueueRecord, n: number): void {
  checkPrNumber(n);
  const e = liveEntry(q, n);
  if (e.state !== 'testing' && e.state !== 'pending_failure') {
    throw badRequest(
      `pull request #${n} is ${e.state}; only testing or pending_failure pull requests can be restarted`,
    );
  }
  const reason = 'TESTS_RESTARTED_BY_API_REQUEST';
  if (e.bisection !== null) {
    restartInBisection(core, q, e, reason);
    reconcile(core, q);
    return;
  }
  const runId = e.runId;
  const wasTesting = e.state === 'testing';
  if (wasTesting) cancelRun(core, runId);
  e.failureReason = null;
  transition(core, q, e, 'pending', reason, runId);
  const run = runId === null ? undefined : core.state.runs[runId];
  if (wasTesting && run) {
    for (const m of run.group) {
      const mate = q.entries[String(m)];
      if (mate && mate !== e && mate.state === 'testing' && mate.runId === runId)
        transition(core, q, mate, 'pending', reason, runId);
    }
  }
  reconcile(core, q);
}

export function setImpactedTargets(
  core: Core,
  q: QueueRecord,
  n: number,
  sha: string,
  targets: string[] | 'ALL',
): void {
  checkPrNumber(n, 'pr.number', 1);
  if (sha === '') throw badRequest('pr.sha: expected a non-empty string');
  const perSha = (q.impactedTargets[String(n)] ??= {});
  perSha[sha] = targets === 'ALL' ? 'ALL' : [...targets];
  const e = q.entries[String(n)];
  if (e?.live && e.state === 'not_ready') tryAdmit(core, q, e);
  else if (e?.live && fakePrFor(core, q, n)?.sha === sha) {
    // Last upload wins per SHA: an admitted PR is scheduled with the new list from its next run.
    if (e.list === 'waiting') indexAdd(q.waitingIndex, e.targets, -1);
    e.targets = perSha[sha] === 'ALL' ? 'ALL' : [...(perSha[sha] as string[])];
    if (e.list === 'waiting') indexAdd(q.waitingIndex, e.targets, 1);
  }
  reconcile(core, q);
}

export interface ListQuery {
  state?: PrState;
  /** Epoch ms: only PRs whose trip concluded (merged, failed, cancelled) at or after it. */
  since?: number;
  /** Epoch ms: only PRs whose trip concluded at or before it. */
  until?: number;
  cursor?: string;
  take?: number;
}

/** listPullRequests: entries in submission order, paged by id; `since`/`until` keep concluded PRs only. */
export function listPullRequests(
  core: Core,
  q: QueueRecord,
  query: ListQuery,
): { pullRequests: EntryView[]; nextCursor?: string } {
  const take = query.take ?? 50;
  if (!Number.isInteger(take) || take < 1 || take > 100) throw badRequest('take: expected integer 1..100');
  if (query.state !== undefined && !PR_STATES.includes(query.state)) {
    throw badRequest(`state: expected one of ${PR_STATES.join(', ')}`);
  }
  let start = 0;
  if (query.cursor !== undefined) {
    const at = q.entryOrder.findIndex((n) => q.entries[String(n)]?.id === query.cursor);
    if (at < 0) throw badRequest('cursor: unknown cursor');
    start = at + 1;
  }
  const out: EntryView[] = [];
  let last: Entry | undefined;
  for (let i = start; i < q.entryOrder.length; i++) {
    const e = q.entries[String(q.entryOrder[i])];
    if (!e) continue;
    if (query.state !== undefined && e.state !== query.state) continue;
    if (query.since !== undefined && (e.live || e.stateChangedAt < query.since)) continue;
    if (query.until !== undefined && (e.live || e.stateChangedAt > query.until)) continue;
    if (out.length === take) return { pullRequests: out, ...(last ? { nextCursor: last.id } : {}) };
    out.push(entryView(core, q, e));
    last = e;
  }
  return { pullRequests: out };
}
