// The public types of webhook verification (`verifyWebhook`), written out so the shipped .d.ts needs
// nothing else; src/webhooks/ implements them.

export type WebhookStatus = 'submitted' | 'queued' | 'testing' | 'pending_failure' | 'failed' | 'canceled' | 'merged';

export interface WebhookRepository {
  host: string;
  owner: string;
  name: string;
}

/** Fields every event of both families has, as sent (snake_case). */
export interface WebhookEventCommon<S extends WebhookStatus = WebhookStatus> {
  action: string;
  status: S;
  repository: WebhookRepository;
  target_branch: string;
  /** ISO-8601, as sent. */
  timestamp: string;
  test_branch?: string;
  test_branch_sha?: string;
  test_pr_number?: number;
  batched?: boolean;
  is_bisection?: boolean;
  /** The event's reason, whatever its field: `submitted_reason`, `queued_reason`, `failure_reason`, ... */
  reason?: string;
}

type Pr<S extends WebhookStatus> = WebhookEventCommon<S> & {
  family: 'pull_request';
  type: `pull_request.${S}`;
  pr_number: number;
  author: string;
  http_details_url: string;
};

type Batch<S extends WebhookStatus> = WebhookEventCommon<S> & {
  family: 'pull_request_batch';
  type: `pull_request_batch.${S}`;
  pr_numbers: number[];
  pr_numbers_in_batch: number[];
};

export type PullRequestEvent = { [S in WebhookStatus]: Pr<S> }[WebhookStatus];
export type PullRequestBatchEvent = { [S in WebhookStatus]: Batch<S> }[WebhookStatus];

/** An event mq does not know (another family, a new status) or one missing its PR number(s). */
export interface UnknownWebhookEvent {
  family: 'unknown';
  /** The payload's `type` when it is a string, else ''. */
  type: string;
  payload: unknown;
}

export type WebhookEvent = PullRequestEvent | PullRequestBatchEvent | UnknownWebhookEvent;

/** Request headers: a plain object (any case; Node's IncomingHttpHeaders) or a fetch `Headers`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyFailure =
  | 'secret-format'
  | 'missing-header'
  | 'bad-timestamp'
  | 'timestamp-too-old'
  | 'timestamp-in-future'
  | 'bad-signature'
  | 'too-large'
  | 'not-json';

export type VerifyResult =
  | { ok: true; id: string; timestamp: number; event: WebhookEvent }
  | { ok: false; reason: VerifyFailure; message: string };

export interface VerifyOptions {
  /** Epoch milliseconds now (default `Date.now`). */
  now?: () => number;
  /** Seconds a timestamp may be off from now (default 300). */
  toleranceSeconds?: number;
  /** Larger bodies are refused as `too-large` (default 1 MiB). */
  maxBodyBytes?: number;
}
