/**
 * What the summary tells about a PR that failed: the test run that failed it and that run's
 * failing checks, with links. Everything here is read from the service and treated as untrusted
 * (the summary escapes it and links only http(s) URLs).
 */
import type { MergeQueueClient } from '../lib/client.js';
import { MergeQueueError } from '../lib/errors.js';
import type { QueueTargetRequest, TestingDetails } from '../lib/types.js';

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
  // A check often shows both as a check run and as a commit status: one entry per name and link.
  const seen = new Set<string>();
  return out
    .filter((c) => {
      const key = `${c.name}\n${c.url ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, 100);
}

export interface StoryStep {
  at: string;
  state: string;
  text: string;
}

export interface PrStory {
  /** The run that merged or failed the PR on its last trip, when the service tells. */
  runId: string | null;
  /** The last trip's transitions, oldest first. */
  steps: StoryStep[];
  failing: FailingCheck[];
  /** Why the failing checks could not be read, when they could not. */
  note: string | null;
}

const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
const MAX_STEPS = 50;

function words(reason: string | null | undefined): string {
  return reason ? reason.toLowerCase().replace(/_/g, ' ').slice(0, 120) : '';
}

/**
 * The PR's last trip from its timeline (getSubmittedPullRequest with includeTimeline), and for a
 * failed PR the failing checks of the run that failed it. Undefined when the service keeps no
 * timeline for it.
 */
export async function readStory(client: MergeQueueClient, target: QueueTargetRequest, pr: number): Promise<PrStory | undefined> {
  const record = await client.getSubmittedPullRequest({ ...target, pr: { number: pr }, includeTimeline: true });
  const items = (record.timeline ?? [])
    .map((t, i) => ({ t, i, at: t.timestamp ? Date.parse(t.timestamp) : Number.NaN }))
    .filter((x) => !Number.isNaN(x.at) && typeof x.t.state === 'string')
    // The service sends the newest first; equal times keep that order reversed.
    .sort((a, b) => a.at - b.at || b.i - a.i);
  if (items.length === 0) return undefined;
  // The last trip starts after the previous trip's terminal state.
  let start = 0;
  for (let k = 0; k < items.length - 1; k++) if (TERMINAL.has(items[k]?.t.state ?? '')) start = k + 1;
  const trip = items.slice(start);
  const steps: StoryStep[] = trip.slice(-MAX_STEPS).map(({ t, at }) => {
    const reason = words(t.reason);
    const run = t.testRunId ?? t.testRun?.id;
    return { at: new Date(at).toISOString(), state: t.state ?? '', text: `${reason || (t.state ?? '').replace(/_/g, ' ')}${run ? ` (run ${run})` : ''}` };
  });
  const last = trip[trip.length - 1]?.t;
  const state = last?.state ?? '';
  const runOfLast = last?.testRunId ?? last?.testRun?.id ?? null;
  const runId = state === 'merged' ? (record.verifiedByTestRun ?? runOfLast) : state === 'failed' ? runOfLast : null;
  let failing: FailingCheck[] = [];
  let note: string | null = null;
  if (state === 'failed' && runId) {
    try {
      failing = failingChecksOf(await client.getMergeQueueTestingDetails({ ...target, testRunId: runId }));
    } catch (err) {
      if (!(err instanceof MergeQueueError) || err.status !== 404) throw err;
      note = `the details of test run ${runId} are no longer kept`;
    }
    // Statuses the timeline names as the cause, when the run's details did not list them.
    for (const name of last?.failureCausingStatuses ?? []) {
      if (!failing.some((c) => c.name === name)) failing.push({ name, conclusion: 'failure' });
    }
  }
  return { runId, steps, failing: failing.slice(0, 100), note };
}
