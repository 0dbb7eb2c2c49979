// `MergeQueueClient.waitForPr`: polls a PR's record until it merges, leaves the queue or the wait ends.
import { MAX_TIMEOUT_MS } from '../api/connection-checks.js';
import { MergeQueueError, usage } from './errors.js';
import type {
  CallOptions,
  PrRequest,
  SubmittedPullRequest,
  Transition,
  WaitOutcome,
  WaitRequest,
  WaitResult,
} from './types.js';

const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
const EXIT_FOR: Record<WaitOutcome, 0 | 8 | 9> = { merged: 0, failed: 9, cancelled: 9, left_queue: 9, timeout: 8 };
const DEFAULT_WAIT_MS = 2 * 3_600_000;

function interrupted(): MergeQueueError {
  return new MergeQueueError({ exitCode: 130, what: 'wait', why: 'stopped by the abort signal' });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(interrupted());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** @internal The wait behind waitForPr; `getPr` reads the PR's record (rejecting with MergeQueueErrors). */
export async function pollPr(
  req: WaitRequest,
  getPr: (target: PrRequest, call: CallOptions) => Promise<SubmittedPullRequest>,
): Promise<WaitResult> {
  const pr = typeof req.pr === 'number' ? req.pr : req.pr?.number;
  if (typeof pr !== 'number' || !Number.isInteger(pr) || pr < 0) throw usage('pr: expected a PR number');
  const timeoutMs = req.timeoutMs ?? DEFAULT_WAIT_MS;
  const intervalMs = req.intervalMs ?? 15_000;
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0 && timeoutMs <= MAX_TIMEOUT_MS))
    throw usage('timeoutMs: expected 0 ms to about 24 days');
  if (!(Number.isFinite(intervalMs) && intervalMs >= 100 && intervalMs <= MAX_TIMEOUT_MS))
    throw usage('intervalMs: expected at least 100 ms');
  const started = Date.now();
  const deadline = started + timeoutMs;
  const transitions: Transition[] = [];
  let last: SubmittedPullRequest | null = null;
  let lastChange = started;
  let outcome: WaitOutcome = 'timeout';
  let interval = intervalMs;
  const target = { repo: req.repo, targetBranch: req.targetBranch, pr: { number: pr } };
  for (;;) {
    if (req.signal?.aborted) throw interrupted();
    let record: SubmittedPullRequest | undefined;
    try {
      // No poll, and none of its retries, runs past the wait's own deadline.
      record = await getPr(target, {
        deadline,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      interval = intervalMs;
    } catch (err) {
      if (err instanceof MergeQueueError && err.kind === 'unavailable' && Date.now() >= deadline) break;
      if (!(err instanceof MergeQueueError) || err.kind !== 'unavailable') throw err;
      req.onRetry?.(err);
      interval = Math.min(interval * 2, intervalMs * 8);
    }
    if (record) {
      const state = record.state ?? 'unknown';
      if (state !== last?.state) {
        const seen = record.stateChangedAt ? Date.parse(record.stateChangedAt) : NaN;
        const at = Number.isNaN(seen) ? Date.now() : seen;
        const t: Transition = {
          from: last?.state ?? null,
          to: state,
          at: new Date(at).toISOString(),
          afterMs: last ? Math.max(0, at - lastChange) : null,
        };
        transitions.push(t);
        lastChange = at;
        req.onTransition?.(t, record);
      }
      last = record;
      if (TERMINAL.has(state)) {
        outcome = state as WaitOutcome;
        break;
      }
      if (record.isCurrentlySubmittedToQueue === false) {
        outcome = 'left_queue';
        break;
      }
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await sleep(Math.min(interval * (0.9 + Math.random() * 0.2), remaining), req.signal);
  }
  return {
    pr,
    outcome,
    exitCode: EXIT_FOR[outcome],
    state: last?.state ?? null,
    waitedMs: Date.now() - started,
    transitions,
    pullRequest: last,
  };
}
