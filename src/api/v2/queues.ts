// The queue side of the v2 wire: a queue (settings, order, entries), its state, settings and mode,
// creating and deleting it, its PR list, metrics and verification runs, each answered as v1 does.
import type * as z from 'zod/mini';
import type {
  CreateQueueRequest,
  ListPullRequestsRequest,
  QueueTargetRequest,
  TestingDetailsRequest,
  UpdateQueueRequest,
} from '../client.js';
import { ExitCode, MqError } from '../../errors.js';
import { checked, decode } from '../decode.js';
import type { CallOptions, CallSpec, HttpResponse } from '../http.js';
import * as s from '../schemas.js';
import { PERMISSION } from './permissions.js';
import {
  ADMITTED_STATES,
  camel,
  orderSchema,
  queueRecord,
  stateChangeSchema,
  testingDetails,
  updatePlan,
  v2Mode,
  v2QueueSchema,
  verificationRunSchema,
} from './queue-wire.js';
import type { V2Base } from './base.js';
import { entryOf, pullRequestList, snake, type V2PullRequest } from './wire.js';

type Target = QueueTargetRequest;

/** The v2 client's requests and ids (base.ts). */
type V2Client = V2Base;
const enc = encodeURIComponent;
const queuePath = (id: string) => `v2/merge-queues/${enc(id)}`;
/** A mapped answer decoded as v1's would be (a bad value is the service's fault, exit 1). */
const as = <T>(schema: z.ZodMiniType<T>, raw: unknown, what: string): T => decode(schema, JSON.stringify(raw), what);

/** Stands for the id of a queue not found, in a dry run's requests (v1 describes its request regardless). */
export const UNKNOWN_QUEUE_ID = 'QUEUE_ID';

/** `use` with the queue's id; in a dry run a queue not found is described with a stand-in id. */
async function onQueueToChange<T>(
  c: V2Client,
  req: Target,
  call: CallOptions | undefined,
  use: (id: string) => Promise<T>,
) {
  try {
    return await c.onQueue(req, call, use);
  } catch (err) {
    if (!c.dryRun || !(err instanceof MqError) || err.exitCode !== ExitCode.notFound) throw err;
    return use(UNKNOWN_QUEUE_ID);
  }
}

/** Pages of a queue's PRs read at most (100 each: v2's `/order` lists at most 10,000). */
const MAX_PAGES = 100;

/** Every page of a queue's PRs in these states, by number. */
async function admittedPullRequests(c: V2Client, id: string, what: string, call?: CallOptions) {
  const found = new Map<number, V2PullRequest>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  // Bounded: an empty page, a cursor seen before or MAX_PAGES end it.
  for (let n = 0; n < MAX_PAGES; n++) {
    const query: Record<string, string> = { state: ADMITTED_STATES, limit: '100' };
    if (cursor) query.cursor = cursor;
    const page = await c.read(`${queuePath(id)}/pull-requests`, query, pullRequestList, what, call);
    for (const pr of page.data) found.set(pr.number, pr);
    cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
    if (!cursor || page.data.length === 0 || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return found;
}

/** The queue, its order and its admitted PRs, read at once. */
export function getQueue(c: V2Client, req: Target, call?: CallOptions): Promise<s.Queue> {
  const what = `get the queue for ${req.targetBranch}`;
  checked(s.queueTargetRequest, req, what);
  return c.onQueue(req, call, async (id) => {
    const [q, order, live] = await Promise.all([
      c.read(queuePath(id), {}, v2QueueSchema, what, call),
      c.read(`${queuePath(id)}/order`, {}, orderSchema, what, call),
      admittedPullRequests(c, id, what, call),
    ]);
    return as(s.queueSchema, queueRecord(q, order, live), what);
  });
}

export async function getQueueState(c: V2Client, req: Target, call?: CallOptions): Promise<string | undefined> {
  const what = `get the queue for ${req.targetBranch}`;
  checked(s.queueTargetRequest, req, what);
  const q = await c.onQueue(req, call, (id) => c.read(queuePath(id), {}, v2QueueSchema, what, call));
  return q.state ? snake(q.state) : undefined;
}

/**
 * Settings first (PATCH /config answers the queue; v2 refuses it while a mode switch is under way),
 * then the state (pause/resume/drain), then the mode (switch-modes), whose answers say state and
 * mode. Without settings the queue is read alongside the change.
 */
export async function updateQueue(c: V2Client, req: UpdateQueueRequest, call?: CallOptions) {
  const what = `update the queue for ${req.targetBranch}`;
  const plan = updatePlan(checked(s.updateQueueRequest, req, what));
  const opts = { idempotent: true, permission: PERMISSION.settings, call };
  const patching = Object.keys(plan.patch).length > 0;
  return onQueueToChange(c, req, call, async (id): Promise<s.Queue | undefined> => {
    const patch = async () => {
      const res = await c.write('PATCH', `${queuePath(id)}/config`, plan.patch, what, opts);
      return res && decode(v2QueueSchema, res.body, what);
    };
    let q = patching ? await patch() : undefined;
    const changes = async () => {
      let last: { state?: string | null; mode?: string | null } | undefined;
      if (plan.action) {
        const res = await c.write('POST', `${queuePath(id)}/${plan.action}`, undefined, what, opts);
        if (res) last = decode(stateChangeSchema, res.body, what);
      }
      if (plan.mode) {
        const res = await c.write('POST', `${queuePath(id)}/switch-modes`, { mode: plan.mode }, what, opts);
        if (res) last = decode(stateChangeSchema, res.body, what);
      }
      return last;
    };
    if (c.dryRun) {
      await changes();
      return undefined;
    }
    // A state or mode change leaves the settings as they are: without a patch, read them meanwhile.
    const [last, read] = await Promise.all([changes(), q ?? c.read(queuePath(id), {}, v2QueueSchema, what, call)]);
    q = { ...read, ...(last?.state ? { state: last.state } : {}), ...(last?.mode ? { mode: last.mode } : {}) };
    return as(s.queueSchema, queueRecord(q), what);
  });
}

/** Creates the queue and keeps its id. */
export async function createQueue(c: V2Client, req: CreateQueueRequest, call?: CallOptions): Promise<void> {
  const what = `create the queue for ${req.targetBranch}`;
  checked(s.createQueueRequest, req, what);
  const repositoryId = await c.repositoryId(req.repo, call).catch((err: unknown) => {
    // A dry run describes its request even for a repository the service does not know (as v1).
    if (c.dryRun && err instanceof MqError && err.exitCode === ExitCode.notFound) return 'REPOSITORY_ID';
    throw err;
  });
  const body: Record<string, unknown> = { repositoryId, targetBranch: req.targetBranch };
  if (req.mode) body.mode = v2Mode(req.mode);
  if (req.concurrency !== undefined) body.concurrency = req.concurrency;
  const res = await c.write('POST', 'v2/merge-queues', body, what, {
    idempotent: false,
    permission: PERMISSION.settings,
    call,
  });
  if (!res) return;
  const made = v2QueueSchema.safeParse(safeJson(res.body));
  if (made.success) c.keepQueueId(repositoryId, req.targetBranch, made.data.id);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Deletes the queue (v2 refuses one with active entries) and forgets its id. */
export async function deleteQueue(c: V2Client, req: Target, call?: CallOptions): Promise<void> {
  const what = `delete the queue for ${req.targetBranch}`;
  checked(s.queueTargetRequest, req, what);
  await onQueueToChange(c, req, call, (id) =>
    c.write('DELETE', queuePath(id), undefined, what, { idempotent: false, permission: PERMISSION.settings, call }),
  );
  if (!c.dryRun) await c.forgetQueue(req);
}

/** One page of the queue's PRs (v2 lists newest first; v1 in submission order). */
export async function listPullRequests(
  c: V2Client,
  req: ListPullRequestsRequest,
  call?: CallOptions,
): Promise<s.PullRequestPage> {
  const what = `list pull requests of ${req.targetBranch}`;
  checked(s.listPullRequestsRequest, req, what);
  const query: Record<string, string> = {};
  if (req.state) query.state = camel(req.state);
  if (req.since) query.concludedAfter = req.since;
  if (req.cursor) query.cursor = req.cursor;
  if (req.take !== undefined) query.limit = String(req.take);
  const page = await c.onQueue(req, call, (id) =>
    c.read(`${queuePath(id)}/pull-requests`, query, pullRequestList, what, call),
  );
  return as(
    s.pullRequestPageSchema,
    {
      pullRequests: page.data.map((pr) => entryOf(pr)),
      ...(page.hasMore && page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    },
    what,
  );
}

/** v1's `repo` (owner/name) and `repoHost` become the repository's id; neither: every queue. */
export async function getMergeQueueMetrics(
  c: V2Client & { http: { call(spec: CallSpec, call?: CallOptions): Promise<HttpResponse> } },
  req: { repo?: string; repoHost?: string },
  call?: CallOptions,
): Promise<{ contentType: string; body: string }> {
  const what = 'get metrics';
  const query: Record<string, string> = {};
  if (req.repo !== undefined) {
    const [owner = '', name = ''] = req.repo.split('/');
    query.repositoryId = await c.repositoryId({ host: req.repoHost ?? 'github.com', owner, name }, call);
  }
  const spec: CallSpec = { endpoint: 'v2/merge-queues/metrics', method: 'GET', query, idempotent: true, what };
  const res = await c.http.call(spec, call);
  return { contentType: res.contentType, body: res.body };
}

/** A verification run (v2 refuses v1's `-bisection` suffix: the run's id is the uuid before it). */
export async function getTestingDetails(c: V2Client, req: TestingDetailsRequest, call?: CallOptions) {
  const what = `get testing details of ${req.testRunId}`;
  checked(s.testingDetailsRequest, req, what);
  const id = req.testRunId.replace(/-bisection$/, '');
  const run = await c.read(`v2/merge-queue-verification-runs/${enc(id)}`, {}, verificationRunSchema, what, call);
  return as(s.testingDetailsSchema, testingDetails(run), what);
}
