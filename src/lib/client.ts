// `MergeQueueClient`: the library's face of the CLI's client (src/api/client.ts): same checks, retries
// and redaction; the token lives in a private field, so it never shows in logs or `console.log(client)`.
import { WORKFLOW_RUN_ID } from '../domain/vocabulary.js';
import { checkApiUrl, checkedTimeout, checkToken } from '../api/connection-checks.js';
import { HttpClient } from '../api/http.js';
import type { MergeQueueService } from '../api/service.js';
import { API_CHOICES, type ApiChoice } from '../api/api-choice.js';
import { libraryApi, targetsBody, wireClient } from '../api/library-wire.js';
import { MergeQueueError, toPublicError, usage } from './errors.js';
import { pollPr } from './wait.js';
import type {
  CallOptions,
  CreateQueueRequest,
  GetPullRequestRequest,
  GetPullRequestsRequest,
  PullRequestWithTimeline,
  PullRequestsLookup,
  TestingResultsPage,
  TestingResultsRequest,
  ImpactedTargetsRequest,
  ListPullRequestsRequest,
  MetricsRequest,
  MetricsResult,
  PrRequest,
  PullRequestPage,
  Queue,
  QueueTargetRequest,
  SubmitRequest,
  TestingDetails,
  TestingDetailsRequest,
  UpdateQueueRequest,
  WaitRequest,
  WaitResult,
} from './types.js';
import type { MergeEstimate, QueueGraph, QueueOrder } from './order-types.js';

declare const MQ_VERSION: string;
export const VERSION: string = typeof MQ_VERSION === 'string' ? MQ_VERSION : '0.0.0-dev';

export interface MergeQueueClientOptions {
  /**
   * The API base, e.g. `https://api.trunk.io/v1` (or an emulator's `url`). Optional with a v2 API key
   * (`trunk_v2_…`): then `https://api.trunk.io`. On v2 only the URL's origin is used.
   */
  apiUrl?: string;
  /**
   * The credential: an organization token (v1, sent as `x-api-token`; may be empty with
   * `forkedWorkflowRunId`) or a v2 API key (sent as `Authorization: Bearer`).
   */
  token: string;
  /**
   * `v1`, `v2` or `auto` (default): auto picks v2 for a `trunk_v2_` key or an apiUrl without a
   * version segment, as the CLI does. A v2 key never goes to v1.
   */
  api?: 'v1' | 'v2' | 'auto';
  /**
   * v2 resolves repository, queue and PR ids once and keeps them: by default in memory, for this
   * client's lifetime; with a directory here, in a 0600 file there per API origin, shared by clients
   * and processes (e.g. the CLI's own cache directory).
   */
  idCacheDir?: string;
  /** In a fork PR's workflow: `GITHUB_RUN_ID`, sent with an empty token by setImpactedTargets only. */
  forkedWorkflowRunId?: string;
  /** Limit for each request, in ms: 1 to 2^31-1 (default 30 000). */
  timeoutMs?: number;
  /** Retries of a failed request (default 3). */
  maxRetries?: number;
  /** Base of the exponential backoff between retries, in ms (default 500). */
  retryBaseMs?: number;
  /** Stops every request in flight and any backoff; calls then reject with kind `interrupted`. */
  signal?: AbortSignal;
  /** Receives each request and response as text lines, with the token redacted. */
  debug?: (line: string) => void;
  /** Sent as `user-agent` (default `mq-cli/<version>`). */
  userAgent?: string;
  /** Allow plain http:// to a host other than this machine (the token then travels unencrypted). */
  allowInsecureHttp?: boolean;
}

/**
 * Runs one call; what it throws or rejects with, as a MergeQueueError. Async, unlike `shared`, so that
 * a request refused before sending (a synchronous throw) still comes out as a rejection.
 */
async function publicErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toPublicError(err);
  }
}

/** Runs one of the CLI's checks (src/api/connection-checks.ts); its refusal as a MergeQueueError, thrown. */
function shared<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw toPublicError(err);
  }
}

const URL_REQUIRED = 'apiUrl: required (the API base URL, e.g. https://api.trunk.io/v1)';

const inners = new WeakMap<MergeQueueClient, MergeQueueService>();

/** @internal The CLI's client behind a library client (the action uses it); not public API. */
export function innerClient(client: MergeQueueClient): MergeQueueService {
  const inner = inners.get(client);
  if (!inner) throw new TypeError('not a MergeQueueClient');
  return inner;
}

export class MergeQueueClient {
  readonly apiUrl: string;
  /** The API this client speaks (see the `api` option). */
  readonly api: 'v1' | 'v2';
  readonly #inner: MergeQueueService;

  constructor(options: MergeQueueClientOptions) {
    const given = options?.apiUrl;
    if (!options || (given !== undefined && (typeof given !== 'string' || given === ''))) throw usage(URL_REQUIRED);
    if (options.api !== undefined && !(API_CHOICES as readonly unknown[]).includes(options.api))
      throw usage('api: expected v1, v2 or auto');
    const insecureHint = 'use https://, or set allowInsecureHttp if this network is trusted';
    if (given !== undefined)
      shared(() => checkApiUrl(given, 'option apiUrl', options.allowInsecureHttp === true, insecureHint));
    // Without apiUrl only a v2 key (or api: 'v2') has a default.
    const wire = typeof options.token === 'string' ? shared(() => libraryApi(options)) : undefined;
    if (!wire && given === undefined) throw usage(URL_REQUIRED);
    const forked = options.forkedWorkflowRunId;
    if (forked !== undefined && !(typeof forked === 'string' && WORKFLOW_RUN_ID.test(forked)))
      throw usage('forkedWorkflowRunId: expected a workflow run id (digits, e.g. GITHUB_RUN_ID)');
    if (typeof options.token !== 'string' || (options.token === '' && forked === undefined)) {
      throw usage('token: required (the API token)');
    }
    if (options.token !== '') shared(() => checkToken(options.token, 'option token'));
    if (options.timeoutMs !== undefined) shared(() => checkedTimeout(options.timeoutMs as number, 'option timeoutMs'));
    for (const [name, value] of [
      ['maxRetries', options.maxRetries],
      ['retryBaseMs', options.retryBaseMs],
    ] as const) {
      if (value !== undefined && !(Number.isFinite(value) && value >= 0))
        throw usage(`${name}: expected a number 0 or more`);
    }
    const { api, baseUrl } = wire as ApiChoice;
    this.apiUrl = given ?? baseUrl;
    this.api = api;
    const http = new HttpClient({
      baseUrl,
      api,
      token: options.token,
      ...(forked !== undefined ? { forkedWorkflowRunId: forked } : {}),
      userAgent: options.userAgent ?? `mq-cli/${VERSION}`,
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.retryBaseMs !== undefined ? { backoffMs: options.retryBaseMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.debug ? { debug: options.debug } : {}),
    });
    this.#inner = wireClient(wire as ApiChoice, http, options.idCacheDir);
    inners.set(this, this.#inner);
  }

  /** Adds the PR to the queue (or updates its priority / noBatch when it is already queued). */
  submitPullRequest(req: SubmitRequest, call?: CallOptions): Promise<void> {
    return publicErrors(() => this.#inner.submitPullRequest(req, call));
  }

  cancelPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    return publicErrors(() => this.#inner.cancelPullRequest(req, call));
  }

  restartTestsOnPullRequest(req: PrRequest, call?: CallOptions): Promise<void> {
    return publicErrors(() => this.#inner.restartTestsOnPullRequest(req, call));
  }

  /** The PR's record; with `includeTimeline`, every transition of its trips too (newest first). */
  getSubmittedPullRequest(req: GetPullRequestRequest, call?: CallOptions): Promise<PullRequestWithTimeline> {
    if (req.includeTimeline === true) {
      const { includeTimeline: _, ...rest } = req;
      return publicErrors(() => this.#inner.getSubmittedPullRequestWithTimeline(rest, call));
    }
    return publicErrors(() => this.#inner.getSubmittedPullRequest(req, call));
  }

  /** Up to 50 PRs in one call; those never submitted to the queue come back in `notFound`. */
  getSubmittedPullRequests(req: GetPullRequestsRequest, call?: CallOptions): Promise<PullRequestsLookup> {
    return publicErrors(() => this.#inner.getSubmittedPullRequests(req, call));
  }

  /** One row per PR per finished test run, in a window of at most 45 days; `offset`/`take` paging. */
  listMergeQueueTestingResults(req: TestingResultsRequest, call?: CallOptions): Promise<TestingResultsPage> {
    return publicErrors(() => this.#inner.listMergeQueueTestingResults(req, call));
  }

  setImpactedTargets(req: ImpactedTargetsRequest, call?: CallOptions): Promise<void> {
    return publicErrors(async () => {
      const body = await targetsBody(this.#inner, req, call);
      return this.#inner.setImpactedTargets(req, body === undefined ? call : { ...call, body });
    });
  }

  getMergeQueueTestingDetails(req: TestingDetailsRequest, call?: CallOptions): Promise<TestingDetails> {
    return publicErrors(() => this.#inner.getMergeQueueTestingDetails(req, call));
  }

  createQueue(req: CreateQueueRequest, call?: CallOptions): Promise<void> {
    return publicErrors(() => this.#inner.createQueue(req, call));
  }

  deleteQueue(req: QueueTargetRequest, call?: CallOptions): Promise<void> {
    return publicErrors(() => this.#inner.deleteQueue(req, call));
  }

  getQueue(req: QueueTargetRequest, call?: CallOptions): Promise<Queue> {
    return publicErrors(() => this.#inner.getQueue(req, call));
  }

  /** Changes the given settings; returns the queue as it is now. */
  async updateQueue(req: UpdateQueueRequest, call?: CallOptions): Promise<Queue> {
    const q = await publicErrors(() => this.#inner.updateQueue(req, call));
    // Only a dry run answers undefined, and this client never makes one.
    if (q === undefined)
      throw new MergeQueueError({ exitCode: 1, what: `update the queue for ${req.targetBranch}`, why: 'no answer' });
    return q;
  }

  getMergeQueueMetrics(req: MetricsRequest = {}, call?: CallOptions): Promise<MetricsResult> {
    return publicErrors(() => this.#inner.getMergeQueueMetrics(req, call));
  }

  /** A page of the queue's PRs; with `until` (and `since`), the PRs that concluded in that window. */
  listPullRequests(req: ListPullRequestsRequest, call?: CallOptions): Promise<PullRequestPage> {
    if (req.until !== undefined) return publicErrors(() => this.#inner.listConcludedPullRequests(req, call));
    return publicErrors(() => this.#inner.listPullRequests(req, call));
  }

  /**
   * The queue's dispatch order: batches under test, PRs waiting (with the PRs directly ahead and the
   * failing PRs holding them), PRs not yet admitted. v2 serves it; on v1 it is derived from the queue
   * record and marked `approximate` (no runs, no predicted batches, nothing awaiting admission).
   */
  order(req: QueueTargetRequest, call?: CallOptions): Promise<QueueOrder> {
    return publicErrors(() => this.#inner.getOrder(req, call));
  }

  /**
   * A parallel queue's dependency graph: which PRs build on which (`impactedTargets: true` adds each
   * PR's targets). v2 only: on v1 it rejects with kind `rejected`.
   */
  graph(req: QueueTargetRequest & { impactedTargets?: boolean }, call?: CallOptions): Promise<QueueGraph> {
    return publicErrors(() => this.#inner.getGraph(req, call));
  }

  /** The service's merge estimate for a PR; undefined where it serves none (v1, or a queue without estimates). */
  estimate(req: PrRequest, call?: CallOptions): Promise<MergeEstimate | undefined> {
    return publicErrors(() => this.#inner.getEstimate(req, call));
  }

  /**
   * Polls the PR until it merges, leaves the queue or `timeoutMs` passes; transient poll failures are
   * retried with a doubled interval (up to 8x). Rejects only when it cannot go on (missing, refused, signal).
   */
  async waitForPr(req: WaitRequest): Promise<WaitResult> {
    return pollPr(req, (target, call) => this.getSubmittedPullRequest(target, call));
  }
}
