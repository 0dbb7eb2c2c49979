import { checked } from '../decode.js';
import * as h from '../history.js';
import type { CallOptions } from '../http.js';
import type { PullRequestPage, RepoRef } from '../schemas.js';
import type { V2Base } from './base.js';
import {
  batchHistoryPage,
  historyPage,
  MAX_TIMELINE_ITEMS,
  testingResultOf,
  testingResultPage,
  timelineOf,
  type V2Transition,
} from './history-wire.js';
import { entryOf, prRecord, pullRequestList, pullRequestSchema, type V2PullRequest } from './wire.js';

type Target = { repo: RepoRef; targetBranch: string };

/** The v2 client's requests and ids (base.ts). */
export type V2Wire = V2Base;

const enc = encodeURIComponent;
const PAGE = 100;
/** Pages followed at most in one walk (a cursor the service repeats also ends it). */
const MAX_PAGES = 1000;

type Page<T> = { data: T[]; nextCursor?: string | null; hasMore?: boolean | null };

/** Every page of a list (`limit` 100), following nextCursor; stops after `maxItems`. */
async function walk<T>(
  read: (query: Record<string, string>) => Promise<Page<T>>,
  query: Record<string, string>,
  maxItems = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await read({ ...query, limit: String(PAGE), ...(cursor ? { cursor } : {}) });
    out.push(...page.data);
    const next = page.hasMore !== false && page.nextCursor ? page.nextCursor : undefined;
    if (!next || seen.has(next) || page.data.length === 0 || out.length >= maxItems) break;
    seen.add(next);
    cursor = next;
  }
  return out;
}

/** One PR's history, newest first (v2's default is oldest first). */
function entryHistory(c: V2Wire, id: string, what: string, call?: CallOptions) {
  return walk(
    (q) => c.read(`v2/pull-requests/${enc(id)}/queue-entry-history`, q, historyPage, what, call),
    { direction: 'newest' },
    MAX_TIMELINE_ITEMS,
  );
}

/** Several PRs' histories (≤ 50 ids), newest first, by PR id. */
async function histories(c: V2Wire, ids: string[], what: string, call?: CallOptions) {
  const out = new Map<string, V2Transition[]>();
  if (ids.length === 0) return out;
  const groups = await walk((q) => c.read('v2/queue-entry-history', q, batchHistoryPage, what, call), {
    pullRequestIds: ids.join(','),
    direction: 'newest',
  });
  for (const g of groups) out.set(g.pullRequestId, [...(out.get(g.pullRequestId) ?? []), ...(g.transitions ?? [])]);
  return out;
}

const inQueue = (pr: V2PullRequest, queueId: string) =>
  !!pr.queueEntry && (!pr.queueEntry.mergeQueueId || pr.queueEntry.mergeQueueId === queueId);

/**
 * The queue's id, looked up again when the kept one matches none of the PRs' entries but some are in
 * another queue (the queue may have been made anew; the PRs may also belong to another branch's queue).
 */
async function checkedQueueId(c: V2Wire, target: Target, queueId: string, prs: V2PullRequest[], call?: CallOptions) {
  const matches = prs.some((pr) => pr.queueEntry?.mergeQueueId === queueId);
  if (matches || prs.every((pr) => !pr.queueEntry || inQueue(pr, queueId))) return queueId;
  await c.forgetQueue(target);
  return c.queueId(target, call);
}

/** The PR's record and its history in parallel; a PR resolved just now (cold cache) is not read again. */
async function recordAndHistory(
  c: V2Wire,
  req: Omit<h.GetPullRequestWithTimelineRequest, 'includeTimeline'>,
  what: string,
  call?: CallOptions,
): Promise<[V2PullRequest, V2Transition[]]> {
  const n = req.pr.number;
  const repositoryId = await c.repositoryId(req.repo, call);
  if (c.keptPullRequestId(repositoryId, n) === undefined) {
    const pr = (await c.resolvePullRequests(repositoryId, [n], what, call)).get(n);
    if (!pr) throw c.notInQueue(req, n, what);
    return [pr, await entryHistory(c, pr.id, what, call)];
  }
  const read = (id: string) => c.read(`v2/pull-requests/${enc(id)}`, {}, pullRequestSchema, what, call);
  return c.onPullRequest(req, what, (id) => Promise.all([read(id), entryHistory(c, id, what, call)]), call);
}

/** v1's getSubmittedPullRequest with includeTimeline; a PR not in this queue is not found (exit 3). */
export async function pullRequestWithTimeline(
  c: V2Wire,
  req: Omit<h.GetPullRequestWithTimelineRequest, 'includeTimeline'>,
  call?: CallOptions,
): Promise<h.PullRequestWithTimeline> {
  const what = `get the timeline of PR #${req.pr.number}`;
  checked(h.getPullRequestWithTimelineRequest, req, what);
  const [keptQueue, [pr, history]] = await Promise.all([c.queueId(req, call), recordAndHistory(c, req, what, call)]);
  const queueId = await checkedQueueId(c, req, keptQueue, [pr], call);
  if (!inQueue(pr, queueId)) throw c.notInQueue(req, req.pr.number, what);
  return { ...prRecord(pr), timeline: timelineOf(history) };
}

/** v1's getSubmittedPullRequests: PRs in the asked order; `notFound` = unknown or not in this queue. */
export async function pullRequests(
  c: V2Wire,
  req: h.GetPullRequestsRequest,
  call?: CallOptions,
): Promise<h.PullRequestsLookup> {
  const numbers = [...new Set(req.prs.map((p) => p.number))];
  const what = `get ${req.prs.length} pull request${req.prs.length === 1 ? '' : 's'} of ${req.targetBranch}`;
  checked(h.getPullRequestsRequest, req, what);
  const repositoryId = await c.repositoryId(req.repo, call);
  // Every id kept: the histories are read alongside the records (else after them, in one request).
  const kept = numbers.map((n) => c.keptPullRequestId(repositoryId, n));
  const known = req.includeTimeline && kept.every((id) => id !== undefined) ? (kept as string[]) : [];
  const [keptQueue, found, early] = await Promise.all([
    c.queueId(req, call),
    c.resolvePullRequests(repositoryId, numbers, what, call),
    histories(c, known, what, call),
  ]);
  const queueId = await checkedQueueId(c, req, keptQueue, [...found.values()], call);
  const asked = numbers.map((n) => found.get(n)).filter((pr): pr is V2PullRequest => !!pr && inQueue(pr, queueId));
  const late = req.includeTimeline
    ? await histories(
        c,
        asked.map((pr) => pr.id).filter((id) => !known.includes(id)),
        what,
        call,
      )
    : new Map<string, V2Transition[]>();
  const inHere = new Set(asked.map((pr) => pr.number));
  return {
    pullRequests: asked.map((pr) => {
      const record = prRecord(pr);
      if (!req.includeTimeline) return record;
      return { ...record, timeline: timelineOf(early.get(pr.id) ?? late.get(pr.id) ?? []) };
    }),
    notFound: numbers.filter((n) => !inHere.has(n)).map((number) => ({ number })),
  };
}

/** A testing-results window walked once per client (v1's offset pages are cut from it): the latest only. */
const walks = new WeakMap<V2Wire, { key: string; rows: Promise<h.TestingResult[]> }>();

/**
 * v1's offset/take paging over v2's cursors (newest first): the window is walked once, oldest first,
 * and each page cut from it, so paging a window through costs what v1's pages cost (100 rows each).
 */
export async function testingResults(
  c: V2Wire,
  req: h.TestingResultsRequest,
  call?: CallOptions,
): Promise<h.TestingResultsPage> {
  const what = `list testing results of ${req.targetBranch}`;
  checked(h.testingResultsRequest, req, what);
  return c.onQueue(req, call, async (queueId) => {
    const until = req.until;
    const since =
      req.since ??
      new Date(
        (until ? Date.parse(until) : c.serviceNow(Date.now)) - h.MAX_TESTING_WINDOW_DAYS * 86_400_000,
      ).toISOString();
    const query: Record<string, string> = { since, ...(until ? { until } : {}) };
    const key = JSON.stringify([queueId, since, until ?? null]);
    let memo = walks.get(c);
    if (!memo || memo.key !== key || until === undefined) {
      const rows = walk(
        (q) => c.read(`v2/merge-queues/${enc(queueId)}/testing-results`, q, testingResultPage, what, call),
        query,
      ).then((data) => data.map(testingResultOf).reverse());
      memo = { key, rows };
      walks.set(c, memo);
      rows.catch(() => walks.get(c) === memo && walks.delete(c));
    }
    const rows = await memo.rows;
    const offset = req.offset ?? 0;
    return { testingResults: rows.slice(offset, offset + (req.take ?? 50)), totalItems: rows.length };
  });
}

/** v1's listPullRequests with since/until: v2's list with concludedAfter/concludedBefore (newest-enqueued first). */
export async function concludedPullRequests(
  c: V2Wire,
  req: h.ListConcludedPullRequestsRequest,
  call?: CallOptions,
): Promise<PullRequestPage> {
  const what = `list concluded pull requests of ${req.targetBranch}`;
  checked(h.listConcludedPullRequestsRequest, req, what);
  const query: Record<string, string> = { limit: String(req.take ?? 50) };
  if (req.state) query.state = req.state.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
  if (req.since) query.concludedAfter = req.since;
  if (req.until) query.concludedBefore = req.until;
  if (req.cursor) query.cursor = req.cursor;
  const page = await c.onQueue(req, call, (queueId) =>
    c.read(`v2/merge-queues/${enc(queueId)}/pull-requests`, query, pullRequestList, what, call),
  );
  const next = page.hasMore !== false && page.nextCursor ? { nextCursor: page.nextCursor } : {};
  return { pullRequests: page.data.map(entryOf), ...next };
}
