// One typed function per endpoint: requests checked before sending, reads decoded leniently, write
// answers never parsed (the service sends `OK`, nothing or `{}`).
import type * as z from 'zod/mini';
import { checked, decode } from './decode.js';
import { ExitCode, MqError } from '../errors.js';
import type { MergeEstimate, QueueGraph, QueueOrder } from '../domain/order.js';
import { orderFromQueue } from './order-v1.js';
import { checkV1Credential, type CredentialCheck, type CredentialCheckRequest } from './credential.js';
import * as h from './history.js';
import { checkWriteAnswer, type CallOptions, type CallSpec, type HttpClient, type RequestDescription } from './http.js';
import * as s from './schemas.js';
import type { StreamBody } from './transport.js';

export type SubmitRequest = z.infer<typeof s.submitRequest>;
export type PrRequest = z.infer<typeof s.prRequest>;
export type QueueTargetRequest = z.infer<typeof s.queueTargetRequest>;
export type ImpactedTargetsRequest = z.infer<typeof s.impactedTargetsRequest>;
export type TestingDetailsRequest = z.infer<typeof s.testingDetailsRequest>;
export type CreateQueueRequest = z.infer<typeof s.createQueueRequest>;
export type UpdateQueueRequest = z.infer<typeof s.updateQueueRequest>;
export type ListPullRequestsRequest = z.infer<typeof s.listPullRequestsRequest>;

/** setImpactedTargets can take the request already serialised (large lists are checked while read). */
export interface SetTargetsOptions extends CallOptions {
  body?: string | StreamBody;
}

export interface ClientOptions {
  /** When set, mutations are described to this function instead of being sent. Reads still go. */
  dryRun?: (request: RequestDescription) => void;
}

const prLabel = (r: { pr: { number: number } }) => `PR #${r.pr.number}`;

/** A PR the queue no longer holds: a priority applies to a live entry only. */
export function notLive(r: { pr: { number: number }; targetBranch: string }): MqError {
  return new MqError(ExitCode.notFound, `set the priority of ${prLabel(r)}`, `${prLabel(r)} is not in the queue now`, {
    hints: [`submit it with that priority: mq submit ${r.pr.number} --priority …`],
  });
}

export class MergeQueueClient {
  readonly api = 'v1' as const;
  constructor(
    readonly http: HttpClient,
    private readonly options: ClientOptions = {},
  ) {}

  get dryRun(): boolean {
    return this.options.dryRun !== undefined;
  }

  /** The service's time (epoch ms), from the last Date header (the emulator's clock), else `localNow`. */
  serviceNow(localNow: () => number): number {
    return this.http.serviceClockOffsetMs === undefined ? localNow() : this.http.serviceNow();
  }

  private async mutate(spec: CallSpec, call?: CallOptions): Promise<void> {
    if (this.options.dryRun) {
      this.options.dryRun(this.http.describe(spec));
      return;
    }
    checkWriteAnswer(await this.http.call(spec, call), spec.what);
  }

  private post(endpoint: string, body: unknown, what: string, idempotent: boolean): CallSpec {
    return { endpoint, method: 'POST', body: JSON.stringify(body), idempotent, what };
  }

  // Resubmitting a queued PR updates it in v1, so submit is safe to repeat.
  submitPullRequest(req: SubmitRequest, call?: CallOptions): Promise<void> {
    const what = `submit ${prLabel(req)}`;
    return this.mutate(this.post('submitPullRequest', checked(s.submitRequest, req, what), what, true), call);
  }

  cancelPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    const what = `cancel ${prLabel(req)}`;
    return this.mutate(this.post('cancelPullRequest', checked(s.prRequest, req, what), what, false), call);
  }

  restartTestsOnPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    const what = `restart ${prLabel(req)}`;
    return this.mutate(this.post('restartTestsOnPullRequest', checked(s.prRequest, req, what), what, false), call);
  }

  async getSubmittedPullRequest(req: PrRequest, call?: CallOptions): Promise<s.SubmittedPullRequest> {
    const what = `get ${prLabel(req)}`;
    const res = await this.http.call(
      this.post('getSubmittedPullRequest', checked(s.prRequest, req, what), what, true),
      call,
    );
    return decode(s.submittedPullRequestSchema, res.body, what);
  }

  /** Checks the token with one read (PR 0 of the queue: a good token gets 404 or 400); throws on 401/403. */
  checkCredential(req: CredentialCheckRequest, call?: CallOptions): Promise<CredentialCheck> {
    return checkV1Credential(this, req, call);
  }

  /** The upload's head as v1 takes it, and how it says "every target". */
  async impactedTargetsHead(
    req: { repo: s.RepoRef; targetBranch: string; pr: { number: number; sha: string } },
    _call?: CallOptions,
  ): Promise<{ head: Record<string, unknown>; all: Record<string, unknown>; maxTargets?: number }> {
    return { head: { repo: req.repo, targetBranch: req.targetBranch, pr: req.pr }, all: { impactedTargets: 'ALL' } };
  }

  /** The last upload for a sha wins, so repeating it is harmless. */
  setImpactedTargets(req: ImpactedTargetsRequest, call?: SetTargetsOptions): Promise<void> {
    const what = `set impacted targets of ${prLabel(req)}`;
    // Large target lists are validated by the command while reading them; skip a second pass here.
    const payload = call?.body ?? JSON.stringify(checked(s.impactedTargetsRequest, req, what));
    return this.mutate({ endpoint: 'setImpactedTargets', method: 'POST', body: payload, idempotent: true, what }, call);
  }

  async getMergeQueueTestingDetails(req: TestingDetailsRequest, call?: CallOptions): Promise<s.TestingDetails> {
    const what = `get testing details of ${req.testRunId}`;
    const res = await this.http.call(
      this.post('getMergeQueueTestingDetails', checked(s.testingDetailsRequest, req, what), what, true),
      call,
    );
    return decode(s.testingDetailsSchema, res.body, what);
  }

  createQueue(req: CreateQueueRequest, call?: CallOptions): Promise<void> {
    const what = `create the queue for ${req.targetBranch}`;
    return this.mutate(this.post('createQueue', checked(s.createQueueRequest, req, what), what, false), call);
  }

  deleteQueue(req: QueueTargetRequest, call?: CallOptions): Promise<void> {
    const what = `delete the queue for ${req.targetBranch}`;
    return this.mutate(this.post('deleteQueue', checked(s.queueTargetRequest, req, what), what, false), call);
  }

  async getQueue(req: QueueTargetRequest, call?: CallOptions): Promise<s.Queue> {
    const what = `get the queue for ${req.targetBranch}`;
    const res = await this.http.call(this.post('getQueue', checked(s.queueTargetRequest, req, what), what, true), call);
    return decode(s.queueSchema, res.body, what);
  }

  /** The queue's state alone (running, paused, draining, ...), lower case; its PRs are not decoded. */
  async getQueueState(req: QueueTargetRequest, call?: CallOptions): Promise<string | undefined> {
    const what = `get the queue for ${req.targetBranch}`;
    const res = await this.http.call(this.post('getQueue', checked(s.queueTargetRequest, req, what), what, true), call);
    return decode(s.queueStateSchema, res.body, what).state ?? undefined;
  }

  /** Returns the updated queue, or undefined in a dry run. Setting values is idempotent. */
  async updateQueue(req: UpdateQueueRequest, call?: CallOptions): Promise<s.Queue | undefined> {
    const what = `update the queue for ${req.targetBranch}`;
    const spec = this.post('updateQueue', checked(s.updateQueueRequest, req, what), what, true);
    if (this.options.dryRun) {
      this.options.dryRun(this.http.describe(spec));
      return undefined;
    }
    const res = await this.http.call(spec, call);
    return decode(s.queueSchema, res.body, what);
  }

  async getMergeQueueMetrics(
    req: { repo?: string; repoHost?: string },
    call?: CallOptions,
  ): Promise<{ contentType: string; body: string }> {
    const query: Record<string, string> = {};
    if (req.repo !== undefined) query.repo = req.repo;
    if (req.repoHost !== undefined) query.repoHost = req.repoHost;
    const res = await this.http.call(
      { endpoint: 'getMergeQueueMetrics', method: 'GET', query, idempotent: true, what: 'get metrics' },
      call,
    );
    return { contentType: res.contentType, body: res.body };
  }

  // ---- order, graph, estimate (served by v2; v1 implies the order) ------------------------------

  /** The dispatch order v1's queue record implies (approximate: see order-v1.ts). */
  async getOrder(req: QueueTargetRequest, call?: CallOptions): Promise<QueueOrder> {
    const what = `get the queue for ${req.targetBranch}`;
    const res = await this.http.call(this.post('getQueue', checked(s.queueTargetRequest, req, what), what, true), call);
    // The order needs no settings: decoding them would build every setting's schema (bench/status.mjs).
    return orderFromQueue(decode(s.queueOrderSchema, res.body, what) as s.Queue);
  }

  getGraph(req: QueueTargetRequest & { impactedTargets?: boolean }, _call?: CallOptions): Promise<QueueGraph> {
    return Promise.reject(
      new MqError(ExitCode.rejected, `get the graph of ${req.targetBranch}`, 'the v1 API has no dependency graph', {
        hints: ['use a v2 API key (`mq auth login`), or --api v2'],
      }),
    );
  }

  /**
   * A live PR's priority or batching: v1 has no call for it, so the PR is resubmitted (its documented
   * upsert) once the queue is seen to hold it; not in the queue is not found (exit 3).
   */
  async setPriority(req: SubmitRequest, call?: CallOptions): Promise<'resubmit' | 'reprioritize'> {
    const record = await this.getSubmittedPullRequest(req, call);
    if (record.isCurrentlySubmittedToQueue === false) throw notLive(req);
    await this.submitPullRequest(req, call);
    return 'resubmit';
  }

  /** v1 serves no estimate. */
  async getEstimate(_req: PrRequest, _call?: CallOptions): Promise<MergeEstimate | undefined> {
    return undefined;
  }

  // ---- history (trunk-wire §1.4, §1.6, §1.15) -------------------------------------------------

  /** A PR's record with its `timeline`: every transition of its trips, newest first as v1 sends it. */
  async getSubmittedPullRequestWithTimeline(
    req: Omit<h.GetPullRequestWithTimelineRequest, 'includeTimeline'>,
    call?: CallOptions,
  ): Promise<h.PullRequestWithTimeline> {
    const what = `get the timeline of ${prLabel(req)}`;
    const body = checked(h.getPullRequestWithTimelineRequest, { ...req, includeTimeline: true }, what);
    const res = await this.http.call(this.post('getSubmittedPullRequest', body, what, true), call);
    return decode(h.pullRequestWithTimelineSchema, res.body, what);
  }

  /** Up to 50 PRs in one call; those never submitted to the queue come back in `notFound`. */
  async getSubmittedPullRequests(req: h.GetPullRequestsRequest, call?: CallOptions): Promise<h.PullRequestsLookup> {
    const what = `get ${req.prs.length} pull request${req.prs.length === 1 ? '' : 's'} of ${req.targetBranch}`;
    const res = await this.http.call(
      this.post('getSubmittedPullRequests', checked(h.getPullRequestsRequest, req, what), what, true),
      call,
    );
    return decode(h.pullRequestsLookupSchema, res.body, what);
  }

  /** One row per PR per test run finished in a window of at most 45 days; offset/take paging. */
  async listMergeQueueTestingResults(req: h.TestingResultsRequest, call?: CallOptions): Promise<h.TestingResultsPage> {
    const what = `list testing results of ${req.targetBranch}`;
    const res = await this.http.call(
      this.post('listMergeQueueTestingResults', checked(h.testingResultsRequest, req, what), what, true),
      call,
    );
    return decode(h.testingResultsPageSchema, res.body, what);
  }

  /** listPullRequests with a conclusion window (`since`, `until`): PRs merged, failed or cancelled in it. */
  async listConcludedPullRequests(
    req: h.ListConcludedPullRequestsRequest,
    call?: CallOptions,
  ): Promise<s.PullRequestPage> {
    const what = `list concluded pull requests of ${req.targetBranch}`;
    const res = await this.http.call(
      this.post('listPullRequests', checked(h.listConcludedPullRequestsRequest, req, what), what, true),
      call,
    );
    return decode(h.concludedPullRequestPageSchema, res.body, what);
  }

  async listPullRequests(req: ListPullRequestsRequest, call?: CallOptions): Promise<s.PullRequestPage> {
    const what = `list pull requests of ${req.targetBranch}`;
    const res = await this.http.call(
      this.post('listPullRequests', checked(s.listPullRequestsRequest, req, what), what, true),
      call,
    );
    return decode(s.pullRequestPageSchema, res.body, what);
  }
}
