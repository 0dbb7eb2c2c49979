import type {
  PullRequestBatchEvent,
  PullRequestEvent,
  UnknownWebhookEvent,
  WebhookEvent,
  WebhookEventCommon,
  WebhookStatus,
} from '../lib/webhook-types.js';

export type { WebhookEvent };

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
] as const satisfies readonly WebhookStatus[];

/** Longest string field kept; most PR numbers kept in a batch's lists. */
const MAX_TEXT = 1024;
const MAX_PRS = 1000;

const REASON_FIELDS = ['submitted_reason', 'queued_reason', 'failure_reason', 'cancellation_reason', 'merged_reason'];

const text = (v: unknown): string => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : '');
const optText = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : undefined);
const prNumber = (v: unknown): number | undefined =>
  Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : undefined;
const prList = (v: unknown): number[] | undefined =>
  Array.isArray(v) ? v.slice(0, MAX_PRS).flatMap((n) => prNumber(n) ?? []) : undefined;

function common(o: Record<string, unknown>, status: WebhookStatus): WebhookEventCommon {
  const repo =
    typeof o.repository === 'object' && o.repository !== null ? (o.repository as Record<string, unknown>) : {};
  const c: WebhookEventCommon = {
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
