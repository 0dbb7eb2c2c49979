// Reads what `classifyFailure` needs: the PR's timeline and the checks of its failing run and of other
// runs on the same commit (a few at most). Details the service no longer keeps are skipped.
import type { PullRequestWithTimeline } from '../api/history.js';
import type { CallOptions } from '../api/http.js';
import type { TestingDetails } from '../api/schemas.js';
import type { MergeQueueService } from '../api/service.js';
import { ApiError } from '../errors.js';
import { classifyFailure, sameCommit, type FailureDecision, type RunChecks } from './failure-kind.js';
import { base, type Target } from './lookup.js';
import { clean, failingChecksOf } from './story.js';
import { timelineOf } from './wire.js';

/** Runs whose details are read: the failing one and the newest others of the same commit. */
export const MAX_RUNS_READ = 6;

export interface FailureRead {
  record: PullRequestWithTimeline;
  decision: FailureDecision;
}

/** The checks that passed and those that did not, by name. */
export function runChecksOf(runId: string, details: TestingDetails): RunChecks {
  const passed = new Set<string>();
  for (const suite of details.checkSuites ?? [])
    for (const r of suite.checkRuns ?? [])
      if ((r.conclusion ?? '').toUpperCase() === 'SUCCESS') passed.add(clean(r.name ?? '(unnamed)', 120));
  for (const s of details.statusChecks ?? [])
    if ((s.state ?? '').toUpperCase() === 'SUCCESS') passed.add(clean(s.context ?? '(unnamed)', 120));
  const failed = failingChecksOf(details).map((c) => ({ name: c.name, conclusion: c.conclusion }));
  return { runId, passed: [...passed].filter((n) => !failed.some((c) => c.name === n)), failed };
}

export async function readFailure(
  client: MergeQueueService,
  target: Target,
  pr: number,
  flakyChecks: string[],
  call?: CallOptions,
): Promise<FailureRead> {
  const record = await client.getSubmittedPullRequestWithTimeline({ ...base(target), pr: { number: pr } }, call);
  const timeline = timelineOf(record);
  const failedRun = timeline.find((t) => t.state === 'failed')?.runId ?? null;
  const ids = new Set<string>(failedRun ? [failedRun] : []);
  for (const t of sameCommit(timeline)) if (t.runId && ids.size < MAX_RUNS_READ) ids.add(t.runId);
  const runs: RunChecks[] = [];
  for (const id of ids) {
    try {
      runs.push(runChecksOf(id, await client.getMergeQueueTestingDetails({ ...base(target), testRunId: id }, call)));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
    }
  }
  return { record, decision: classifyFailure({ timeline, runs, flakyChecks }) };
}
