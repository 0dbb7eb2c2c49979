/**
 * The merge queue's webhook events (trunk-wire §3.2), decoded leniently: a payload of an unknown
 * type or without its PR number(s) is an `unknown` event, never an error; strings and lists are bounded.
 */

export const WEBHOOK_STATUSES = [
  'submitted',
  'queued',
  'testing',
  'pending_failure',
  'failed',
  'canceled',
  'merged',
] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** Longest string field kept; most PR numbers kept in a batch's lists. */
const MAX_TEXT = 1024;
const MAX_PRS = 1000;

export interface WebhookRepository {
  host: string;
  owner: string;
  name: string;
}

/** Fields every event of both families has, as sent (snake_case). */
interface Common<S extends WebhookStatus> {
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

type Pr<S extends WebhookStatus> = Common<S> & {
  family: 'pull_request';
  type: `pull_request.${S}`;
  pr_number: number;
  author: string;
  http_details_url: string;
};

type Batch<S extends WebhookStatus> = Common<S> & {
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

const REASON_FIELDS = ['submitted_reason', 'queued_reason', 'failure_reason', 'cancellation_reason', 'merged_reason'];

const text = (v: unknown): string => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : '');
const optText = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : undefined);
const prNumber = (v: unknown): number | undefined =>
  Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : undefined;
const prList = (v: unknown): number[] | undefined =>
  Array.isArray(v) ? v.slice(0, MAX_PRS).flatMap((n) => prNumber(n) ?? []) : undefined;

function common(o: Record<string, unknown>, status: WebhookStatus): Common<WebhookStatus> {
  const repo =
    typeof o.repository === 'object' && o.repository !== null ? (o.repository as Record<string, unknown>) : {};
  const c: Common<WebhookStatus> = {
    action: text(o.action),
    status,
    repository: { host: text(repo.host), owner: text(repo.owner), name: text(repo.name) },
    target_branch: text(o.target_branch),
    timestamp: text(o.timestamp),
  };
  const testBranch = optText(o.test_branch);
  if (testBranch !== undefined) c.test_branch = testBranch;
  const sha = optText(o.test_branch_sha);
  if (sha !== undefined) c.test_branch_sha = sha;
  const testPr = prNumber(o.test_pr_number);
  if (testPr !== undefined) c.test_pr_number = testPr;
  if (typeof o.batched === 'boolean') c.batched = o.batched;
  if (typeof o.is_bisection === 'boolean') c.is_bisection = o.is_bisection;
  const reason = REASON_FIELDS.map((f) => optText(o[f])).find((r) => r !== undefined);
  if (reason !== undefined) c.reason = reason;
  return c;
}

/** A parsed JSON payload as a typed event; anything else is an `unknown` event carrying it. */
export function decodeWebhookEvent(payload: unknown): WebhookEvent {
  const o =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : {};
  const type = text(o.type);
  const unknown: UnknownWebhookEvent = { family: 'unknown', type, payload };
  const m = /^(pull_request|pull_request_batch)\.([a-z_]+)$/.exec(type);
  const status = m?.[2] as WebhookStatus | undefined;
  if (!m || !status || !(WEBHOOK_STATUSES as readonly string[]).includes(status)) return unknown;
  if (m[1] === 'pull_request') {
    const pr = prNumber(o.pr_number);
    if (pr === undefined) return unknown;
    return {
      ...common(o, status),
      family: 'pull_request',
      type,
      pr_number: pr,
      author: text(o.author),
      http_details_url: text(o.http_details_url),
    } as PullRequestEvent;
  }
  const prs = prList(o.pr_numbers);
  if (prs === undefined || prs.length === 0) return unknown;
  return {
    ...common(o, status),
    family: 'pull_request_batch',
    type,
    pr_numbers: prs,
    pr_numbers_in_batch: prList(o.pr_numbers_in_batch) ?? prs,
  } as PullRequestBatchEvent;
}

/** The PR numbers an event is about (none for an unknown one). */
export function eventPrs(e: WebhookEvent): number[] {
  if (e.family === 'pull_request') return [e.pr_number];
  if (e.family === 'pull_request_batch') return e.pr_numbers;
  return [];
}
