/**
 * GET /v2/merge-queues/{id}/graph: the admitted PRs (v1 getQueue's list, at most GRAPH_MAX) and an
 * edge from each PR to each later one whose impacted targets overlap its own, transitively reduced.
 * In queue mode every PR overlaps, so the graph is a chain. ALL targets are not listed as names.
 */
import { type Entry, overlaps, type QueueRecord, type Targets, targetsOf } from '../../engine/index.js';
import { at, queueOf, ref, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { v2EntryState } from './wire.js';

/** The graph's soft cap: PRs past it are absent. */
const GRAPH_MAX = 500;
/** Target names listed per node or edge (the totals count them all). */
const TARGETS_MAX = 100;

const listed = (t: Targets, key: string) =>
  t === 'ALL' ? {} : { [key]: t.slice(0, TARGETS_MAX), [`total${key[0]?.toUpperCase()}${key.slice(1)}`]: t.length };

export const graphRoute: V2Route = {
  method: 'GET',
  path: at('merge-queues/{id}/graph'),
  handle(c) {
    const raw = c.url.searchParams.get('includeImpactedTargets') ?? 'false';
    if (raw !== 'true' && raw !== 'false')
      throw new V2Error('VALIDATION_FAILED', 'includeImpactedTargets: expected true or false');
    const withTargets = raw === 'true';
    const q: QueueRecord = queueOf(c);
    const views = c.engine.getQueue(ref(q), c.now).entries.slice(0, GRAPH_MAX);
    const entries = views.map((v) => q.entries[String(v.prNumber)] as Entry);
    const targets = entries.map((e) => targetsOf(q, e));
    const nodes = views.map((v, i) => {
      const runId = (entries[i] as Entry).runId;
      return {
        pullRequestNumber: v.prNumber,
        title: v.title,
        author: v.author,
        state: v2EntryState(v.state),
        priorityValue: v.priorityValue,
        priorityName: v.priorityName,
        skipsTheLine: v.priorityValue === 0,
        allowsBatching: !v.noBatch,
        ...(runId !== null && v.state === 'testing' ? { verificationRunId: runId } : {}),
        isBisection: runId !== null && c.engine.state.runs[runId]?.isBisection === true,
        ...(withTargets ? listed(targets[i] as Targets, 'impactedTargets') : {}),
      };
    });
    // ancestors[j]: every node j depends on, directly or not; an edge i->j is kept unless i is
    // already an ancestor of another node j depends on directly.
    const ancestors: Array<Set<number>> = [];
    const edges: unknown[] = [];
    for (let j = 0; j < views.length; j++) {
      const direct: number[] = [];
      for (let i = 0; i < j; i++) if (overlaps(targets[i] as Targets, targets[j] as Targets)) direct.push(i);
      const through = new Set<number>();
      for (const i of direct) for (const a of ancestors[i] as Set<number>) through.add(a);
      ancestors.push(new Set([...through, ...direct]));
      for (const i of direct) {
        if (through.has(i)) continue;
        const [a, b] = [targets[i] as Targets, targets[j] as Targets];
        const common = a === 'ALL' ? b : b === 'ALL' ? a : a.filter(Set.prototype.has, new Set(b));
        edges.push({
          fromPullRequestNumber: views[i]?.prNumber,
          toPullRequestNumber: views[j]?.prNumber,
          ...(withTargets ? listed(common, 'commonImpactedTargets') : {}),
        });
      }
    }
    return { json: { nodes, edges } };
  },
};
