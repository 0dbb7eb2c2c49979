/**
 * GET /v2/pull-requests/{id}/queue-entry-estimate. Trunk publishes `status`, `reason`, `computedAt`,
 * `kind` and `estimatedAt`; `testingStartsAt`, `testingEndsAt`, `pullRequestsAhead` and `waitingOn` are
 * the emulator's reading of the rest of its description. Any key may read it; it counts against the
 * per-key limit of `GET /v2/pull-requests*` (rate-limits.ts).
 */
import { iso } from '../wire.js';
import { at, prOf, ref, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { pullRequestId } from './ids.js';

export const estimateRoute: V2Route = {
  method: 'GET',
  path: at('pull-requests/{id}/queue-entry-estimate'),
  handle(c) {
    const { q, number } = prOf(c);
    if (!(q.estimates ?? c.estimates))
      throw new V2Error('ESTIMATE_NOT_ENABLED', `the merge queue for branch ${q.branch} does not serve estimates`);
    const est = c.engine.estimate({ ...ref(q), pr: { number } }, c.now);
    const computedAt = iso(c.engine.now);
    if (est.status === 'unavailable') return { json: { status: est.status, computedAt, reason: est.reason } };
    if (est.kind === 'pendingFailureResolution') {
      const waitingOn = est.waitingOn.map((n) => ({ id: pullRequestId(q.repo, n), number: n }));
      return { json: { status: est.status, computedAt, kind: est.kind, estimatedAt: iso(est.estimatedAt), waitingOn } };
    }
    return {
      json: {
        status: est.status,
        computedAt,
        kind: est.kind,
        estimatedAt: iso(est.estimatedAt),
        ...(est.testingStartsAt === null ? {} : { testingStartsAt: iso(est.testingStartsAt) }),
        ...(est.testingEndsAt === null ? {} : { testingEndsAt: iso(est.testingEndsAt) }),
        pullRequestsAhead: est.ahead,
      },
    };
  },
};
