/**
 * v1 <-> v2 agreement for the workload test: the field-by-field mapping table (trunk-v2.md's
 * "v1 -> v2 mapping"), a comparer that reports each disagreement with its record, field and both
 * values, and a probe that counts requests, decodes every v2 answer with the strict schemas and
 * records which v2 routes were hit.
 */
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';

import type { Client } from './http-helpers.js';
import { Exposition, KEY } from './v2-helpers.js';

type Conv = (v1: any, record: any) => unknown;
/** One mapped field: where it is in v1, where in v2, and how a v1 value becomes the v2 one. */
export interface Row {
  v1: string;
  v2: string;
  conv?: Conv;
  /** Only where v2 spells one v1 value two ways: makes the v2 value comparable. */
  v2conv?: Conv;
}

const camel: Conv = (s) => (typeof s === 'string' ? s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : s);
const not: Conv = (b) => !b;
const time: Conv = (t) => (typeof t === 'string' ? new Date(Date.parse(t)).toISOString() : t);
const nullIsAbsent: Conv = (v) => (v === null ? undefined : v);
const mode: Conv = (m) => (m === 'single' ? 'queue' : m === 'parallel' ? 'graph' : m);
/** v2 gives testing and pendingFailure no reason; the others are UPPERCASE. */
const reason: Conv = (r, item) =>
  item.state === 'testing' || item.state === 'pending_failure' || r === '' ? null : String(r).toUpperCase();
/** A v1 testing result's PR state after that run, from its v1 timeline (set by the test). */
export const NEXT = 'nextStateFromTimeline';
export type TimelineItem = { state: string; testRunId?: string };
/** The state a PR entered next after it started testing in run `runId` (v1 timelines are newest first). */
export function after(timeline: TimelineItem[], runId: string): string | undefined {
  const i = timeline.findLastIndex((t) => t.testRunId === runId && t.state === 'testing');
  return i > 0 ? timeline[i - 1]?.state : undefined;
}
/**
 * v2 has no timed_out (a timeout is a failed run) and splits v1's cancelled: interrupted when the PR
 * stayed in the queue to be retested, cancelled when it left the queue with the run.
 */
const outcome: Conv = (o, r) => {
  if (o === 'timed_out') return 'failed';
  const stayed = ['not_ready', 'pending', 'testing'].includes(r[NEXT]);
  return o === 'cancelled' && stayed ? 'interrupted' : o;
};
/** Unset, v1 reports concurrency and v2 0 (bisection shares concurrency). */
const shared: Conv = (n, q) => (n === 0 ? q.config.concurrency : n);

/** A queue entry: v1's flat record -> v2's PR fields plus `queueEntry`. */
const ENTRY: Row[] = [
  { v1: 'prNumber', v2: 'number' },
  { v1: 'prTitle', v2: 'title' },
  { v1: 'prSha', v2: 'sha' },
  { v1: 'prBaseBranch', v2: 'baseBranch' },
  { v1: 'prAuthor', v2: 'author' },
  { v1: 'id', v2: 'queueEntry.id' },
  { v1: 'state', v2: 'queueEntry.state', conv: camel },
  { v1: 'stateChangedAt', v2: 'queueEntry.stateChangedAt', conv: time },
  { v1: 'priorityValue', v2: 'queueEntry.priorityValue' },
  { v1: 'priorityName', v2: 'queueEntry.priorityName' },
  { v1: 'usedDefaultPriorityName', v2: 'queueEntry.usedDefaultPriorityName' },
  { v1: 'skipTheLine', v2: 'queueEntry.skipsTheLine' },
  { v1: 'noBatch', v2: 'queueEntry.allowBatching', conv: not },
];

export const MAPPING = {
  /** getSubmittedPullRequest -> GET /v2/pull-requests/{id}. */
  pullRequest: [
    ...ENTRY,
    { v1: 'isCurrentlySubmittedToQueue', v2: 'isCurrentlySubmittedToQueue' },
    { v1: 'forceEnqueued', v2: 'queueEntry.direct' },
    { v1: 'verifiedByTestRun', v2: 'queueEntry.verifiedByVerificationRunId', conv: nullIsAbsent },
    { v1: 'readiness.requiresImpactedTargets', v2: 'queueEntry.readiness.requiresImpactedTargets' },
    { v1: 'readiness.hasImpactedTargets', v2: 'queueEntry.readiness.hasImpactedTargets' },
    { v1: 'readiness.doesBaseBranchMatch', v2: 'queueEntry.readiness.doesBaseBranchMatch' },
    { v1: 'readiness.gitHubMergeability', v2: 'queueEntry.readiness.mergeability', conv: camel },
  ],
  /** listPullRequests -> GET /v2/merge-queues/{id}/pull-requests. */
  listed: ENTRY,
  /** A timeline item (newest first) -> a transition of queue-entry-history?direction=newest. */
  transition: [
    { v1: 'timestamp', v2: 'changedAt', conv: time },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'reason', v2: 'reason', conv: reason },
    { v1: 'testRunId', v2: 'verificationRunId' },
  ],
  /** getQueue's settings -> GET /v2/merge-queues/{id}. */
  queue: [
    { v1: 'branch', v2: 'targetBranch' },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'mode', v2: 'mode', conv: mode },
    { v1: 'concurrency', v2: 'config.concurrency' },
    { v1: 'bisectionConcurrency', v2: 'config.bisectionConcurrency', v2conv: shared },
    { v1: 'pendingFailureDepth', v2: 'config.pendingFailureDepth' },
    { v1: 'canOptimisticallyMerge', v2: 'config.canOptimisticallyMerge' },
    { v1: 'batch', v2: 'config.allowBatching' },
    { v1: 'batchingMaxWaitTimeMinutes', v2: 'config.batchingMaxWaitTimeMinutes' },
    { v1: 'batchingMinSize', v2: 'config.batchingMinSize' },
    { v1: 'testingTimeoutMinutes', v2: 'config.testingTimeoutMinutes' },
    { v1: 'createPrsForTestingBranches', v2: 'config.createsPrsForTestingBranches' },
    { v1: 'commentsEnabled', v2: 'config.areCommentsEnabled' },
    { v1: 'commandsEnabled', v2: 'config.areCommandsEnabled' },
    { v1: 'labelCommandsEnabled', v2: 'config.areLabelCommandsEnabled' },
    { v1: 'stateLabelsEnabled', v2: 'config.areStateLabelsEnabled' },
    { v1: 'statusCheckEnabled', v2: 'config.isStatusCheckEnabled' },
    { v1: 'extensionEnabled', v2: 'config.isExtensionEnabled' },
    { v1: 'requiredStatuses', v2: 'config.requiredStatuses' },
    { v1: 'directMergeMode', v2: 'config.directMergeMode' },
    { v1: 'optimizationMode', v2: 'config.optimizationMode', conv: camel },
    { v1: 'mergeMethod', v2: 'config.mergeMethod', conv: camel },
    { v1: 'enqueueingLabel', v2: 'config.enqueueingLabel', conv: (l) => l ?? '' },
  ],
  /** getQueue's settings -> GET /v2/merge-queues/{id}/order's header. */
  orderHeader: [
    { v1: 'mode', v2: 'mode', conv: mode },
    { v1: 'state', v2: 'queueState', conv: camel },
    { v1: 'batch', v2: 'batchingEnabled' },
  ],
  /** getQueue's enqueuedPullRequests[i] -> /order's batches + pending, in order. */
  ordered: [
    { v1: 'prNumber', v2: 'number' },
    { v1: 'prSha', v2: 'sha' },
    { v1: 'prTitle', v2: 'title' },
    { v1: 'state', v2: 'state', conv: camel },
  ],
  /** getQueue's enqueuedPullRequests[i] -> /graph's nodes[i]. */
  node: [
    { v1: 'prNumber', v2: 'pullRequestNumber' },
    { v1: 'prTitle', v2: 'title' },
    { v1: 'prAuthor', v2: 'author' },
    { v1: 'state', v2: 'state', conv: camel },
    { v1: 'priorityValue', v2: 'priorityValue' },
    { v1: 'priorityName', v2: 'priorityName' },
    { v1: 'skipTheLine', v2: 'skipsTheLine' },
    { v1: 'noBatch', v2: 'allowsBatching', conv: not },
  ],
  /** listMergeQueueTestingResults' testingResults[] -> /testing-results' data[]. */
  testingResult: [
    { v1: 'prNumber', v2: 'pullRequestNumber' },
    { v1: 'completedAt', v2: 'endedAt', conv: time },
    { v1: 'testingDurationMs', v2: 'testingDurationMs' },
    { v1: 'outcome', v2: 'outcome', conv: outcome },
    { v1: 'cycleConclusion', v2: 'entryConclusion', conv: nullIsAbsent },
    { v1: 'bisection', v2: 'isBisection', conv: (b) => b === 'in_bisection' },
    { v1: 'isBisection', v2: 'isBisection' },
    { v1: 'startedBisection', v2: 'startedBisection' },
    { v1: 'testRunId', v2: 'verificationRunId' },
  ],
  /** getMergeQueueTestingDetails -> GET /v2/merge-queue-verification-runs/{id}. */
  run: [
    { v1: 'testBranch', v2: 'testBranch' },
    { v1: 'testBranchSha', v2: 'testBranchSha' },
    { v1: 'createdAt', v2: 'createdAt', conv: time },
    { v1: 'status', v2: 'status', conv: camel },
    { v1: 'requiredStatusesSource', v2: 'requiredStatusesSource', conv: camel },
    { v1: 'requiredStatuses', v2: 'requiredStatuses' },
    { v1: 'testedPullRequests[].prNumber', v2: 'testedPullRequests[].number' },
    { v1: 'testedPullRequests[].title', v2: 'testedPullRequests[].title' },
    { v1: 'testedPullRequests[].prUrl', v2: 'testedPullRequests[].url' },
    { v1: 'dependentPrs', v2: 'dependentPullRequests[].number' },
  ],
} satisfies Record<string, Row[]>;
export type Kind = keyof typeof MAPPING;

/** The value at `path` (`a.b`, `list[].field` maps over a list). */
export function valueAt(o: unknown, path: string): unknown {
  const [head, ...rest] = path.split('.');
  if (head === undefined || o === null || typeof o !== 'object') return o === null ? undefined : o;
  if (head.endsWith('[]')) {
    const list = (o as Record<string, unknown>)[head.slice(0, -2)];
    return Array.isArray(list) ? list.map((x) => (rest.length ? valueAt(x, rest.join('.')) : x)) : undefined;
  }
  const v = (o as Record<string, unknown>)[head];
  return rest.length ? valueAt(v, rest.join('.')) : v;
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** Read routes, as published; a path is matched to its template (metrics before `{id}`). */
export const READS = [
  '/v2/repositories',
  '/v2/repositories/{id}',
  '/v2/merge-queues',
  '/v2/merge-queues/metrics',
  '/v2/merge-queues/{id}/metrics',
  '/v2/merge-queues/{id}',
  '/v2/merge-queues/{id}/order',
  '/v2/merge-queues/{id}/graph',
  '/v2/merge-queues/{id}/testing-results',
  '/v2/merge-queues/{id}/pull-requests',
  '/v2/merge-queues/{id}/verification-runs',
  '/v2/merge-queue-verification-runs/{id}',
  '/v2/pull-requests',
  '/v2/pull-requests/{id}',
  '/v2/pull-requests/{id}/verification-runs',
  '/v2/pull-requests/{id}/queue-entry-history',
  '/v2/queue-entry-history',
].map((t) => `GET ${t}`);

const WRITES = [
  'POST /v2/merge-queues',
  'POST /v2/merge-queues/{id}/pull-requests',
  'PATCH /v2/merge-queues/{id}/config',
  'PUT /v2/impacted-targets',
  'DELETE /v2/merge-queues/{id}',
  ...['pause', 'resume', 'drain', 'switch-modes'].map((a) => `POST /v2/merge-queues/{id}/${a}`),
  ...['reprioritize', 'dequeue', 'restart-tests'].map((a) => `POST /v2/pull-requests/{id}/${a}`),
  'PATCH /v2/pull-requests/{id}/queue-entry',
];
const TEMPLATES = [...READS, ...WRITES].map((t) => ({
  t,
  re: new RegExp(`^${t.replaceAll('{id}', '(?!metrics$)[^/]+')}$`),
}));

/** The published route a request is for (`GET /v2/pull-requests/{id}`), else method and path. */
function template(method: string, path: string): string {
  const line = `${method} ${path.split('?')[0]}`;
  return TEMPLATES.find((x) => x.re.test(line))?.t ?? line;
}

/** Where two JSON values differ: `path: a vs b` for each differing leaf (the first few). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    const at = (o: object, k: string) => (o as Record<string, unknown>)[k];
    return keys.flatMap((k) => differences(at(a, k), at(b, k), path ? `${path}.${k}` : k)).slice(0, 5);
  }
  return [`${path || '(whole)'}: ${show(a)} vs ${show(b)}`];
}

type Reply = { status: number; text: string; headers: Headers };

export class Probe {
  requests = { v1: 0, v2: 0, control: 0 };
  decoded = 0;
  compared = 0;
  /** Disagreements: v1 against v2, or two v2 views of one thing. */
  mismatches = 0;
  readonly problems: string[] = [];
  readonly hit = new Set<string>();
  step = '';

  constructor(readonly c: Client) {}

  private fail(what: string): void {
    this.problems.push(`[${this.step}] ${what}`);
  }

  private mismatch(what: string): void {
    this.mismatches++;
    this.fail(what);
  }

  private async send(method: string, path: string, body?: unknown): Promise<Reply> {
    this.requests.v2++;
    this.hit.add(template(method, path));
    return this.c.request(method, path, body, { 'x-api-token': '', authorization: `Bearer ${KEY}` });
  }

  /** A v2 answer: its status, X-Request-Id, and its body decoded by `schema` (problems are kept). */
  async v2<T extends z.ZodType>(schema: T, method: string, path: string, body?: unknown, status = 200) {
    const a = await this.send(method, path, body);
    const route = template(method, path);
    if (a.status !== status) this.fail(`${route}: status ${a.status}, expected ${status}: ${a.text.slice(0, 300)}`);
    if (!/^[0-9a-f-]{36}$/.test(a.headers.get('x-request-id') ?? '')) this.fail(`${route}: no X-Request-Id`);
    const raw: unknown = a.text === '' ? undefined : JSON.parse(a.text);
    const r = schema.safeParse(raw);
    this.decoded++;
    if (!r.success) {
      const issues = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      this.fail(`${route}: answer breaks the schema: ${issues}`);
    }
    return (r.success ? r.data : raw) as z.output<T>;
  }

  /** A Prometheus exposition (text/plain), decoded by `Exposition`. */
  async metrics(path: string): Promise<string> {
    const a = await this.send('GET', path);
    const route = template('GET', path);
    this.decoded++;
    if (a.status !== 200 || !/^text\/plain; version=0\.0\.4/.test(a.headers.get('content-type') ?? ''))
      this.fail(`${route}: status ${a.status}, ${a.headers.get('content-type')}`);
    if (!Exposition.safeParse(a.text).success) this.fail(`${route}: not a text exposition: ${a.text.slice(0, 300)}`);
    return a.text;
  }

  get<T extends z.ZodType>(schema: T, path: string) {
    return this.v2(schema, 'GET', path);
  }

  /** Every page of a v2 list (limit 100), checking `total` against the rows. */
  async all<T extends z.ZodType>(list: (item: T) => z.ZodType, item: T, path: string): Promise<Array<z.output<T>>> {
    const sep = path.includes('?') ? '&' : '?';
    const rows: Array<z.output<T>> = [];
    let cursor: string | null = null;
    let total: number | undefined;
    do {
      const more: string = cursor === null ? '&includeTotal=true' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = (await this.get(list(item), `${path}${sep}limit=100${more}`)) as {
        data: Array<z.output<T>>;
        nextCursor: string | null;
        total?: number;
      };
      if (!Array.isArray(page?.data)) return rows;
      total ??= page.total;
      rows.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    if (total !== rows.length) this.fail(`${template('GET', path)}: total ${total} for ${rows.length} rows`);
    return rows;
  }

  async v1(endpoint: string, body: unknown): Promise<any> {
    this.requests.v1++;
    const a = await this.c.post(endpoint, body);
    if (a.status !== 200) throw new Error(`v1 ${endpoint}: ${a.status} ${a.text}`);
    return a.type?.startsWith('application/json') ? a.json() : a.text;
  }

  async control(path: string, body?: unknown): Promise<any> {
    this.requests.control++;
    const a = body === undefined ? await this.c.get(path) : await this.c.post(path, body);
    if (a.status !== 200) throw new Error(`${path}: ${a.status} ${a.text}`);
    return a.json();
  }

  /** v1 record and v2 record, field by field through `MAPPING[kind]`; `what` names the record. */
  agree(kind: Kind, what: string, v1: unknown, v2: unknown): void {
    for (const row of MAPPING[kind] as Row[]) {
      this.compared++;
      const raw = valueAt(v1, row.v1);
      const want = row.conv ? row.conv(raw, v1) : raw;
      const v2value = valueAt(v2, row.v2);
      const got = row.v2conv ? row.v2conv(v2value, v2) : v2value;
      if (!isDeepStrictEqual(want, got))
        this.mismatch(`${what} ${row.v2}: v1 ${row.v1}=${show(raw)} (v2 form ${show(want)}), v2 ${show(v2value)}`);
    }
  }

  /** Records paired by key: each key on both sides, then `agree`. */
  agreeAll<A, B>(kind: Kind, what: string, v1: A[], v2: B[], key1: (a: A) => string, key2: (b: B) => string): void {
    const byKey = new Map(v2.map((b) => [key2(b), b]));
    for (const a of v1) {
      const b = byKey.get(key1(a));
      if (b === undefined) this.mismatch(`${what} ${key1(a)}: in v1, not in v2`);
      else this.agree(kind, `${what} ${key1(a)}`, a, b);
      byKey.delete(key1(a));
    }
    for (const k of byKey.keys()) this.mismatch(`${what} ${k}: in v2, not in v1`);
  }

  /** Two v2 views of one thing that must be equal. */
  same(what: string, a: unknown, b: unknown): void {
    this.compared++;
    const d = differences(a, b);
    if (d.length) this.mismatch(`${what}: ${d.join('; ').slice(0, 600)}`);
  }
}
