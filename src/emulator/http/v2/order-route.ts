/**
 * GET /v2/merge-queues/{id}/order: the queue in dispatch order (v1 getQueue's list of admitted
 * PRs, cut into runs in flight and PRs waiting for one), then the PRs not yet admitted. The emulator's reading:
 * a pending PR is directly behind the PR just ahead of it (queue mode) or the PRs ahead whose
 * impacted targets overlap its own (graph mode), and held by the pendingFailure PRs among those.
 */
import { type Entry, type EntryView, overlaps, type QueueRecord, targetsOf } from '../../engine/index.js';
import { at, queueOf, ref, type V2Route } from './context.js';
import { pullRequestId } from './ids.js';
import { v2EntryState, v2Mode, v2QueueState } from './wire.js';

/** Most PRs `awaitingAdmission` lists (the rest are counted in `awaitingAdmissionTotal`). */
const AWAITING_MAX = 100;

const queued = (q: QueueRecord, v: EntryView) => ({
  id: pullRequestId(q.repo, v.prNumber),
  number: v.prNumber,
  sha: v.sha,
  title: v.title,
  url: `https://${q.repo.host}/${q.repo.owner}/${q.repo.name}/pull/${v.prNumber}`,
});

type Ahead = { v: EntryView; e: Entry };

export const orderRoute: V2Route = {
  method: 'GET',
  path: at('merge-queues/{id}/order'),
  handle(c) {
    const q = queueOf(c);
    const { entries } = c.engine.getQueue(ref(q), c.now);
    const graph = q.config.mode === 'parallel';
    const batches: Array<{
      verificationRunId: string;
      state: string;
      isBisection: boolean;
      pullRequests: ReturnType<typeof queued>[];
    }> = [];
    const pending: unknown[] = [];
    // v1's list holds admitted PRs only; the rest wait in submission order.
    const awaiting = Object.values(q.entries)
      .filter((e) => e.live && e.state === 'not_ready')
      .sort((a, b) => a.submittedAt - b.submittedAt || a.ordinal - b.ordinal);
    const ahead: Ahead[] = [];
    for (const v of entries) {
      const e = q.entries[String(v.prNumber)] as Entry;
      if (v.state === 'pending' || e.runId === null) {
        const direct = graph ? ahead.filter((a) => overlaps(targetsOf(q, a.e), targetsOf(q, e))) : ahead.slice(-1);
        const held = (graph ? direct : ahead).filter((a) => a.v.state === 'pending_failure');
        pending.push({
          pullRequest: queued(q, v),
          schedulability: held.length > 0 ? 'heldBehindFailure' : 'schedulable',
          directlyAhead: direct.map((a) => queued(q, a.v)),
          heldBy: held.map((a) => queued(q, a.v)),
        });
      } else {
        const last = batches.at(-1);
        if (last && last.verificationRunId === e.runId) last.pullRequests.push(queued(q, v));
        else {
          const run = c.engine.state.runs[e.runId];
          batches.push({
            verificationRunId: e.runId,
            state: v2EntryState(v.state),
            isBisection: run?.isBisection ?? false,
            pullRequests: [queued(q, v)],
          });
        }
      }
      ahead.push({ v, e });
    }
    return {
      json: {
        mode: v2Mode(q.config.mode),
        queueState: v2QueueState(q.state),
        batchingEnabled: q.config.batch,
        isolationResolved: true,
        hasCycle: false,
        batches,
        pending,
        awaitingAdmission: awaiting
          .slice(0, AWAITING_MAX)
          .map((e) => queued(q, c.engine.getSubmittedPullRequest({ ...ref(q), pr: { number: e.prNumber } }, c.now))),
        awaitingAdmissionTotal: awaiting.length,
      },
    };
  },
};
