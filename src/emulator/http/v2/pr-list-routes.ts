/**
 * v2's two pull-request lists: a queue's (newest first; state, author and concluded-window filters)
 * and the lookup by repository coordinates (numbers, or a head branch).
 */
import { isTerminal, PR_STATES } from '../../../domain/vocabulary.js';
import type { Entry, QueueRecord } from '../../engine/index.js';
import { at, prAnswer, queueOf, type V2Context, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { findPullRequest, pullRequestId, queueId, repositoryId } from './ids.js';
import { page } from './paging.js';
import { v2EntryState, type v2PullRequest } from './wire.js';

type PullRequest = ReturnType<typeof v2PullRequest>;

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:\d\d)$/i;

/** An optional date-time query parameter in epoch ms. */
function instant(c: V2Context, name: string): number | undefined {
  const raw = c.url.searchParams.get(name);
  if (raw === null) return undefined;
  const t = DATE_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(t))
    throw new V2Error('VALIDATION_FAILED', `${name}: expected a date-time such as 2026-09-01T00:00:00Z`);
  return t;
}

/** A non-empty optional query parameter. */
function text(c: V2Context, name: string): string | null {
  const raw = c.url.searchParams.get(name);
  if (raw !== null && (raw === '' || raw.length > 255))
    throw new V2Error('VALIDATION_FAILED', `${name}: expected 1 to 255 characters`);
  return raw;
}

/** Reached merged, failed or cancelled in [after, before] at any point of its history (v1's since/until). */
function concludedIn(e: Entry, after = -Infinity, before = Infinity): boolean {
  return e.history.some(([t, s]) => t >= after && t <= before && isTerminal(s));
}

function queueList(c: V2Context) {
  const q = queueOf(c);
  const states = c.url.searchParams.get('state');
  const wanted = states === null ? null : new Set(states.split(','));
  const known = PR_STATES.map(v2EntryState);
  for (const w of wanted ?? []) {
    if (!known.includes(w))
      throw new V2Error('VALIDATION_FAILED', `state: expected comma-separated ${known.join(', ')}`);
  }
  const author = text(c, 'author');
  const after = instant(c, 'concludedAfter');
  const before = instant(c, 'concludedBefore');
  if (after !== undefined && before !== undefined && after > before)
    throw new V2Error('VALIDATION_FAILED', 'concludedAfter: must not be after concludedBefore');
  const windowed = after !== undefined || before !== undefined;
  const entries = Object.values(q.entries)
    .filter(
      (e) => (wanted === null || wanted.has(v2EntryState(e.state))) && (!windowed || concludedIn(e, after, before)),
    )
    .sort((a, b) => b.submittedAt - a.submittedAt || b.ordinal - a.ordinal);
  // Only an author filter renders every row; otherwise only the page's.
  const rows: Array<Entry | PullRequest> =
    author === null ? entries : entries.map((e) => prAnswer(c, q, e.prNumber, true)).filter((p) => p.author === author);
  const filter = [states ?? '', author ?? '', after ?? '', before ?? ''].join('\0');
  return page(c.url, `queue-prs ${queueId(q)}`, filter, rows, (r) =>
    'prNumber' in r ? prAnswer(c, q, r.prNumber, true) : r,
  );
}

/** The PR answer of `n` in `q`, when `q` is the queue v2 reads it from. */
function ownAnswer(c: V2Context, q: QueueRecord, n: number, listRead = false): PullRequest | undefined {
  return findPullRequest(c.engine.state, pullRequestId(q.repo, n))?.q === q ? prAnswer(c, q, n, listRead) : undefined;
}

function byNumbers(c: V2Context, repoId: string, numbers: string): PullRequest[] {
  if (!/^\d{1,8}(,\d{1,8}){0,49}$/.test(numbers))
    throw new V2Error('VALIDATION_FAILED', 'number: expected up to 50 comma-separated pull request numbers');
  const wanted = new Set(numbers.split(',').map(Number));
  // A lookup of several numbers is a list read (no hasImpactedTargets), of one a full read.
  const listRead = wanted.size > 1;
  const rows: PullRequest[] = [];
  for (const q of Object.values(c.engine.state.queues)) {
    if (repositoryId(q.repo) !== repoId) continue;
    for (const n of wanted) {
      const p = q.entries[String(n)] && ownAnswer(c, q, n, listRead);
      if (!p) continue;
      wanted.delete(n);
      rows.push(p);
    }
  }
  return rows;
}

/** The open PR from `branch`, else the most recently created (at most one). */
function byBranch(c: V2Context, repoId: string, branch: string, base: string | null): PullRequest[] {
  const rows: PullRequest[] = [];
  for (const q of Object.values(c.engine.state.queues)) {
    if (repositoryId(q.repo) !== repoId) continue;
    for (const e of Object.values(q.entries)) {
      const p = prAnswer(c, q, e.prNumber);
      if (p.branch !== branch || (base !== null && p.baseBranch !== base)) continue;
      if (ownAnswer(c, q, e.prNumber)) rows.push(p);
    }
  }
  const closed = (p: PullRequest) => Number(p.state === 'merged');
  rows.sort((a, b) => closed(a) - closed(b) || b.createdAt.localeCompare(a.createdAt) || b.number - a.number);
  return rows.slice(0, 1);
}

function resolve(c: V2Context) {
  c.engine.advance(c.now);
  const repoId = c.url.searchParams.get('repositoryId');
  if (repoId === null) throw new V2Error('VALIDATION_FAILED', 'repositoryId: required');
  const numbers = c.url.searchParams.get('number');
  const branch = text(c, 'branch');
  const base = text(c, 'baseBranch');
  if (numbers !== null && branch !== null) throw new V2Error('VALIDATION_FAILED', 'number, branch: send one, not both');
  if (numbers === null && branch === null) throw new V2Error('VALIDATION_FAILED', 'number, branch: send exactly one');
  if (base !== null && branch === null) throw new V2Error('VALIDATION_FAILED', 'baseBranch: needs branch');
  const rows = branch === null ? byNumbers(c, repoId, numbers as string) : byBranch(c, repoId, branch, base);
  rows.sort((a, b) => a.number - b.number);
  const filter = branch === null ? `${repoId}\0#${numbers}` : `${repoId}\0${branch}\0${base ?? ''}`;
  return page(c.url, 'pull-requests', filter, rows, (p) => p);
}

export const prListRoutes: V2Route[] = [
  { method: 'GET', path: at('merge-queues/{id}/pull-requests'), handle: (c) => ({ json: queueList(c) }) },
  { method: 'GET', path: at('pull-requests'), handle: (c) => ({ json: resolve(c) }) },
];
