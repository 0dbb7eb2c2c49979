/**
 * What the summary tells about a PR that failed: the test run that failed it and that run's
 * failing checks, with links. Everything here is read from the service and treated as untrusted
 * (the summary escapes it and links only http(s) URLs).
 */
import type { MergeQueueClient } from '../lib/client.js';
import type { PrRequest, QueueTargetRequest, TestingDetails } from '../lib/types.js';

export interface FailingCheck {
  name: string;
  url?: string;
  conclusion: string;
}

const FAILED_CHECK_RUN = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);
const FAILED_STATUS = new Set(['failure', 'error']);

/** The failing checks of a test run: failed check runs and failed or errored commit statuses. */
export function failingChecksOf(details: TestingDetails): FailingCheck[] {
  const out: FailingCheck[] = [];
  for (const suite of details.checkSuites ?? []) {
    for (const run of suite.checkRuns ?? []) {
      const conclusion = (run.conclusion ?? '').toLowerCase();
      if (FAILED_CHECK_RUN.has(conclusion)) out.push({ name: run.name ?? '(unnamed check)', ...(run.url ? { url: run.url } : {}), conclusion });
    }
  }
  for (const status of details.statusChecks ?? []) {
    const state = (status.state ?? '').toLowerCase();
    if (FAILED_STATUS.has(state)) out.push({ name: status.context ?? '(unnamed status)', ...(status.url ? { url: status.url } : {}), conclusion: state });
  }
  return out.slice(0, 100);
}

export async function failingChecks(client: MergeQueueClient, target: QueueTargetRequest, testRunId: string): Promise<FailingCheck[]> {
  return failingChecksOf(await client.getMergeQueueTestingDetails({ ...target, testRunId }));
}

/** The test run that failed the PR, when the service can tell (its history endpoints). */
export async function failedRunOf(_client: MergeQueueClient, _pr: PrRequest): Promise<string | undefined> {
  return undefined;
}
