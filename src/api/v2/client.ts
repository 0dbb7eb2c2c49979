// The v2 wire (Trunk's `/v2` API, Bearer keys) behind the same operations as the v1 client. v2
// addresses everything by id: ids are resolved once and kept (ids.ts); an id the service no longer
// knows (404) is resolved again, once. Answers become the records the commands already print.
import type * as z from 'zod/mini';
import { ApiError, ExitCode, MqError } from '../../errors.js';
import type {
  ClientOptions,
  CreateQueueRequest,
  ListPullRequestsRequest,
  PrRequest,
  QueueTargetRequest,
  SubmitRequest,
  TestingDetailsRequest,
  UpdateQueueRequest,
} from '../client.js';
import type * as h from '../history.js';
import { decode } from '../decode.js';
import type { CallOptions, CallSpec, HttpClient, HttpResponse } from '../http.js';
import type { PullRequestPage, Queue, RepoRef, SubmittedPullRequest, TestingDetails } from '../schemas.js';
import type { StreamBody } from '../transport.js';
import type { MergeQueueService } from '../service.js';
import type { CredentialCheck, CredentialCheckRequest } from '../credential.js';
import { checkV2Credential } from './credential.js';
import type { IdStore } from './ids.js';
import { idList, prRecord, pullRequestList, pullRequestSchema, type V2PullRequest } from './wire.js';

type Method = CallSpec['method'];
interface Target {
  repo: RepoRef;
  targetBranch: string;
}

/** Key permissions as Trunk names them (Settings → Developer → API Keys). */
export const PERMISSION = {
  merge: 'Merge and cancel PRs',
  priority: 'Set priority on PRs',
  skipBatching: 'Skip batching',
  settings: 'Update Merge Queue settings',
} as const;

const enc = encodeURIComponent;
const repoKey = (r: RepoRef) => `repo ${r.host}/${r.owner}/${r.name}`;
const prLabel = (n: number) => `PR #${n}`;

/** A 404 saying the id itself is unknown (so a kept id may be stale). */
function unknownId(err: unknown, code: string): boolean {
  return err instanceof ApiError && err.status === 404 && (err.code === undefined || err.code === code);
}

export class V2Client implements MergeQueueService {
  readonly api = 'v2' as const;
  constructor(
    readonly http: HttpClient,
    private readonly ids: IdStore,
    private readonly options: ClientOptions = {},
  ) {}

  get dryRun(): boolean {
    return this.options.dryRun !== undefined;
  }

  serviceNow(localNow: () => number): number {
    return this.http.serviceClockOffsetMs === undefined ? localNow() : this.http.serviceNow();
  }

  /** Stands for an operation not yet carried on v2. */
  notYet(what: string): never {
    throw new MqError(ExitCode.unexpected, what, 'not available on the v2 API yet', {
      hints: ['use the v1 API for now: --api v1 with an organization token'],
    });
  }

  // ---- requests ---------------------------------------------------------------------------------

  async read<T>(
    path: string,
    query: Record<string, string>,
    schema: z.ZodMiniType<T>,
    what: string,
    call?: CallOptions,
  ): Promise<T> {
    const res = await this.http.call({ endpoint: path, method: 'GET', query, idempotent: true, what }, call);
    return decode(schema, res.body, what);
  }

  /** A change; in a dry run it is described, not sent (and undefined comes back). */
  async write(
    method: Method,
    path: string,
    body: unknown,
    what: string,
    opts: { idempotent: boolean; permission: string; call?: CallOptions },
  ): Promise<HttpResponse | undefined> {
    const spec: CallSpec = {
      endpoint: path,
      method,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      idempotent: opts.idempotent,
      what,
      permission: opts.permission,
    };
    if (this.options.dryRun) {
      this.options.dryRun(this.http.describe(spec));
      return undefined;
    }
    return this.http.call(spec, opts.call);
  }

  /** One read any key may make; with `probeWrite`, a dequeue no PR can match tells whether it may write. */
  checkCredential(req: CredentialCheckRequest, call?: CallOptions): Promise<CredentialCheck> {
    return checkV2Credential(this, PERMISSION.merge, req, call);
  }

  // ---- ids --------------------------------------------------------------------------------------

  /** Runs `use` with the id under `key`, resolving it when unknown; a cached id answered 404 is resolved again. */
  async withId<T>(
    key: string,
    notFoundCode: string,
    resolve: () => Promise<string>,
    use: (id: string) => Promise<T>,
  ): Promise<T> {
    const cached = this.ids.get(key);
    if (cached !== undefined) {
      try {
        return await use(cached);
      } catch (err) {
        if (!unknownId(err, notFoundCode)) throw err;
        this.ids.drop(key);
      }
    }
    const id = await resolve();
    this.ids.set(key, id);
    return use(id);
  }

  /** PRs as a write or lookup just answered them, by id (see takeFresh). */
  private readonly fresh = new Map<string, V2PullRequest>();
  /** Lookups in flight, so parallel reads of a cold cache ask once. */
  private readonly resolving = new Map<string, Promise<string>>();

  async repositoryId(repo: RepoRef, call?: CallOptions): Promise<string> {
    const key = repoKey(repo);
    const cached = this.ids.get(key);
    if (cached !== undefined) return cached;
    let pending = this.resolving.get(key);
    if (!pending) {
      pending = this.lookUpRepository(repo, key, call);
      this.resolving.set(key, pending);
      pending.then(
        () => this.resolving.delete(key),
        () => this.resolving.delete(key),
      );
    }
    return pending;
  }

  private async lookUpRepository(repo: RepoRef, key: string, call?: CallOptions): Promise<string> {
    const url = `https://${repo.host}/${repo.owner}/${repo.name}`;
    const what = `find the repository ${repo.host}/${repo.owner}/${repo.name}`;
    const page = await this.read('v2/repositories', { providerUrl: url }, idList, what, call);
    const id = page.data[0]?.id;
    if (id === undefined) throw new MqError(ExitCode.notFound, what, 'the service does not know this repository');
    this.ids.set(key, id);
    return id;
  }

  /** The queue's id; a branch without a queue is not found (exit 3), as in v1. */
  async queueId(target: Target, call?: CallOptions): Promise<string> {
    const repositoryId = await this.repositoryId(target.repo, call);
    const key = `queue ${repositoryId} ${target.targetBranch}`;
    const cached = this.ids.get(key);
    if (cached !== undefined) return cached;
    const what = `find the queue for ${target.targetBranch}`;
    const page = await this.read(
      'v2/merge-queues',
      { repositoryId, targetBranch: target.targetBranch },
      idList,
      what,
      call,
    );
    const id = page.data[0]?.id;
    if (id === undefined) {
      throw new ApiError(ExitCode.notFound, what, `there is no merge queue for ${target.targetBranch}`, 404, '', {
        hints: ['list the queues with `mq queue show -B BRANCH`, or create one with `mq queue create`'],
      });
    }
    this.ids.set(key, id);
    return id;
  }

  /** `use` with the queue's id; a kept id answered 404 is resolved again once. */
  async onQueue<T>(target: Target, call: CallOptions | undefined, use: (id: string) => Promise<T>) {
    const repositoryId = await this.repositoryId(target.repo, call);
    const key = `queue ${repositoryId} ${target.targetBranch}`;
    return this.withId(key, 'MERGE_QUEUE_NOT_FOUND', () => this.queueId(target, call), use);
  }

  /** Forgets a queue's id (it was deleted, or the service no longer knows it). */
  async forgetQueue(target: Target): Promise<void> {
    const repositoryId = this.ids.get(repoKey(target.repo));
    if (repositoryId !== undefined) this.ids.drop(`queue ${repositoryId} ${target.targetBranch}`);
  }

  /** The PRs of these numbers the service knows (≤ 50 per call), by number; their ids are kept. */
  async resolvePullRequests(repositoryId: string, numbers: number[], what: string, call?: CallOptions) {
    const found = new Map<number, V2PullRequest>();
    let cursor: string | undefined;
    do {
      const query: Record<string, string> = { repositoryId, number: numbers.join(','), limit: '100' };
      if (cursor) query.cursor = cursor;
      const page = await this.read('v2/pull-requests', query, pullRequestList, what, call);
      for (const pr of page.data) {
        found.set(pr.number, pr);
        this.ids.set(`pr ${repositoryId} ${pr.number}`, pr.id);
        this.fresh.set(pr.id, pr);
      }
      cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
    } while (cursor);
    return found;
  }

  notInQueue(target: Target, n: number, what: string): ApiError {
    return new ApiError(
      ExitCode.notFound,
      what,
      `${prLabel(n)} is not in the merge queue for ${target.targetBranch}`,
      404,
      '',
    );
  }

  /** A PR's id (resolved when not kept); a number the service does not know is not found. */
  async pullRequestId(target: Target, n: number, what: string, call?: CallOptions): Promise<string> {
    const repositoryId = await this.repositoryId(target.repo, call);
    const cached = this.ids.get(`pr ${repositoryId} ${n}`);
    if (cached !== undefined) return cached;
    const pr = (await this.resolvePullRequests(repositoryId, [n], what, call)).get(n);
    if (!pr) throw this.notInQueue(target, n, what);
    return pr.id;
  }

  /** `use` with the PR's id; a kept id answered 404 is resolved again once. */
  async onPullRequest<T>(
    req: PrRequest,
    what: string,
    use: (id: string) => Promise<T>,
    call?: CallOptions,
  ): Promise<T> {
    const repositoryId = await this.repositoryId(req.repo, call);
    const n = req.pr.number;
    return this.withId(`pr ${repositoryId} ${n}`, 'PR_NOT_FOUND', () => this.pullRequestId(req, n, what, call), use);
  }

  // ---- pull requests ----------------------------------------------------------------------------

  /** v2 refuses to resubmit a live PR; a new priority or batching choice then patches its entry (v1 upserts). */
  async submitPullRequest(req: SubmitRequest, call?: CallOptions): Promise<void> {
    const what = `submit ${prLabel(req.pr.number)}`;
    const body: Record<string, unknown> = { number: req.pr.number };
    if (typeof req.priority === 'number') body.priorityValue = req.priority;
    else if (req.priority !== undefined) body.priorityName = req.priority;
    if (req.noBatch) body.allowBatching = false;
    const permission = req.priority !== undefined ? PERMISSION.priority : PERMISSION.merge;
    try {
      await this.onQueue(req, call, async (queueId) => {
        const res = await this.write('POST', `v2/merge-queues/${enc(queueId)}/pull-requests`, body, what, {
          idempotent: false,
          permission,
          call,
        });
        this.keepAnswer(res, req);
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'PR_ALREADY_ENQUEUED') throw err;
      const { number: _n, ...patch } = body;
      if (req.noBatch === false) patch.allowBatching = true;
      if (Object.keys(patch).length === 0) return;
      const res = await this.onPullRequest(
        req,
        what,
        (id) =>
          this.write('PATCH', `v2/pull-requests/${enc(id)}/queue-entry`, patch, what, {
            idempotent: true,
            permission,
            call,
          }),
        call,
      );
      this.keepAnswer(res, req);
    }
  }

  /** A write's answer (the PR after it): its id is kept, and the next read of it is this answer. */
  private keepAnswer(res: HttpResponse | undefined, req: PrRequest): void {
    if (!res) return;
    try {
      const pr = pullRequestSchema.safeParse(JSON.parse(res.body));
      const repositoryId = this.ids.get(repoKey(req.repo));
      if (!pr.success || pr.data.number !== req.pr.number || repositoryId === undefined) return;
      this.ids.set(`pr ${repositoryId} ${pr.data.number}`, pr.data.id);
      this.fresh.set(pr.data.id, pr.data);
    } catch {
      // not a PR: the next read asks
    }
  }

  /** The PR as an answer just gave it, once: a read right after a write or a lookup costs no request. */
  private takeFresh(id: string): V2PullRequest | undefined {
    const pr = this.fresh.get(id);
    this.fresh.delete(id);
    return pr;
  }

  /** v2 acts on a PR by id whatever its queue: first make sure its entry is in this one, as v1's call is. */
  private async prAction(req: PrRequest, action: 'dequeue' | 'restart-tests', what: string, call?: CallOptions) {
    await this.entryInQueue(req, what, call);
    return this.onPullRequest(
      req,
      what,
      async (id) => {
        const res = await this.write('POST', `v2/pull-requests/${enc(id)}/${action}`, undefined, what, {
          idempotent: false,
          permission: PERMISSION.merge,
          call,
        });
        this.keepAnswer(res, req);
      },
      call,
    );
  }

  cancelPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    return this.prAction(req, 'dequeue', `cancel ${prLabel(req.pr.number)}`, call);
  }

  restartTestsOnPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    return this.prAction(req, 'restart-tests', `restart ${prLabel(req.pr.number)}`, call);
  }

  /** The PR's record; one not in this queue (never submitted, or another branch's) is not found, as in v1. */
  async getSubmittedPullRequest(req: PrRequest, call?: CallOptions): Promise<SubmittedPullRequest> {
    return prRecord(await this.entryInQueue(req, `get ${prLabel(req.pr.number)}`, call));
  }

  private async entryInQueue(req: PrRequest, what: string, call?: CallOptions): Promise<V2PullRequest> {
    const [queueId, pr] = await Promise.all([
      this.queueId(req, call),
      this.onPullRequest(
        req,
        what,
        async (id) => this.takeFresh(id) ?? this.read(`v2/pull-requests/${enc(id)}`, {}, pullRequestSchema, what, call),
        call,
      ),
    ]);
    if (!pr.queueEntry || (pr.queueEntry.mergeQueueId && pr.queueEntry.mergeQueueId !== queueId)) {
      throw this.notInQueue(req, req.pr.number, what);
    }
    return pr;
  }

  // ---- history (to be done: timeline, several PRs, testing results, concluded PRs) ------------------

  getSubmittedPullRequestWithTimeline(
    req: Omit<h.GetPullRequestWithTimelineRequest, 'includeTimeline'>,
    _call?: CallOptions,
  ): Promise<h.PullRequestWithTimeline> {
    return this.notYet(`get the timeline of ${prLabel(req.pr.number)}`);
  }
  getSubmittedPullRequests(req: h.GetPullRequestsRequest, _call?: CallOptions): Promise<h.PullRequestsLookup> {
    return this.notYet(`get pull requests of ${req.targetBranch}`);
  }
  listMergeQueueTestingResults(req: h.TestingResultsRequest, _call?: CallOptions): Promise<h.TestingResultsPage> {
    return this.notYet(`list testing results of ${req.targetBranch}`);
  }
  listConcludedPullRequests(req: h.ListConcludedPullRequestsRequest, _call?: CallOptions): Promise<PullRequestPage> {
    return this.notYet(`list concluded pull requests of ${req.targetBranch}`);
  }

  /** v2's upload head (ids for v1's coordinates) and how it says "every target". */
  async impactedTargetsHead(
    req: { repo: RepoRef; targetBranch: string; pr: { number: number; sha: string } },
    call?: CallOptions,
  ): Promise<{ head: Record<string, unknown>; all: Record<string, unknown> }> {
    const repositoryId = await this.repositoryId(req.repo, call);
    return {
      head: { repositoryId, targetBranch: req.targetBranch, number: req.pr.number, sha: req.pr.sha },
      all: { impactsAllTargets: true },
    };
  }

  /** The body was made by the command from impactedTargetsHead; the last upload for a sha wins. */
  async setImpactedTargets(
    req: { pr: { number: number } },
    call: CallOptions & { body?: string | StreamBody },
  ): Promise<void> {
    const what = `set impacted targets of ${prLabel(req.pr.number)}`;
    const spec: CallSpec = {
      endpoint: 'v2/impacted-targets',
      method: 'PUT',
      body: call.body,
      idempotent: true,
      what,
      permission: PERMISSION.merge,
    };
    if (this.options.dryRun) {
      this.options.dryRun(this.http.describe(spec));
      return;
    }
    await this.http.call(spec, call);
  }

  // ---- queues (to be done) ----------------------------------------------------------------------

  getMergeQueueTestingDetails(req: TestingDetailsRequest, _call?: CallOptions): Promise<TestingDetails> {
    return this.notYet(`get testing details of ${req.testRunId}`);
  }
  createQueue(req: CreateQueueRequest, _call?: CallOptions): Promise<void> {
    return this.notYet(`create the queue for ${req.targetBranch}`);
  }
  deleteQueue(req: QueueTargetRequest, _call?: CallOptions): Promise<void> {
    return this.notYet(`delete the queue for ${req.targetBranch}`);
  }
  getQueue(req: QueueTargetRequest, _call?: CallOptions): Promise<Queue> {
    return this.notYet(`get the queue for ${req.targetBranch}`);
  }
  getQueueState(req: QueueTargetRequest, _call?: CallOptions): Promise<string | undefined> {
    return this.notYet(`get the queue for ${req.targetBranch}`);
  }
  updateQueue(req: UpdateQueueRequest, _call?: CallOptions): Promise<Queue | undefined> {
    return this.notYet(`update the queue for ${req.targetBranch}`);
  }
  getMergeQueueMetrics(
    _req: { repo?: string; repoHost?: string },
    _call?: CallOptions,
  ): Promise<{ contentType: string; body: string }> {
    return this.notYet('get metrics');
  }
  listPullRequests(req: ListPullRequestsRequest, _call?: CallOptions): Promise<PullRequestPage> {
    return this.notYet(`list pull requests of ${req.targetBranch}`);
  }
}
