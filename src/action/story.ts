// The job summary's story of the PR's trip (as `mq status` tells it). All from the service, so
// untrusted: the story cleans it, the summary escapes it and links only http(s) URLs.
import { PR_STATES } from '../domain/vocabulary.js';
import { innerClient, type MergeQueueClient } from '../lib/client.js';
import type { QueueOrder } from '../lib/order-types.js';
import type { QueueTargetRequest } from '../lib/types.js';
import { fetchStory } from '../stats/fetch.js';

export interface FailingCheck {
  name: string;
  url?: string;
  conclusion: string;
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

/** A state the service sent, if it is one mq knows; anything else is `unknown` (none stays ''). */
export function knownState(state: string | null | undefined): string {
  if (!state) return '';
  return (PR_STATES as readonly string[]).includes(state) ? state : 'unknown';
}

/** The PR's last trip, read through the CLI client behind the library one; undefined without a timeline. */
export async function readStory(
  client: MergeQueueClient,
  target: QueueTargetRequest,
  pr: number,
): Promise<PrStory | undefined> {
  const { story, checksNote } = await fetchStory(innerClient(client), target, pr);
  const trip = story.trips[0];
  if (!trip) return undefined;
  return {
    runId: story.runId,
    steps: trip.steps
      .slice(-50)
      .map((st) => ({ at: new Date(st.at).toISOString(), state: knownState(st.state), text: st.text })),
    failing: story.failingChecks
      .slice(0, 100)
      .map((c) => ({ name: c.name, ...(c.url ? { url: c.url } : {}), conclusion: c.conclusion.toLowerCase() })),
    note: checksNote,
  };
}

/** The queue's dispatch order, for where the PR stands; undefined when it cannot be read (never fatal). */
export function readOrder(client: MergeQueueClient, target: QueueTargetRequest): Promise<QueueOrder | undefined> {
  return client.order(target).catch(() => undefined);
}

export interface ActionEta {
  p50: string;
  p90: string | null;
  source: 'service' | 'simulation';
}
const iso = (t: number) => new Date(t).toISOString();

/** The service's merge estimate (v2, where served), else with `simulate` mq's; undefined when none. */
export async function readEta(
  client: MergeQueueClient,
  req: QueueTargetRequest & { pr: { number: number } },
  simulate?: { origin: string; env: NodeJS.ProcessEnv },
): Promise<ActionEta | undefined> {
  const e = await client.estimate(req).catch(() => undefined);
  if (e?.status === 'available' && e.kind === 'merge' && typeof e.estimatedAt === 'number')
    return { p50: iso(e.estimatedAt), p90: null, source: 'service' };
  if (!simulate) return undefined;
  try {
    const { statusEta } = await import('../commands/status-eta.js');
    const inner = innerClient(client);
    const order = (await readOrder(client, req)) ?? null;
    const target = { repo: req.repo, targetBranch: req.targetBranch };
    const now = inner.serviceNow(() => Date.now());
    const s = await statusEta({ target, ...simulate }, inner, req.pr.number, order, now);
    return 'unavailable' in s
      ? undefined
      : { p50: iso(s.p50), p90: s.p90 === null ? null : iso(s.p90), source: s.source };
  } catch {
    return undefined; // an extra: the step reports without it
  }
}
