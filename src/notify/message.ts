// The message of `mq notify`: a PR that left the queue, what happened in plain words (the story's
// wording), its failing checks and the next step. Values are cleaned and bounded, not yet escaped.
import type { Target } from '../context.js';
import { isTerminal, type TerminalState } from '../domain/vocabulary.js';
import type { Story } from '../stats/story.js';
import { clean } from '../stats/story.js';

/** How a PR leaves the queue: merged, failed or cancelled. */
export type LeftState = TerminalState;

/** A PR that left the queue, as a poll of the queue or a verified webhook delivery tells it. */
export interface LeftQueueEvent {
  pr: number;
  state: LeftState;
}

/** Trunk's webhook event types for a PR leaving the queue (`pull_request.failed`, …). */
const EVENT_STATES: Record<string, LeftState> = {
  'pull_request.failed': 'failed',
  'pull_request.canceled': 'cancelled',
  'pull_request.merged': 'merged',
};

/** The event a verified webhook delivery tells, or undefined for one that is not a PR leaving the queue. */
export function leftQueueEventOf(type: string, pr: number): LeftQueueEvent | undefined {
  const state = EVENT_STATES[type];
  return state && Number.isInteger(pr) && pr > 0 ? { pr, state } : undefined;
}

export interface MessageCheck {
  name: string;
  conclusion: string;
  url: string | null;
}

/** The most failing checks a message lists; the rest are counted. */
export const MAX_CHECKS = 10;

export interface NotifyMessage {
  /** `owner/name` */
  repo: string;
  branch: string;
  pr: number;
  url: string;
  title: string;
  author: string;
  state: LeftState;
  /** `failed in the merge queue` */
  what: string;
  /** The transition that ended the trip, in plain words. */
  reason: string;
  checks: MessageCheck[];
  moreChecks: number;
  /** The next step in words, and the command for it (null: nothing to do). */
  next: { text: string; command: string | null };
  /** When it left (ISO, the service's time), when known. */
  at: string | null;
}

const WHAT: Record<LeftState, string> = {
  failed: 'failed in the merge queue',
  cancelled: 'was cancelled from the merge queue',
  merged: 'merged',
};

function nextStep(state: LeftState, reason: string, pr: number): NotifyMessage['next'] {
  const submit = `mq submit ${pr}`;
  if (state === 'merged') return { text: 'nothing to do', command: null };
  if (state === 'cancelled') {
    if (reason.includes('new commits')) return { text: 'submit it again with the new commits', command: submit };
    return { text: 'submit it again when it is ready', command: submit };
  }
  if (reason.includes('merge conflict'))
    return { text: 'merge the base branch into the PR, resolve the conflict, then submit it again', command: submit };
  if (reason.includes('timed out')) return { text: 'the run timed out: submit it again', command: submit };
  return { text: 'fix the failing checks (or, if they are flaky, submit it again)', command: submit };
}

/** The message for a PR whose record and story were read (`fetchStory`). */
export function buildMessage(record: Record<string, unknown>, story: Story, target: Target): NotifyMessage {
  const state: LeftState = isTerminal(story.state) ? story.state : 'failed';
  const trip = story.trips[0];
  const last = trip?.steps[trip.steps.length - 1];
  const text = (key: string, max: number) => (typeof record[key] === 'string' ? clean(record[key] as string, max) : '');
  const reason = last ? last.text : state;
  const { owner, name } = target.repo;
  return {
    repo: `${owner}/${name}`,
    branch: target.targetBranch,
    pr: story.pr,
    url: `https://${target.repo.host || 'github.com'}/${owner}/${name}/pull/${story.pr}`,
    title: text('prTitle', 200),
    author: text('prAuthor', 80),
    state,
    what: WHAT[state],
    reason,
    checks: story.failingChecks.slice(0, MAX_CHECKS).map((c) => ({
      name: c.name,
      conclusion: c.conclusion.toLowerCase(),
      url: c.url,
    })),
    moreChecks: Math.max(0, story.failingChecks.length - MAX_CHECKS),
    next: nextStep(state, reason, story.pr),
    at: last ? new Date(last.at).toISOString() : null,
  };
}
