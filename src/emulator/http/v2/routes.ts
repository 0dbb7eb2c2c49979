/**
 * The v2 merge-queue operations served so far, on the same engine as v1. Each change is made by
 * calling the v1 route that does it (`ctx.change`), so the journal and replay stay v1's.
 */
import { z } from 'zod';

import { PR_STATES } from '../../../domain/vocabulary.js';
import { EngineError, type QueueRecord, type RepoRef } from '../../engine/index.js';
import { requirePermission } from './auth.js';
import { at, parse, prAnswer, prOf, queueOf, ref, type V2Context, type V2Reply, type V2Route } from './context.js';
import { fromEngine, V2Error } from './errors.js';
import { findPullRequest, findRepository, pullRequestId, queueId, repositoryId } from './ids.js';
import { page } from './paging.js';
import { v1Mode, v2EntryState, type v2PullRequest, v2Queue, v2Repository, v2StateChange } from './wire.js';

/** `https://host/owner/name` (a `.git` suffix and trailing `/` normalised away), else undefined. */
export function repoFromUrl(url: string): RepoRef | undefined {
  const m = /^https?:\/\/([^/\s]+)\/([^/\s]+)\/([^/\s]+?)(?:\.git)?\/*$/.exec(url);
  if (!m) return undefined;
  return { host: (m[1] as string).toLowerCase(), owner: m[2] as string, name: m[3] as string };
}

const submitBody = z.strictObject({
  number: z.int().gt(0).lte(10_000_000),
  allowBatching: z.optional(z.boolean()),
  priorityValue: z.optional(z.int().gte(0).lte(255)),
  priorityName: z.optional(z.enum(['urgent', 'high', 'medium', 'low'])),
  direct: z.optional(z.boolean()),
});

const createBody = z.strictObject({
  repositoryId: z.string().min(1),
  targetBranch: z.string().min(1).max(255),
  mode: z.optional(z.enum(['queue', 'graph'])),
  concurrency: z.optional(z.int().gte(1).lte(1000)),
});

async function setState(c: V2Context, state: 'running' | 'paused' | 'draining'): Promise<V2Reply> {
  requirePermission(c.key, 'settings', 'change a queue state');
  const q = queueOf(c);
  await c.change('/v1/updateQueue', { ...ref(q), state });
  return { json: v2StateChange(q) };
}

async function engineCall<T>(f: () => T | Promise<T>, notFound: ConstructorParameters<typeof V2Error>[0]): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw err instanceof EngineError ? fromEngine(err, notFound) : err;
  }
}

export const v2Routes: V2Route[] = [
  {
    method: 'GET',
    path: at('repositories'),
    handle(c) {
      const raw = c.url.searchParams.get('providerUrl');
      if (raw === null || raw === '') throw new V2Error('VALIDATION_FAILED', 'providerUrl: required');
      const repo = repoFromUrl(raw);
      if (!repo) throw new V2Error('PROVIDER_URL_NOT_FOUND', `no repository at ${raw.slice(0, 200)}`);
      const id = repositoryId(repo);
      c.repos.set(id, repo);
      const known = findRepository(c.engine.state, id, c.repos.values());
      return { json: page(c.url, 'repositories', raw, [known?.createdAt ?? c.now], (t) => v2Repository(repo, t)) };
    },
  },
  {
    method: 'GET',
    path: at('repositories/{id}'),
    handle(c) {
      const found = findRepository(c.engine.state, c.params[0] as string, c.repos.values());
      if (!found) throw new V2Error('REPOSITORY_NOT_FOUND', `no repository has id ${c.params[0] as string}`);
      return { json: v2Repository(found.repo, found.createdAt ?? c.now) };
    },
  },
  {
    method: 'GET',
    path: at('merge-queues'),
    handle(c) {
      c.engine.advance(c.now);
      const repoId = c.url.searchParams.get('repositoryId');
      const branch = c.url.searchParams.get('targetBranch');
      if (branch !== null && repoId === null)
        throw new V2Error('VALIDATION_FAILED', 'targetBranch: needs repositoryId');
      const rows = Object.values(c.engine.state.queues)
        .filter((q) => (repoId === null || repositoryId(q.repo) === repoId) && (branch === null || q.branch === branch))
        .sort((a, b) => a.createdAt - b.createdAt || queueId(a).localeCompare(queueId(b)));
      return { json: page(c.url, 'merge-queues', `${repoId ?? ''}\0${branch ?? ''}`, rows, v2Queue) };
    },
  },
  {
    method: 'POST',
    path: at('merge-queues'),
    body: true,
    async handle(c) {
      requirePermission(c.key, 'settings', 'create a merge queue');
      const b = parse(createBody, c.body);
      const found = findRepository(c.engine.state, b.repositoryId, c.repos.values());
      if (!found) throw new V2Error('REPOSITORY_NOT_FOUND', `no repository has id ${b.repositoryId}`);
      const id = repositoryId(found.repo);
      const existing = () =>
        Object.values(c.engine.state.queues).find((q) => q.branch === b.targetBranch && repositoryId(q.repo) === id);
      if (existing())
        throw new V2Error('QUEUE_ALREADY_EXISTS', `a merge queue already exists for branch ${b.targetBranch}`);
      const input = {
        repo: found.repo,
        targetBranch: b.targetBranch,
        ...(b.mode ? { mode: v1Mode(b.mode) } : {}),
        ...(b.concurrency ? { concurrency: b.concurrency } : {}),
      };
      await engineCall(() => c.change('/v1/createQueue', input), 'REPOSITORY_NOT_FOUND');
      return { status: 201, json: v2Queue(existing() as QueueRecord) };
    },
  },
  { method: 'GET', path: at('merge-queues/{id}'), handle: (c) => ({ json: v2Queue(queueOf(c)) }) },
  {
    method: 'DELETE',
    path: at('merge-queues/{id}'),
    async handle(c) {
      requirePermission(c.key, 'settings', 'delete a merge queue');
      const q = queueOf(c);
      const live = q.counts.admitted + q.counts.notReady;
      if (live > 0) throw new V2Error('QUEUE_HAS_ACTIVE_ENTRIES', `the merge queue still holds ${live} active entries`);
      await c.change('/v1/deleteQueue', ref(q));
      return { status: 204 };
    },
  },
  { method: 'POST', path: at('merge-queues/{id}/pause'), handle: (c) => setState(c, 'paused') },
  { method: 'POST', path: at('merge-queues/{id}/resume'), handle: (c) => setState(c, 'running') },
  { method: 'POST', path: at('merge-queues/{id}/drain'), handle: (c) => setState(c, 'draining') },
  {
    method: 'POST',
    path: at('merge-queues/{id}/pull-requests'),
    body: true,
    async handle(c) {
      requirePermission(c.key, 'merge', 'submit pull requests');
      const b = parse(submitBody, c.body);
      if (b.priorityValue !== undefined && b.priorityName !== undefined) {
        throw new V2Error('VALIDATION_FAILED', 'priorityValue, priorityName: send one, not both');
      }
      if (b.priorityValue !== undefined || b.priorityName !== undefined)
        requirePermission(c.key, 'priority', 'set a priority');
      if (b.allowBatching === false) requirePermission(c.key, 'skipBatching', 'skip batching');
      if (b.direct !== undefined) requirePermission(c.key, 'direct', 'send a pull request direct to the queue');
      const q = queueOf(c);
      if (q.entries[String(b.number)]?.live) {
        throw new V2Error('PR_ALREADY_ENQUEUED', `pull request #${b.number} is already in a merge queue`);
      }
      const priority = b.priorityValue ?? b.priorityName;
      const input = {
        ...ref(q),
        pr: { number: b.number },
        ...(priority !== undefined ? { priority } : {}),
        ...(b.allowBatching === false ? { noBatch: true } : {}),
      };
      await c.change('/v1/submitPullRequest', input);
      return { status: 201, json: prAnswer(c, q, b.number) };
    },
  },
  {
    method: 'GET',
    path: at('merge-queues/{id}/pull-requests'),
    handle(c) {
      const q = queueOf(c);
      const states = c.url.searchParams.get('state');
      const wanted = states === null ? null : new Set(states.split(','));
      const known = PR_STATES.map(v2EntryState);
      for (const w of wanted ?? []) {
        if (!known.includes(w))
          throw new V2Error('VALIDATION_FAILED', `state: expected comma-separated ${known.join(', ')}`);
      }
      const rows = Object.values(q.entries)
        .filter((e) => wanted === null || wanted.has(v2EntryState(e.state)))
        .sort((a, b) => b.submittedAt - a.submittedAt || b.ordinal - a.ordinal);
      return {
        json: page(c.url, `queue-prs ${queueId(q)}`, states ?? '', rows, (e) => prAnswer(c, q, e.prNumber, true)),
      };
    },
  },
  {
    method: 'GET',
    path: at('pull-requests'),
    handle(c) {
      c.engine.advance(c.now);
      const repoId = c.url.searchParams.get('repositoryId');
      const numbers = c.url.searchParams.get('number');
      if (repoId === null) throw new V2Error('VALIDATION_FAILED', 'repositoryId: required');
      if (numbers === null || !/^\d{1,8}(,\d{1,8}){0,49}$/.test(numbers)) {
        throw new V2Error('VALIDATION_FAILED', 'number: expected up to 50 comma-separated pull request numbers');
      }
      const wanted = new Set(numbers.split(',').map(Number));
      const rows: Array<ReturnType<typeof v2PullRequest>> = [];
      const seen = new Set<string>();
      for (const q of Object.values(c.engine.state.queues)) {
        if (repositoryId(q.repo) !== repoId) continue;
        for (const n of wanted) {
          if (!q.entries[String(n)]) continue;
          const found = findPullRequest(c.engine.state, pullRequestId(q.repo, n));
          if (!found || found.q !== q || seen.has(`${n}`)) continue;
          seen.add(`${n}`);
          rows.push(prAnswer(c, q, n, wanted.size > 1));
        }
      }
      rows.sort((a, b) => a.number - b.number);
      return { json: page(c.url, 'pull-requests', `${repoId}\0${numbers}`, rows, (p) => p) };
    },
  },
  {
    method: 'GET',
    path: at('pull-requests/{id}'),
    handle(c) {
      const { q, number } = prOf(c);
      return { json: prAnswer(c, q, number) };
    },
  },
  {
    method: 'POST',
    path: at('pull-requests/{id}/dequeue'),
    async handle(c) {
      requirePermission(c.key, 'merge', 'dequeue pull requests');
      const { q, number } = prOf(c);
      if (!q.entries[String(number)]?.live)
        throw new V2Error('PR_NOT_IN_ACTIVE_STATE', `pull request #${number} is not queued`);
      await c.change('/v1/cancelPullRequest', { ...ref(q), pr: { number } });
      return { json: prAnswer(c, q, number) };
    },
  },
  {
    method: 'POST',
    path: at('pull-requests/{id}/restart-tests'),
    async handle(c) {
      requirePermission(c.key, 'merge', 'restart tests');
      const { q, number } = prOf(c);
      const e = q.entries[String(number)];
      if (!e?.live) throw new V2Error('PR_NOT_IN_ACTIVE_STATE', `pull request #${number} is not queued`);
      if (e.state !== 'testing' && e.state !== 'pending_failure') {
        throw new V2Error(
          'PR_TESTS_NOT_RESTARTABLE',
          `pull request #${number} is ${e.state}; only testing or pendingFailure entries restart`,
        );
      }
      await c.change('/v1/restartTestsOnPullRequest', { ...ref(q), pr: { number } });
      return { json: prAnswer(c, q, number) };
    },
  },
];
