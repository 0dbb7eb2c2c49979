// Reading history from the service: a PR's story, a window's PRs, attempts and settings (lookup.ts).
import type { MergeQueueService } from '../api/service.js';
import type { TestingResultsPage } from '../api/history.js';
import { endpointMissing } from '../api/http-errors.js';
import type { SubmittedPullRequest } from '../api/schemas.js';
import { ApiError, MqError, UsageError } from '../errors.js';
import type { QueueInfo, Transition } from '../domain/types.js';
import type { TerminalState } from '../domain/vocabulary.js';
import type { ConcludedPr, QueueSettings, TestAttempt, Window } from './model.js';
import { buildStory, failingChecksOf, type Story } from './story.js';
import { base, BATCH_SIZE, fetchBatch, PARALLEL, type Target } from './lookup.js';
import { concludedOf, lastTripStart, testingPageOf, timelineOf } from './wire.js';

export { BATCH_SIZE, fetchBatch, type Target };

export const PAGE_SIZE = 100;
export { MAX_WINDOW_DAYS } from './window.js';

/** Runs a call, naming it `what` in its errors (`mq status` has always said `get PR #N`). */
async function renamed<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError)
      throw new ApiError(err.exitCode, what, err.why, err.status, err.body, { hints: err.hints, cause: err });
    if (err instanceof MqError && !(err instanceof UsageError))
      throw new MqError(err.exitCode, what, err.why, { hints: err.hints, cause: err });
    throw err;
  }
}

export interface StoryResult {
  record: SubmittedPullRequest;
  story: Story;
  /** Why the failing checks could not be read, when they could not. */
  checksNote: string | null;
}

/** A PR with its timeline; for a failed PR, the failing run's checks too. */
export async function fetchStory(client: MergeQueueService, target: Target, pr: number): Promise<StoryResult> {
  const record = await renamed(`get PR #${pr}`, () =>
    client.getSubmittedPullRequestWithTimeline({ ...base(target), pr: { number: pr } }),
  );
  const timeline = timelineOf(record);
  const state = typeof record.state === 'string' ? record.state.toLowerCase() : '';
  let checks: ReturnType<typeof failingChecksOf> = [];
  let checksNote: string | null = null;
  if (state === 'failed') {
    const lastFailure = timeline.find((t) => t.state === 'failed');
    const runId =
      (typeof record.verifiedByTestRun === 'string' && record.verifiedByTestRun) || lastFailure?.runId || null;
    if (runId) {
      try {
        const details = await client.getMergeQueueTestingDetails({ ...base(target), testRunId: runId });
        checks = failingChecksOf(details);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
        checksNote = `the details of run ${runId} are no longer kept`;
      }
    }
  }
  await nameThePrsAhead(client, target, timeline);
  const story = buildStory(pr, timeline, checks);
  if (story.trips.length === 0) story.state = state || 'unknown';
  if (
    story.runId === null &&
    typeof record.verifiedByTestRun === 'string' &&
    (state === 'merged' || state === 'failed')
  )
    story.runId = record.verifiedByTestRun;
  return { record, story, checksNote };
}

/** Names the failed PR ahead behind "back to pending" from the run's `dependentPrs` (at most three looks). */
async function nameThePrsAhead(client: MergeQueueService, target: Target, timeline: Transition[]): Promise<void> {
  // The timeline is newest first: the three newest such transitions, looked into oldest first.
  const todo = timeline
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => /^PREREQUISITE_MERGE_ITEM_(FAILED|CANCELLED)$/.test(t.reason) && typeof t.aheadPr !== 'number')
    .slice(0, 3)
    .reverse();
  for (const { t, i } of todo) {
    const run = timeline.slice(i + 1).find((x) => x.state === 'testing' && x.runId)?.runId;
    if (!run) continue;
    let ahead: number[];
    try {
      const details = await client.getMergeQueueTestingDetails({ ...base(target), testRunId: run });
      ahead = (details.dependentPrs ?? []).filter((n) => Number.isInteger(n));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
    if (ahead.length === 1) {
      t.aheadPr = ahead[0] as number;
      continue;
    }
    if (ahead.length === 0 || ahead.length > BATCH_SIZE) continue;
    const wanted = t.reason.endsWith('FAILED') ? 'failed' : 'cancelled';
    const { pullRequests } = await fetchBatch(client, target, ahead, true);
    const culprit = pullRequests.find((r) =>
      timelineOf(r).some((x) => x.state === wanted && Math.abs(x.at - t.at) <= 1000),
    );
    if (culprit && typeof culprit.prNumber === 'number') t.aheadPr = culprit.prNumber;
  }
}

export interface Progress {
  prs: number;
  attempts: number;
  attemptsTotal: number | null;
}

export interface WindowData {
  prs: ConcludedPr[];
  /** Empty when the service offers no testing history (`noTestingHistory`). */
  attempts: TestAttempt[];
  settings: QueueSettings | null;
  requests: number;
  /** The HTTP status a service without listMergeQueueTestingResults (not in Trunk's v1 document) answered. */
  noTestingHistory: number | null;
}

/** Every attempt finished in the window (first page, then the rest in parallel); a status if unsupported. */
async function fetchAttempts(
  client: MergeQueueService,
  target: Target,
  window: Window,
  progress: (n: number, total: number | null) => void,
  count: () => void,
): Promise<TestAttempt[] | number> {
  const body = (offset: number) => ({
    ...base(target),
    since: new Date(window.since).toISOString(),
    until: new Date(window.until).toISOString(),
    offset,
    take: PAGE_SIZE,
  });
  count();
  let first: TestingResultsPage;
  try {
    first = await client.listMergeQueueTestingResults(body(0));
  } catch (err) {
    if (endpointMissing(err)) return err.status;
    throw err;
  }
  const firstPage = testingPageOf(first);
  const attempts = [...firstPage.attempts];
  progress(attempts.length, firstPage.total);
  if (firstPage.total !== null) {
    // The total is the service's word: offsets are made as they are needed, and an empty page ends
    // the walk, so a total that overstates (or a list that shrank) costs a few requests, not millions.
    let end = firstPage.items === 0 ? 0 : firstPage.total;
    let next = PAGE_SIZE;
    const worker = async () => {
      while (next < end) {
        const o = next;
        next += PAGE_SIZE;
        count();
        const page = testingPageOf(await client.listMergeQueueTestingResults(body(o)));
        attempts.push(...page.attempts);
        progress(attempts.length, firstPage.total);
        if (page.items === 0) end = Math.min(end, o);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  } else {
    // No total: walk until a short page.
    let offset = PAGE_SIZE;
    let last = firstPage.items;
    while (last === PAGE_SIZE) {
      count();
      const page = testingPageOf(await client.listMergeQueueTestingResults(body(offset)));
      attempts.push(...page.attempts);
      progress(attempts.length, null);
      last = page.items;
      offset += PAGE_SIZE;
    }
  }
  return attempts;
}

/** The PRs of one state that concluded in the window, following cursors (a repeated cursor ends the walk). */
async function fetchConcluded(
  client: MergeQueueService,
  target: Target,
  state: TerminalState,
  window: Window,
  progress: (n: number) => void,
  count: () => void,
) {
  const out: ConcludedPr[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    count();
    const page = await client.listConcludedPullRequests({
      ...base(target),
      state,
      since: new Date(window.since).toISOString(),
      until: new Date(window.until).toISOString(),
      take: PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const items = Array.isArray(page.pullRequests) ? page.pullRequests : [];
    for (const item of items) {
      const pr = concludedOf(item);
      if (pr && pr.state === state && pr.concludedAt >= window.since && pr.concludedAt <= window.until) out.push(pr);
    }
    progress(items.length);
    const next = typeof page.nextCursor === 'string' && page.nextCursor ? page.nextCursor : undefined;
    if (!next || items.length === 0 || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return out;
}

/** Everything the statistics of a window need. `onProgress` is told as pages arrive. */
export async function fetchWindow(
  client: MergeQueueService,
  target: Target,
  window: Window,
  onProgress?: (p: Progress) => void,
  knownQueue?: QueueInfo,
): Promise<WindowData> {
  let requests = 0;
  const count = () => void requests++;
  const state: Progress = { prs: 0, attempts: 0, attemptsTotal: null };
  const tell = () => onProgress?.({ ...state });
  const [queue, attemptsOrStatus, ...byState] = await Promise.all([
    knownQueue ?? client.getQueue(target).finally(count),
    fetchAttempts(
      client,
      target,
      window,
      (n, total) => {
        state.attempts = n;
        state.attemptsTotal = total;
        tell();
      },
      count,
    ),
    ...(['merged', 'failed', 'cancelled'] as const).map((s) =>
      fetchConcluded(
        client,
        target,
        s,
        window,
        (n) => {
          state.prs += n;
          tell();
        },
        count,
      ),
    ),
  ]);
  const prs = byState.flat();
  // Entries without a submission time: read it from their timelines, 50 PRs per request.
  const missing = prs.filter((p) => p.state === 'merged' && p.submittedAt === null);
  if (missing.length > 0) {
    const { pullRequests, oneByOne } = await fetchBatch(
      client,
      target,
      missing.map((p) => p.number),
      true,
    );
    requests += oneByOne === null ? Math.ceil(missing.length / BATCH_SIZE) : missing.length;
    const starts = new Map<number, number | null>();
    for (const r of pullRequests)
      if (typeof r.prNumber === 'number') starts.set(r.prNumber, lastTripStart(timelineOf(r)));
    for (const p of missing) p.submittedAt = starts.get(p.number) ?? null;
  }
  const settings: QueueSettings = {
    concurrency: typeof queue.concurrency === 'number' ? queue.concurrency : null,
    batch: queue.batch === true,
    batchingMinSize: typeof queue.batchingMinSize === 'number' ? queue.batchingMinSize : null,
  };
  const attempts = typeof attemptsOrStatus === 'number' ? [] : attemptsOrStatus;
  return {
    prs,
    attempts,
    settings,
    requests,
    noTestingHistory: typeof attemptsOrStatus === 'number' ? attemptsOrStatus : null,
  };
}
