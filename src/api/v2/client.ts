// The v2 wire (Trunk's `/v2` API, Bearer keys) behind the same operations as the v1 client: each
// operation maps v1's request onto v2's ids and paths and v2's answer back onto the records commands print.
import type { MergeEstimate, QueueGraph, QueueOrder } from '../../domain/order.js';
import { ApiError } from '../../errors.js';
import { notLive } from '../client.js';
import type {
  CreateQueueRequest,
  ListPullRequestsRequest,
  PrRequest,
  QueueTargetRequest,
  SubmitRequest,
  TestingDetailsRequest,
  UpdateQueueRequest,
} from '../client.js';
import type * as h from '../history.js';
import type { CallOptions, CallSpec } from '../http.js';
import type { PullRequestPage, Queue, RepoRef, SubmittedPullRequest, TestingDetails } from '../schemas.js';
import type { StreamBody } from '../transport.js';
import type { MergeQueueService } from '../service.js';
import type { CredentialCheck, CredentialCheckRequest } from '../credential.js';
import { checkV2Credential } from './credential.js';
import * as history from './history.js';
import { estimateOf, estimateSchema, graphOf, graphSchema, orderOf, orderSchema } from './order.js';
import { PERMISSION } from './permissions.js';
import * as queues from './queues.js';
import { prRecord } from './wire.js';

import { enc, prLabel, V2Base } from './base.js';

export { PERMISSION };

/** `impactedTargets` of one v2 upload holds at most this many (its schema's maxItems). */
const MAX_UPLOAD_TARGETS = 100_000;

export class V2Client extends V2Base implements MergeQueueService {
  /** One read any key may make; with `probeWrite`, a dequeue no PR can match tells whether it may write. */
  checkCredential(req: CredentialCheckRequest, call?: CallOptions): Promise<CredentialCheck> {
    return checkV2Credential(this, PERMISSION.merge, req, call);
  }

  /** A live entry's priority or batching, patched in place (v2 refuses a resubmit). */
  async setPriority(req: SubmitRequest, call?: CallOptions): Promise<'resubmit' | 'reprioritize'> {
    const what = `set the priority of ${prLabel(req.pr.number)}`;
    const pr = await this.entryInQueue(req, what, call);
    if (pr.isCurrentlySubmittedToQueue === false) throw notLive(req);
    const patch: Record<string, unknown> = {};
    if (typeof req.priority === 'number') patch.priorityValue = req.priority;
    else if (req.priority !== undefined) patch.priorityName = req.priority;
    if (req.noBatch !== undefined) patch.allowBatching = !req.noBatch;
    const permission = req.noBatch !== undefined ? PERMISSION.skipBatching : PERMISSION.priority;
    const res = await this.write('PATCH', `v2/pull-requests/${enc(pr.id)}/queue-entry`, patch, what, {
      idempotent: true,
      permission,
      call,
    });
    this.keepAnswer(res, req);
    return 'reprioritize';
  }

  getOrder(req: QueueTargetRequest, call?: CallOptions): Promise<QueueOrder> {
    const what = `get the order of ${req.targetBranch}`;
    return this.onQueue(req, call, async (id) =>
      orderOf(await this.read(`v2/merge-queues/${enc(id)}/order`, {}, orderSchema, what, call)),
    );
  }

  getGraph(req: QueueTargetRequest & { impactedTargets?: boolean }, call?: CallOptions): Promise<QueueGraph> {
    const what = `get the graph of ${req.targetBranch}`;
    const query: Record<string, string> = req.impactedTargets ? { includeImpactedTargets: 'true' } : {};
    return this.onQueue(req, call, async (id) =>
      graphOf(await this.read(`v2/merge-queues/${enc(id)}/graph`, query, graphSchema, what, call)),
    );
  }

  /** The service's estimate; undefined where its queue serves none (404 ESTIMATE_NOT_ENABLED). */
  async getEstimate(req: PrRequest, call?: CallOptions): Promise<MergeEstimate | undefined> {
    const what = `estimate ${prLabel(req.pr.number)}`;
    try {
      return await this.onPullRequest(
        req,
        what,
        async (id) =>
          estimateOf(
            await this.read(`v2/pull-requests/${enc(id)}/queue-entry-estimate`, {}, estimateSchema, what, call),
          ),
        call,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'ESTIMATE_NOT_ENABLED') return undefined;
      throw err;
    }
  }

  /** v2 refuses to resubmit a live PR; a new priority or batching choice then patches its entry (v1 upserts). */
  async submitPullRequest(req: SubmitRequest, call?: CallOptions): Promise<void> {
    const what = `submit ${prLabel(req.pr.number)}`;
    const body: Record<string, unknown> = { number: req.pr.number };
    if (typeof req.priority === 'number') body.priorityValue = req.priority;
    else if (req.priority !== undefined) body.priorityName = req.priority;
    if (req.noBatch) body.allowBatching = false;
    const permission = req.priority !== undefined ? PERMISSION.priority : PERMISSION.merge;
    const post = (queueId: string) =>
      this.write('POST', `v2/merge-queues/${enc(queueId)}/pull-requests`, body, what, {
        idempotent: false,
        permission,
        call,
      });
    try {
      await this.onQueue(req, call, async (queueId) => {
        const res = await this.readBackFirst(
          () => post(queueId),
          async () => (await this.entryInQueue(req, what, call)).isCurrentlySubmittedToQueue === true,
        );
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

  /** v2 acts on a PR by id whatever its queue: first make sure its entry is in this one, as v1's call is. */
  private async prAction(req: PrRequest, action: 'dequeue' | 'restart-tests', what: string, call?: CallOptions) {
    await this.entryInQueue(req, what, call);
    return this.onPullRequest(
      req,
      what,
      async (id) => {
        const send = () =>
          this.write('POST', `v2/pull-requests/${enc(id)}/${action}`, undefined, what, {
            idempotent: false,
            permission: PERMISSION.merge,
            call,
          });
        try {
          // A restart cannot be told from the record, so only a dequeue is read back.
          const res =
            action === 'dequeue'
              ? await this.readBackFirst(
                  send,
                  async () => !(await this.entryInQueue(req, what, call)).isCurrentlySubmittedToQueue,
                )
              : await send();
          this.keepAnswer(res, req);
        } catch (err) {
          // v1 answers 404 "not in the merge queue" for a PR that is no longer live there.
          if (err instanceof ApiError && err.code === 'PR_NOT_IN_ACTIVE_STATE')
            throw this.notInQueue(req, req.pr.number, what);
          throw err;
        }
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

  getSubmittedPullRequestWithTimeline(
    req: Omit<h.GetPullRequestWithTimelineRequest, 'includeTimeline'>,
    call?: CallOptions,
  ): Promise<h.PullRequestWithTimeline> {
    return history.pullRequestWithTimeline(this, req, call);
  }
  getSubmittedPullRequests(req: h.GetPullRequestsRequest, call?: CallOptions): Promise<h.PullRequestsLookup> {
    return history.pullRequests(this, req, call);
  }
  listMergeQueueTestingResults(req: h.TestingResultsRequest, call?: CallOptions): Promise<h.TestingResultsPage> {
    return history.testingResults(this, req, call);
  }
  listConcludedPullRequests(req: h.ListConcludedPullRequestsRequest, call?: CallOptions): Promise<PullRequestPage> {
    return history.concludedPullRequests(this, req, call);
  }

  /** v2's upload head (ids for v1's coordinates), how it says "every target" and its most targets per upload. */
  async impactedTargetsHead(
    req: { repo: RepoRef; targetBranch: string; pr: { number: number; sha: string } },
    call?: CallOptions,
  ): Promise<{ head: Record<string, unknown>; all: Record<string, unknown>; maxTargets?: number }> {
    const repositoryId = await this.repositoryId(req.repo, call);
    return {
      head: { repositoryId, targetBranch: req.targetBranch, number: req.pr.number, sha: req.pr.sha },
      all: { impactsAllTargets: true },
      maxTargets: MAX_UPLOAD_TARGETS,
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

  getMergeQueueTestingDetails(req: TestingDetailsRequest, call?: CallOptions): Promise<TestingDetails> {
    return queues.getTestingDetails(this, req, call);
  }
  createQueue(req: CreateQueueRequest, call?: CallOptions): Promise<void> {
    return queues.createQueue(this, req, call);
  }
  deleteQueue(req: QueueTargetRequest, call?: CallOptions): Promise<void> {
    return queues.deleteQueue(this, req, call);
  }
  getQueue(req: QueueTargetRequest, call?: CallOptions): Promise<Queue> {
    return queues.getQueue(this, req, call);
  }
  getQueueState(req: QueueTargetRequest, call?: CallOptions): Promise<string | undefined> {
    return queues.getQueueState(this, req, call);
  }
  updateQueue(req: UpdateQueueRequest, call?: CallOptions): Promise<Queue | undefined> {
    return queues.updateQueue(this, req, call);
  }
  getMergeQueueMetrics(
    req: { repo?: string; repoHost?: string },
    call?: CallOptions,
  ): Promise<{ contentType: string; body: string }> {
    return queues.getMergeQueueMetrics(this, req, call);
  }
  listPullRequests(req: ListPullRequestsRequest, call?: CallOptions): Promise<PullRequestPage> {
    return queues.listPullRequests(this, req, call);
  }
}
