// The fake code host: PRs and what their runs will do. A push or retarget removes an admitted PR (T16);
// a NOT_READY PR only has its readiness re-evaluated.
import { badRequest } from './errors.js';
import { prKey, queueKey, repoKey, type Core } from './lifecycle.js';
import { sha } from './random.js';
import { DEFAULT_TEST_MINUTES } from './runs.js';
import { leaveQueue, tryAdmit } from './membership.js';
import { reconcile } from './scheduler.js';
import { RUN_OUTCOMES, type FakePr, type QueueRecord, type RepoRef, type RunOutcome } from './types.js';
import { MAX_U32 } from '../../domain/vocabulary.js';

export interface FakePrInput {
  repo: RepoRef;
  number: number;
  title?: string;
  author?: string;
  sha?: string;
  /** Head branch (default `pr-<number>`). */
  branch?: string;
  baseBranch?: string;
  mergeable?: boolean;
  breaksBuild?: boolean;
  outcomes?: RunOutcome[];
  testMinutes?: number;
  /** Based on its branch's tip (direct merge needs it; default false) until the next merge into it. */
  upToDate?: boolean;
}

/** A fake PR as the control API shows it. */
export type FakePrView = Omit<FakePr, 'upToDateTip'> & { upToDate: boolean };

export const DEFAULT_AUTHOR = 'emulator-user';

export function newFakePr(core: Core, repo: RepoRef, number: number, baseBranch: string | null): FakePr {
  return {
    repo: { host: repo.host, owner: repo.owner, name: repo.name },
    number,
    title: `PR #${number}`,
    author: DEFAULT_AUTHOR,
    sha: sha(core.state),
    baseBranch,
    mergeable: true,
    breaksBuild: false,
    outcomes: [],
    testMinutes: DEFAULT_TEST_MINUTES,
    upToDateTip: null,
  };
}

export function wireFakePr(core: Core, pr: FakePr): FakePrView {
  const { upToDateTip, ...rest } = pr;
  const q = pr.baseBranch === null ? undefined : core.state.queues[queueKey(pr.repo, pr.baseBranch)];
  return {
    ...rest,
    repo: { ...rest.repo },
    outcomes: [...rest.outcomes],
    upToDate: upToDateTip !== null && upToDateTip > (q?.tipSeq ?? 0),
  };
}

/** The PR a submission refers to; an unknown one is created with defaults, based on the queue's branch. */
export function ensureFakePr(core: Core, q: QueueRecord, number: number): FakePr {
  const key = prKey(q.repo, number);
  let pr = core.state.fakePrs[key];
  if (!pr) {
    pr = newFakePr(core, q.repo, number, q.branch);
    core.state.fakePrs[key] = pr;
  }
  // A PR created through the control API without a base takes the branch of the first queue it is
  // submitted to, so scripting outcomes never requires knowing the branch in advance.
  if (pr.baseBranch === null) pr.baseBranch = q.branch;
  return pr;
}

function check(input: FakePrInput): void {
  if (!Number.isInteger(input.number) || input.number < 0 || input.number > MAX_U32) {
    throw badRequest(`number: expected integer 0..${MAX_U32}`);
  }
  if (input.testMinutes !== undefined && !(Number.isFinite(input.testMinutes) && input.testMinutes > 0)) {
    throw badRequest('testMinutes: expected a number greater than 0');
  }
  input.outcomes?.forEach((o, i) => {
    if (!RUN_OUTCOMES.includes(o)) throw badRequest(`outcomes.${i}: expected one of pass, fail, hang`);
  });
}

export function upsertFakePr(core: Core, input: FakePrInput): FakePrView {
  check(input);
  const key = prKey(input.repo, input.number);
  const existing = core.state.fakePrs[key];
  const pr = existing ?? newFakePr(core, input.repo, input.number, null);
  const oldSha = pr.sha;
  const oldBase = pr.baseBranch;
  if (input.title !== undefined) pr.title = input.title;
  if (input.author !== undefined) pr.author = input.author;
  if (input.sha !== undefined) pr.sha = input.sha;
  if (input.branch !== undefined) pr.branch = input.branch;
  if (input.baseBranch !== undefined) pr.baseBranch = input.baseBranch;
  if (input.mergeable !== undefined) pr.mergeable = input.mergeable;
  if (input.breaksBuild !== undefined) pr.breaksBuild = input.breaksBuild;
  if (input.outcomes !== undefined) pr.outcomes = [...input.outcomes];
  if (input.testMinutes !== undefined) pr.testMinutes = input.testMinutes;
  // Declared up to date now: stale again after the next merge into its branch (see isUpToDate).
  if (input.upToDate !== undefined) pr.upToDateTip = input.upToDate ? ++core.state.seq : null;
  core.state.fakePrs[key] = pr;

  const rk = repoKey(input.repo);
  for (const q of Object.values(core.state.queues)) {
    if (repoKey(q.repo) !== rk) continue;
    const e = q.entries[String(input.number)];
    if (!e?.live) continue;
    const admitted = e.state !== 'not_ready';
    if (admitted && existing && pr.sha !== oldSha) {
      leaveQueue(core, q, e, 'cancelled', 'PR_PUSHED_TO');
    } else if (admitted && oldBase !== null && pr.baseBranch !== oldBase && pr.baseBranch !== q.branch) {
      leaveQueue(core, q, e, 'cancelled', 'PR_BASE_BRANCH_CHANGED');
    } else if (!admitted) {
      tryAdmit(core, q, e);
    }
    reconcile(core, q);
  }
  return wireFakePr(core, pr);
}
