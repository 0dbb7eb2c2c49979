// Looking PRs up several at a time (getSubmittedPullRequests, or one per call where it is missing).
import type { MergeQueueService } from '../api/service.js';
import { endpointMissing } from '../api/http-errors.js';
import type { RepoRef } from '../api/schemas.js';
import { ApiError } from '../errors.js';
import { batchOf } from './wire.js';

export interface Target {
  repo: RepoRef;
  targetBranch: string;
}

export const BATCH_SIZE = 50;
/** Requests in flight at a time. */
export const PARALLEL = 4;

type Obj = Record<string, unknown>;

/** Only the queue's identity goes on the wire (a Target may carry more, e.g. where it came from). */
export const base = (t: Target) => ({ repo: t.repo, targetBranch: t.targetBranch });

/** Runs `fn` over items with at most `limit` at a time, keeping order. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function chunks<T>(items: T[], size = BATCH_SIZE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface Batch {
  pullRequests: Obj[];
  notFound: number[];
  /** The service has no getSubmittedPullRequests (the HTTP status it answered): the PRs were read one per call. */
  oneByOne: number | null;
}

/** Clients whose service lacks getSubmittedPullRequests, with the status it answered: then one PR is read per call. */
const noBatchLookup = new WeakMap<MergeQueueService, number>();
const ONE_BY_ONE_PARALLEL = 6;

/** Several PRs, 50 per request (missing ones in `notFound`); one per call, a few at once, without it. */
export async function fetchBatch(
  client: MergeQueueService,
  target: Target,
  numbers: number[],
  includeTimeline = false,
): Promise<Batch> {
  const unique = [...new Set(numbers)];
  const left = new Set<number>();
  const lookUp = async (prs: number[]) => {
    if (!noBatchLookup.has(client)) {
      const req = {
        ...base(target),
        prs: prs.map((number) => ({ number })),
        ...(includeTimeline ? { includeTimeline: true } : {}),
      };
      try {
        return batchOf(await client.getSubmittedPullRequests(req));
      } catch (err) {
        if (!endpointMissing(err)) throw err;
        noBatchLookup.set(client, err.status);
      }
    }
    for (const n of prs) left.add(n);
    return { pullRequests: [], notFound: [] };
  };
  // The first request alone: a service without the endpoint is asked once.
  const [first, ...rest] = chunks(unique);
  const pages = first ? [await lookUp(first), ...(await pool(rest, PARALLEL, lookUp))] : [];
  const rereads = unique.filter((n) => left.has(n));
  if (rereads.length > 0) pages.push(await oneByOne(client, target, rereads, includeTimeline));
  return {
    pullRequests: pages.flatMap((p) => p.pullRequests),
    notFound: pages.flatMap((p) => p.notFound),
    oneByOne: noBatchLookup.get(client) ?? null,
  };
}

/** One getSubmittedPullRequest per PR; a PR the service answers 404 for (not the endpoint) is not found. */
async function oneByOne(client: MergeQueueService, target: Target, numbers: number[], includeTimeline: boolean) {
  const records = await pool(numbers, ONE_BY_ONE_PARALLEL, async (number): Promise<Obj | null> => {
    const req = { ...base(target), pr: { number } };
    try {
      const record = await (includeTimeline
        ? client.getSubmittedPullRequestWithTimeline(req)
        : client.getSubmittedPullRequest(req));
      return { ...record, prNumber: number };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && !endpointMissing(err)) return null;
      throw err;
    }
  });
  return {
    pullRequests: records.filter((r): r is Obj => r !== null),
    notFound: numbers.filter((_, i) => records[i] === null),
  };
}
