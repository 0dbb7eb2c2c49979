// A PR's story: its timeline cut into trips (newest first) in plain words, with the deciding run and failed checks.
import { newestFirst } from '../api/history.js';
import type { Transition } from '../domain/types.js';
import { isTerminal } from '../domain/vocabulary.js';
import type { Check } from './model.js';

export interface StoryStep {
  at: number;
  state: string;
  reason: string;
  runId: string | null;
  /** The reason in plain words, e.g. "failed: required status `test` failed in run r-1". */
  text: string;
}

export interface Trip {
  /** 1 for the first trip through the queue. */
  number: number;
  startedAt: number;
  /** When it merged, failed or was cancelled; null while still in the queue. */
  endedAt: number | null;
  /** The last state of the trip. */
  outcome: string;
  /** The run that merged or failed it (null otherwise). */
  runId: string | null;
  steps: StoryStep[];
}

export interface Story {
  pr: number;
  state: string;
  /** The run that merged or failed the PR on its last trip (null otherwise). */
  runId: string | null;
  /** Newest trip first; steps inside a trip oldest first. */
  trips: Trip[];
  /** Checks of the failing run that did not pass (only for a failed PR whose run was read). */
  failingChecks: Check[];
  /** Older transitions left out of `trips` (a timeline longer than MAX_STORY_STEPS). */
  earlierSteps: number;
}

/** The newest transitions a story tells; a service may send hundreds of thousands. */
export const MAX_STORY_STEPS = 2000;

/** Service text is untrusted: no control characters, bounded length. */
export function clean(text: string, max = 200): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const t = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

const inRun = (runId: string | null) => (runId ? ` in run ${clean(runId, 80)}` : '');
const ahead = (t: Transition) => (typeof t.aheadPr === 'number' ? `PR #${t.aheadPr} ahead` : 'a PR ahead');

function statusList(names: string[]): string {
  const quoted = names.map((n) => `\`${clean(n, 80)}\``);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** One transition in plain words. `failedChecks` names the checks of a failing run, when known. */
export function describeTransition(t: Transition, failedChecks: string[] = []): string {
  if (failedChecks.length === 0 && t.statuses) failedChecks = t.statuses;
  const text = describeReason(t, failedChecks);
  // A failure reason on pending_failure: failed, but held until the PRs ahead are known.
  if (t.state === 'pending_failure' && text.startsWith('failed: '))
    return `pending failure: ${text.slice(8)}; waiting for the PRs ahead before failing it`;
  return text;
}

function describeReason(t: Transition, failedChecks: string[]): string {
  const reason = (t.reason || '').toUpperCase();
  switch (reason) {
    case 'MERGE_ITEM_NOW_READY':
      return 'ready: waiting for a test slot';
    case 'PREREQUISITE_MERGE_ITEM_FAILED':
      return `back to pending: ${ahead(t)} failed`;
    case 'PREREQUISITE_MERGE_ITEM_CANCELLED':
      return `back to pending: ${ahead(t)} was cancelled`;
    case 'BISECTION_REQUIRED':
      return 'back to pending: its batch failed; testing it in smaller groups (bisection)';
    case 'TESTS_RESTARTED_BY_USER':
    case 'TESTS_RESTARTED_BY_API_REQUEST':
      return 'back to pending: tests restarted on request';
    case 'VERIFYING_TEST_RUN_INVALIDATED':
      return 'back to pending: the run that verified it no longer counts';
    case 'SKIP_THE_LINE_INTERRUPTED':
      return 'back to pending: a PR skipped the line ahead of it';
    case 'TEST_RUN_STARTED':
      return `testing${inRun(t.runId)}`;
    case 'TEST_RUN_PASSED':
      return `tests passed${inRun(t.runId)}`;
    case 'BISECTION_TEST_RUN_PASSED':
      return `tests passed in bisection${inRun(t.runId)}`;
    case 'SUCCESSOR_TEST_RUN_PASSED':
      return `tests passed: a run including it further back passed${inRun(t.runId)}`;
    case 'MERGE_GRAPH_MERGE':
      return t.runId ? `merged after run ${clean(t.runId, 80)} passed` : 'merged';
    case 'MERGE_GRAPH_DIRECT_MERGE':
      return 'merged directly (up to date)';
    case 'MANUAL_MERGE':
      return 'merged by hand outside the queue';
    case 'TEST_RUN_REQUIRED_STATUS_FAILED':
      return failedChecks.length > 0
        ? `failed: required status ${statusList(failedChecks)} failed${inRun(t.runId)}`
        : `failed: a required status failed${inRun(t.runId)}`;
    case 'TEST_RUN_TIMEOUT':
      return `failed: run ${t.runId ? `${clean(t.runId, 80)} ` : ''}timed out`;
    case 'START_TEST_RUN_MERGE_CONFLICT':
      return 'failed: merge conflict while making its test branch';
    case 'TEST_RUN_FAILED_BY_OPTIMIZATION':
      return `failed: its batch failed${inRun(t.runId)} and bisection skipped retesting it`;
    case 'PR_PUSHED_TO':
      return 'cancelled: new commits were pushed to the PR';
    case 'PR_BASE_BRANCH_CHANGED':
      return "cancelled: the PR's base branch changed";
    case 'USER_REQUESTED':
      if (t.state === 'cancelled') return 'cancelled on request';
      if (t.state === 'not_ready') return 'submitted: waiting until it is ready to test';
      return `${t.state.replace(/_/g, ' ')} on request`;
    case '':
      return t.state.replace(/_/g, ' ');
    default: {
      const words = clean(reason.toLowerCase().replace(/_/g, ' '), 120);
      return `${t.state.replace(/_/g, ' ')}: ${words}`;
    }
  }
}

/** Cuts a `newestFirst` timeline into trips ending at merge, failure or cancel; only MAX_STORY_STEPS told. */
export function buildStory(pr: number, timeline: Transition[], failingChecks: Check[] = []): Story {
  const newest = newestFirst(timeline, (t) => t.at);
  const sorted = newest.slice(0, MAX_STORY_STEPS).reverse();
  const failedNames = failingChecks.map((c) => c.name);
  const trips: Trip[] = [];
  let current: Trip | undefined;
  for (const t of sorted) {
    if (!current || current.endedAt !== null) {
      current = { number: trips.length + 1, startedAt: t.at, endedAt: null, outcome: t.state, runId: null, steps: [] };
      trips.push(current);
    }
    current.steps.push({
      at: t.at,
      state: t.state,
      reason: clean(t.reason, 80),
      runId: t.runId === null ? null : clean(t.runId, 80),
      text: describeTransition(t),
    });
    current.outcome = t.state;
    if (isTerminal(t.state)) {
      current.endedAt = t.at;
      current.runId = t.state === 'cancelled' || t.runId === null ? null : clean(t.runId, 80);
    }
  }
  // The checks name the failure of the latest trip only (they come from its failing run).
  const latest = trips[trips.length - 1];
  if (latest && failedNames.length > 0) {
    for (const step of latest.steps) {
      if (step.state === 'failed') step.text = describeTransition({ ...step, reason: step.reason }, failedNames);
    }
  }
  const last = trips[trips.length - 1];
  return {
    pr,
    state: last?.outcome ?? 'unknown',
    runId: last?.runId ?? null,
    trips: [...trips].reverse(),
    failingChecks,
    earlierSteps: newest.length - sorted.length,
  };
}

/** Checks that did not pass, from a run's testing details (check runs and commit statuses). */
export function failingChecksOf(details: {
  checkSuites?: Array<{
    checkRuns?: Array<{ name?: string | null; url?: string | null; conclusion?: string | null }> | null;
  }> | null;
  statusChecks?: Array<{ context?: string | null; url?: string | null; state?: string | null }> | null;
}): Check[] {
  const out: Check[] = [];
  const bad = new Set(['FAILURE', 'TIMED_OUT', 'CANCELLED', 'ACTION_REQUIRED', 'STALE', 'ERROR']);
  for (const suite of details.checkSuites ?? []) {
    for (const run of suite.checkRuns ?? []) {
      const conclusion = (run.conclusion ?? '').toUpperCase();
      if (bad.has(conclusion))
        out.push({ name: clean(run.name ?? '(unnamed)', 120), conclusion, url: safeUrl(run.url) });
    }
  }
  for (const s of details.statusChecks ?? []) {
    const state = (s.state ?? '').toUpperCase();
    // The same status often comes both as a check run and as a commit status: list it once.
    if (out.some((c) => c.name === clean(s.context ?? '(unnamed)', 120))) continue;
    if (state === 'FAILURE' || state === 'ERROR')
      out.push({ name: clean(s.context ?? '(unnamed)', 120), conclusion: state, url: safeUrl(s.url) });
  }
  return out;
}

/** Only http(s) URLs are shown; anything else from the service is dropped. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? clean(u.toString(), 500) : null;
  } catch {
    return null;
  }
}
