/**
 * Verification runs over v2: v1's test runs under the same ids (v2 refuses v1's `-bisection`
 * suffix), one by id (with its impacted targets), a queue's, and a PR's (the runs that tested it);
 * lists newest first.
 */
import type { QueueRecord, RunDetailsView, TestRun } from '../../engine/index.js';
import { iso } from '../wire.js';
import { at, prOf, queueOf, ref, type V2Context, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { pullRequestId, queueId } from './ids.js';
import { page } from './paging.js';

const STATUS = { in_progress: 'inProgress', succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled' };
const SOURCE = { merge_instance: 'mergeInstance', repo_provider_branch_protection: 'repoProviderBranchProtection' };

function prRef(c: V2Context, q: QueueRecord, n: number, title?: string) {
  const v = q.entries[String(n)] ? c.engine.getSubmittedPullRequest({ ...ref(q), pr: { number: n } }, c.now) : null;
  const url = `https://${q.repo.host}/${q.repo.owner}/${q.repo.name}/pull/${n}`;
  return { id: pullRequestId(q.repo, n), number: n, sha: v?.sha ?? '', title: v?.title ?? title ?? `PR #${n}`, url };
}

/** Most target names a set lists (`totalImpactedTargets` counts them all). */
const TARGETS_MAX = 100_000;

/** The targets uploaded for the PRs' current heads (a PR with none adds nothing); none uploaded: undefined. */
function targetSet(c: V2Context, q: QueueRecord, prs: readonly number[]) {
  const uploads = prs.flatMap((n) => {
    const sha = q.entries[String(n)] && c.engine.getSubmittedPullRequest({ ...ref(q), pr: { number: n } }, c.now).sha;
    const t = sha ? q.impactedTargets[String(n)]?.[sha] : undefined;
    return t === undefined ? [] : [t];
  });
  if (uploads.length === 0) return undefined;
  if (uploads.includes('ALL')) return { impactsAllTargets: true, impactedTargets: [], totalImpactedTargets: 0 };
  const names = [...new Set(uploads.flat())].sort();
  return { impactsAllTargets: false, impactedTargets: names.slice(0, TARGETS_MAX), totalImpactedTargets: names.length };
}

/** A run's impacted targets: every commit on it (`all`) and the tested PRs' (`testedPullRequestsOnly`). */
function runTargets(c: V2Context, q: QueueRecord, r: RunDetailsView) {
  const tested = r.testedPullRequests.map((t) => t.prNumber);
  const all = targetSet(c, q, [...r.basePrNumbers, ...tested]);
  if (!all) return {};
  const only = targetSet(c, q, tested);
  return { impactedTargets: { all, ...(only ? { testedPullRequestsOnly: only } : {}) } };
}

function v2Run(c: V2Context, q: QueueRecord, r: RunDetailsView, byId: boolean) {
  const github = q.repo.host === 'github.com';
  return {
    id: r.id,
    isBisection: r.isBisection,
    testBranch: r.testBranch,
    testBranchSha: r.testBranchSha,
    ...(github
      ? { testBranchCommitUrl: `https://github.com/${q.repo.owner}/${q.repo.name}/commit/${r.testBranchSha}` }
      : {}),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.completedAt ?? r.createdAt),
    status: STATUS[r.status],
    requiredStatusesSource: SOURCE[r.requiredStatusesSource],
    requiredStatuses: r.requiredStatuses,
    // The emulator keeps no per-check records.
    checks: [],
    testedPullRequests: r.testedPullRequests.map((t) => prRef(c, q, t.prNumber, t.title)),
    dependentPullRequests: r.basePrNumbers.map((n) => prRef(c, q, n)),
    // Only on a run read by id, never in a list.
    ...(byId ? runTargets(c, q, r) : {}),
  };
}

const details = (c: V2Context, q: QueueRecord, run: TestRun, byId = false) =>
  v2Run(c, q, c.engine.getTestingDetails({ ...ref(q), testRunId: run.id }, c.now), byId);

/** The queue's runs that pass `keep` and the `status` filter, newest first. */
function runsOf(c: V2Context, q: QueueRecord, keep: (r: TestRun) => boolean): TestRun[] {
  const status = c.url.searchParams.get('status');
  if (status !== null && !Object.values(STATUS).includes(status))
    throw new V2Error('VALIDATION_FAILED', `status: expected one of ${Object.values(STATUS).join(', ')}`);
  return Object.values(c.engine.state.runs)
    .filter((r) => r.queueKey === q.key && keep(r) && (status === null || STATUS[r.status] === status))
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
}

export const verificationRoutes: V2Route[] = [
  {
    method: 'GET',
    path: at('merge-queue-verification-runs/{id}'),
    handle(c) {
      c.engine.advance(c.now);
      const id = c.params[0] as string;
      const run = Object.hasOwn(c.engine.state.runs, id) ? c.engine.state.runs[id] : undefined;
      const q = run && Object.values(c.engine.state.queues).find((x) => x.key === run.queueKey);
      if (!run || !q) throw new V2Error('VERIFICATION_RUN_NOT_FOUND', `no verification run has id ${id}`);
      return { json: details(c, q, run, true) };
    },
  },
  {
    method: 'GET',
    path: at('merge-queues/{id}/verification-runs'),
    handle(c) {
      const q = queueOf(c);
      const raw = c.url.searchParams.get('createdAfter');
      const after = raw === null ? null : /^\d{4}-\d\d-\d\dT/.test(raw) ? Date.parse(raw) : Number.NaN;
      if (after !== null && !Number.isFinite(after))
        throw new V2Error('VALIDATION_FAILED', 'createdAfter: expected an ISO-8601 date-time');
      const rows = runsOf(c, q, (r) => after === null || r.createdAt > after);
      const filter = `${c.url.searchParams.get('status') ?? ''}\0${raw ?? ''}`;
      return { json: page(c.url, `runs ${queueId(q)}`, filter, rows, (r) => details(c, q, r)) };
    },
  },
  {
    method: 'GET',
    path: at('pull-requests/{id}/verification-runs'),
    handle(c) {
      if (c.url.searchParams.has('createdAfter'))
        throw new V2Error('VALIDATION_FAILED', "createdAfter: not taken on a pull request's runs");
      const { q, number } = prOf(c);
      const rows = runsOf(c, q, (r) => r.group.includes(number));
      const filter = `${c.params[0] as string}\0${c.url.searchParams.get('status') ?? ''}`;
      return { json: page(c.url, 'pr-runs', filter, rows, (r) => details(c, q, r)) };
    },
  },
];
