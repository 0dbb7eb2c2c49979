/**
 * Queue-entry state history over v2, from v1's timeline: for one PR (paged by transition) and for
 * several (paged by PR, ids in the order asked, unknown ids left out). Oldest first by default.
 */
import type { QueueRecord } from '../../engine/index.js';
import { iso } from '../wire.js';
import { at, prOf, ref, type V2Context, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { findPullRequest, pullRequestId } from './ids.js';
import { page } from './paging.js';
import { v2EntryState } from './wire.js';

function newestFirst(c: V2Context): boolean {
  const d = c.url.searchParams.get('direction') ?? 'oldest';
  if (d !== 'oldest' && d !== 'newest') throw new V2Error('VALIDATION_FAILED', 'direction: expected oldest or newest');
  return d === 'newest';
}

function transitions(c: V2Context, q: QueueRecord, number: number, newest: boolean) {
  const id = pullRequestId(q.repo, number);
  const view = c.engine.getSubmittedPullRequest({ ...ref(q), pr: { number }, includeTimeline: true }, c.now);
  const rows = (view.timeline ?? []).map((t) => ({
    pullRequestId: id,
    state: v2EntryState(t.state),
    changedAt: iso(t.at),
    // v2 gives testing and pendingFailure no reason.
    reason: t.state === 'testing' || t.state === 'pending_failure' || t.reason === '' ? null : t.reason,
    ...(t.runId ? { verificationRunId: t.runId } : {}),
  }));
  return newest ? rows.reverse() : rows;
}

export const entryHistoryRoutes: V2Route[] = [
  {
    method: 'GET',
    path: at('pull-requests/{id}/queue-entry-history'),
    handle(c) {
      const newest = newestFirst(c);
      const { q, number } = prOf(c);
      const rows = transitions(c, q, number, newest);
      return { json: page(c.url, `entry-history ${c.params[0]}`, String(newest), rows, (r) => r) };
    },
  },
  {
    method: 'GET',
    path: at('queue-entry-history'),
    handle(c) {
      const newest = newestFirst(c);
      const raw = c.url.searchParams.get('pullRequestIds');
      if (raw === null || !/^[A-Za-z0-9-]{1,64}(,[A-Za-z0-9-]{1,64}){0,49}$/.test(raw))
        throw new V2Error('VALIDATION_FAILED', 'pullRequestIds: expected up to 50 comma-separated pull request ids');
      c.engine.advance(c.now);
      const found = [...new Set(raw.split(','))].flatMap((id) => {
        const f = findPullRequest(c.engine.state, id);
        return f ? [f] : [];
      });
      return {
        json: page(c.url, 'entry-history', `${raw}\0${newest}`, found, (f) => ({
          pullRequestId: pullRequestId(f.q.repo, f.number),
          transitions: transitions(c, f.q, f.number, newest),
        })),
      };
    },
  },
];
