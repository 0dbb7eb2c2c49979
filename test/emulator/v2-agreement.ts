/**
 * v1 <-> v2 agreement for the workload test: a probe that counts requests, decodes every v2 answer
 * with the strict schemas, records which v2 routes were hit, and compares v1 and v2 records through
 * the mapping table (v2-mapping.ts), reporting each disagreement with its record, field and both values.
 */
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';

import type { Client } from './http-helpers.js';
import { type Kind, MAPPING, type Row, valueAt } from './v2-mapping.js';
import { Exposition, KEY } from './v2-helpers.js';

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

/** Write routes, as published. */
export const WRITES = [
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

  /** A v1 GET answered as text (metrics). */
  async v1Text(path: string): Promise<string> {
    this.requests.v1++;
    const a = await this.c.get(path);
    if (a.status !== 200) throw new Error(`v1 ${path}: ${a.status} ${a.text}`);
    return a.text;
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
