/**
 * Load generation and checking for the emulator stress tests (test/e2e/emulator-stress.test.ts).
 *
 * Many async clients share one keep-alive undici Agent and issue mixed API operations. Every PR
 * operation goes into a Ledger stamped with a global sequence number at send and at answer (the
 * event loop is single-threaded, so the numbers give a total order of what the clients observed).
 * From it the checks derive what the service must show afterwards:
 *  - a submission answered 2xx is known to the service for good;
 *  - a cancellation answered 2xx, with every submission of that PR answered before the cancel was
 *    sent, leaves the PR cancelled (nothing can revive it but a later submission);
 *  - PRs merge in queue order: in any getQueue snapshot taken after a PR pair's last submissions,
 *    the earlier one's merge time is not after the later one's (only times, at ms resolution,
 *    are exposed, so equal times are allowed).
 */
import { Agent, request } from 'undici';

export const REPO = { host: 'github.com', owner: 'acme', name: 'stress' };
export const BRANCH = 'main';
export const QUEUE = { repo: REPO, targetBranch: BRANCH };

export const PR_STATES = [
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'merged',
  'failed',
  'cancelled',
  'pending_failure',
] as const;
export const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
/** States an entry of getQueue's enqueuedPullRequests may be in (admitted and not yet out). */
export const ENQUEUED_STATES = new Set(['pending', 'testing', 'tests_passed', 'pending_failure']);

export type OpKind =
  | 'submit'
  | 'getSubmitted'
  | 'cancel'
  | 'restart'
  | 'getQueue'
  | 'listPullRequests'
  | 'updateQueue'
  | 'metrics'
  | 'fakePr';

/** What each operation may legitimately answer under concurrency; anything else is a finding. */
const ALLOWED: Record<OpKind, readonly number[]> = {
  submit: [200],
  getSubmitted: [200, 404],
  cancel: [200, 404],
  restart: [200, 400, 404],
  getQueue: [200],
  listPullRequests: [200],
  updateQueue: [200],
  metrics: [200],
  fakePr: [200],
};

export interface Answer {
  /** 0 when no HTTP answer arrived (connection error, timeout). */
  status: number;
  text: string;
  error?: string;
  sent: number;
  acked: number;
  /** Wall milliseconds from send to the end of the answer. */
  ms: number;
}

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PrEvent {
  op: 'submit' | 'cancel' | 'restart';
  sent: number;
  /** Sequence number of the answer; Infinity when none arrived. */
  acked: number;
  status: number;
}

export class Ledger {
  private seq = 0;
  readonly prs = new Map<number, PrEvent[]>();
  /** PRs created through the control API with breaksBuild: every run containing them fails. */
  readonly breakers = new Set<number>();

  tick(): number {
    return ++this.seq;
  }

  record(pr: number, op: PrEvent['op'], a: Answer): void {
    let list = this.prs.get(pr);
    if (!list) this.prs.set(pr, (list = []));
    list.push({ op, sent: a.sent, acked: a.status === 0 ? Infinity : a.acked, status: a.status });
  }

  /** PRs with at least one submission answered 2xx. */
  ackedSubmits(): number[] {
    const out: number[] = [];
    for (const [pr, evs] of this.prs)
      if (evs.some((e) => e.op === 'submit' && e.status >= 200 && e.status < 300)) out.push(pr);
    return out.sort((a, b) => a - b);
  }

  ackedSubmitCount(): number {
    let n = 0;
    for (const evs of this.prs.values())
      for (const e of evs) if (e.op === 'submit' && e.status >= 200 && e.status < 300) n++;
    return n;
  }

  /** Every PR a submission was sent for, answered or not. */
  submitted(): Set<number> {
    const out = new Set<number>();
    for (const [pr, evs] of this.prs) if (evs.some((e) => e.op === 'submit')) out.add(pr);
    return out;
  }

  /**
   * True when the PR must be cancelled now: some cancel was answered 2xx and every submission of
   * the PR was answered before that cancel was sent (so none can have been applied after it).
   */
  mustBeCancelled(pr: number): boolean {
    const evs = this.prs.get(pr) ?? [];
    const cancels = evs.filter((e) => e.op === 'cancel' && e.status >= 200 && e.status < 300);
    if (cancels.length === 0) return false;
    const last = cancels.reduce((a, b) => (b.sent > a.sent ? b : a));
    return evs.every((e) => e.op !== 'submit' || e.acked < last.sent);
  }

  /** Answer sequence of the PR's last submission; Infinity if one is unanswered; -1 if none. */
  lastSubmitAck(pr: number): number {
    let last = -1;
    for (const e of this.prs.get(pr) ?? []) if (e.op === 'submit') last = Math.max(last, e.acked);
    return last;
  }
}

export interface WireEntry {
  id: string;
  prNumber: number;
  state: string;
  stateChangedAt: string;
}

export interface Snapshot {
  sent: number;
  prs: number[];
}

export interface LoadStats {
  ops: number;
  setupOps: number;
  byOp: Partial<Record<OpKind, Record<string, number>>>;
  /** Answers outside ALLOWED (5xx, unexpected 4xx) and connection errors: must stay empty. */
  unexpected: string[];
  /** Protocol properties broken by an individual answer. */
  violations: string[];
  snapshots: Snapshot[];
  wallMs: number;
  /** Answer times per operation, in ms. */
  latency: Partial<Record<OpKind, number[]>>;
}

/** `op{p50/p99/max}` per operation, in ms. */
export function latencySummary(s: LoadStats): string {
  return Object.entries(s.latency)
    .map(([op, xs]) => {
      const v = [...xs].sort((a, b) => a - b);
      const q = (p: number) => Math.round(v[Math.min(v.length - 1, Math.floor(p * v.length))] ?? 0);
      return `${op}{p50=${q(0.5)} p99=${q(0.99)} max=${q(1)}}`;
    })
    .join(' ');
}

export class StressClient {
  readonly agent: Agent;
  readonly root: string;

  constructor(
    apiUrl: string,
    readonly token: string,
    readonly ledger: Ledger,
    connections = 64,
  ) {
    this.root = apiUrl.replace(/\/v1$/, '');
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(this.root))
      throw new Error(`stress client only talks to 127.0.0.1: ${apiUrl}`);
    this.agent = new Agent({ connections, keepAliveTimeout: 30_000, headersTimeout: 15_000, bodyTimeout: 15_000 });
  }

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const sent = this.ledger.tick();
    const t0 = performance.now();
    try {
      const res = await request(`${this.root}${path}`, {
        dispatcher: this.agent,
        method,
        headers: { 'x-api-token': this.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      return { status: res.statusCode, text, sent, acked: this.ledger.tick(), ms: performance.now() - t0 };
    } catch (err) {
      const e = err as Error & { code?: string };
      return {
        status: 0,
        text: '',
        error: `${e.code ?? e.name}: ${e.message}`,
        sent,
        acked: this.ledger.tick(),
        ms: performance.now() - t0,
      };
    }
  }

  api(endpoint: string, body?: unknown): Promise<Answer> {
    return this.call('POST', `/v1/${endpoint}`, body);
  }

  pr(n: number): Record<string, unknown> {
    return { ...QUEUE, pr: { number: n } };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Checks one getQueue answer; returns the order of PR numbers. */
export function checkQueueSnapshot(json: unknown, concurrency: number, violations: string[]): number[] {
  const q = json as { enqueuedPullRequests?: WireEntry[]; state?: string };
  const entries = q.enqueuedPullRequests;
  if (!Array.isArray(entries)) {
    violations.push(`getQueue: no enqueuedPullRequests array`);
    return [];
  }
  const seen = new Set<number>();
  let testing = 0;
  for (const e of entries) {
    if (seen.has(e.prNumber)) violations.push(`getQueue: PR ${e.prNumber} listed twice`);
    seen.add(e.prNumber);
    if (!ENQUEUED_STATES.has(e.state)) violations.push(`getQueue: PR ${e.prNumber} enqueued in state ${e.state}`);
    if (e.state === 'testing') testing++;
  }
  // Single mode without batching: one PR per run, at most `concurrency` runs in flight.
  if (testing > concurrency) violations.push(`getQueue: ${testing} PRs testing with concurrency ${concurrency}`);
  return entries.map((e) => e.prNumber);
}

export interface LoadOptions {
  client: StressClient;
  clients: number;
  opsPerClient: number;
  seed: number;
  /** Client i owns PR numbers ownBase + i*1000 + k; the shared pool is 1..sharedPool. */
  ownBase: number;
  sharedPool: number;
  concurrency: number;
  /** Stop issuing once this returns true (fault injection); answers after it are not judged. */
  stop?: () => boolean;
  /** Called after every answered operation (e.g. to trigger a kill). */
  onAnswer?: () => void;
  /** Hard bound on the wall time of the load. */
  deadlineMs: number;
  breakerRate?: number;
}

/** Runs the mixed load and returns what happened; the caller asserts on it. */
export async function runLoad(o: LoadOptions): Promise<LoadStats> {
  const { client, ledger } = { client: o.client, ledger: o.client.ledger };
  const stats: LoadStats = {
    ops: 0,
    setupOps: 0,
    byOp: {},
    unexpected: [],
    violations: [],
    snapshots: [],
    wallMs: 0,
    latency: {},
  };
  const start = Date.now();
  const deadline = start + o.deadlineMs;
  const stopped = () => (o.stop?.() ?? false) || Date.now() > deadline;

  const note = (op: OpKind, a: Answer, setup = false): boolean => {
    if (setup) stats.setupOps++;
    else stats.ops++;
    const key = a.status === 0 ? 'error' : String(a.status);
    const bucket = (stats.byOp[op] ??= {});
    bucket[key] = (bucket[key] ?? 0) + 1;
    (stats.latency[op] ??= []).push(a.ms);
    // After a fault was injected on purpose, failed answers are expected and not judged.
    const judged = !(o.stop?.() ?? false);
    if (judged && !ALLOWED[op].includes(a.status)) {
      stats.unexpected.push(`${op}: ${a.status === 0 ? a.error : `${a.status} ${a.text.slice(0, 200)}`}`);
    }
    o.onAnswer?.();
    return a.status >= 200 && a.status < 300;
  };

  async function worker(i: number): Promise<void> {
    const rand = rng(o.seed * 1_000 + i);
    const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
    const own: number[] = [];
    let lastTesting: number[] = [];
    const shared = () => 1 + Math.floor(rand() * o.sharedPool);
    const anyPr = () => (rand() < 0.6 && own.length > 0 ? (pick(own) as number) : shared());

    for (let k = 0; k < o.opsPerClient && !stopped(); k++) {
      const r = rand();
      if (r < 0.3) {
        let n: number;
        if (rand() < 0.7) {
          if (own.length === 0 || rand() < 0.6) {
            n = o.ownBase + i * 1_000 + own.length;
            own.push(n);
            // Give the new PR a short CI time (so runs finish during the load); some break the build.
            const breaks = rand() < (o.breakerRate ?? 0.04);
            const fake = await client.call('POST', '/_emulator/pullRequests', {
              repo: REPO,
              number: n,
              testMinutes: 1 + Math.floor(rand() * 4),
              breaksBuild: breaks,
            });
            if (note('fakePr', fake, true) && breaks) ledger.breakers.add(n);
            if (stopped()) break;
          } else n = pick(own) as number;
        } else n = shared();
        const a = await client.api('submitPullRequest', client.pr(n));
        ledger.record(n, 'submit', a);
        note('submit', a);
      } else if (r < 0.45) {
        const n = anyPr();
        const a = await client.api('getSubmittedPullRequest', client.pr(n));
        note('getSubmitted', a);
        if (a.status === 200) {
          const pr = JSON.parse(a.text) as { prNumber: number; state: string; isCurrentlySubmittedToQueue: boolean };
          if (pr.prNumber !== n) stats.violations.push(`getSubmitted ${n}: answered PR ${pr.prNumber}`);
          if (!(PR_STATES as readonly string[]).includes(pr.state))
            stats.violations.push(`getSubmitted ${n}: unknown state ${pr.state}`);
          if (pr.isCurrentlySubmittedToQueue === TERMINAL.has(pr.state)) {
            stats.violations.push(
              `getSubmitted ${n}: state ${pr.state} with isCurrentlySubmittedToQueue=${pr.isCurrentlySubmittedToQueue}`,
            );
          }
        } else if (
          a.status === 404 &&
          ledger.lastSubmitAck(n) >= 0 &&
          (ledger.prs.get(n) ?? []).some((e) => e.op === 'submit' && e.status === 200 && e.acked < a.sent)
        ) {
          // Read-your-writes: a submission answered before this read was sent must be visible.
          stats.violations.push(`getSubmitted ${n}: 404 although a submission was acknowledged before`);
        }
      } else if (r < 0.55) {
        const n = anyPr();
        const a = await client.api('cancelPullRequest', client.pr(n));
        ledger.record(n, 'cancel', a);
        note('cancel', a);
      } else if (r < 0.63) {
        // Prefer PRs seen testing, so restarts actually restart something.
        const n = lastTesting.length > 0 && rand() < 0.7 ? (pick(lastTesting) as number) : anyPr();
        const a = await client.api('restartTestsOnPullRequest', client.pr(n));
        ledger.record(n, 'restart', a);
        note('restart', a);
      } else if (r < 0.75) {
        const a = await client.api('getQueue', QUEUE);
        if (note('getQueue', a)) {
          const json = JSON.parse(a.text) as { enqueuedPullRequests: WireEntry[] };
          const prs = checkQueueSnapshot(json, o.concurrency, stats.violations);
          stats.snapshots.push({ sent: a.sent, prs });
          lastTesting = json.enqueuedPullRequests.filter((e) => e.state === 'testing').map((e) => e.prNumber);
        }
      } else if (r < 0.87) {
        const state = rand() < 0.5 ? pick(PR_STATES) : undefined;
        const take = 1 + Math.floor(rand() * 100);
        const a = await client.api('listPullRequests', { ...QUEUE, take, ...(state ? { state } : {}) });
        if (note('listPullRequests', a)) {
          const page = (JSON.parse(a.text) as { pullRequests: WireEntry[] }).pullRequests;
          if (page.length > take) stats.violations.push(`listPullRequests: ${page.length} entries for take=${take}`);
          if (new Set(page.map((p) => p.prNumber)).size !== page.length)
            stats.violations.push('listPullRequests: duplicate PR in one page');
          for (const p of page)
            if (state && p.state !== state) stats.violations.push(`listPullRequests state=${state}: got ${p.state}`);
        }
      } else if (r < 0.9) {
        const state = rand() < 0.25 ? 'paused' : 'running';
        const a = await client.api('updateQueue', { ...QUEUE, state });
        if (note('updateQueue', a) && (JSON.parse(a.text) as { state: string }).state !== state) {
          stats.violations.push(`updateQueue ${state}: answered another state`);
        }
      } else {
        const a = await client.call('GET', '/v1/getMergeQueueMetrics');
        if (note('metrics', a) && !a.text.includes('# TYPE mq_depth_current gauge'))
          stats.violations.push('metrics: no mq_depth_current');
      }
    }
  }

  await Promise.all(Array.from({ length: o.clients }, (_, i) => worker(i)));
  stats.wallMs = Date.now() - start;
  return stats;
}

/** Pages through listPullRequests (optionally one state) and returns every entry. */
export async function listAll(client: StressClient, state?: string): Promise<WireEntry[]> {
  const out: WireEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const a = await client.api('listPullRequests', {
      ...QUEUE,
      take: 100,
      ...(state ? { state } : {}),
      ...(cursor ? { cursor } : {}),
    });
    if (a.status !== 200) throw new Error(`listPullRequests: ${a.status} ${a.error ?? a.text}`);
    const body = JSON.parse(a.text) as { pullRequests: WireEntry[]; nextCursor?: string };
    out.push(...body.pullRequests);
    if (!body.nextCursor) return out;
    cursor = body.nextCursor;
  }
  throw new Error('listPullRequests: more than 10000 pages');
}

/** Runs `fn` over `items` with at most `width` in flight. */
export async function inParallel<T, R>(items: readonly T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

export interface FinalReport {
  checked: number;
  states: Record<string, number>;
  cancelledChecked: number;
  violations: string[];
}

/**
 * After the load: every acknowledged submission is known, in a state the semantics allow; PRs the
 * ledger says must be cancelled are; PRs that break the build never merged.
 */
export async function checkFinalStates(client: StressClient, opts: { queueRunning: boolean }): Promise<FinalReport> {
  const ledger = client.ledger;
  const report: FinalReport = { checked: 0, states: {}, cancelledChecked: 0, violations: [] };
  await inParallel(ledger.ackedSubmits(), 16, async (n) => {
    const a = await client.api('getSubmittedPullRequest', client.pr(n));
    report.checked++;
    if (a.status !== 200) {
      report.violations.push(`PR ${n}: acknowledged submission not found (${a.status} ${a.error ?? a.text})`);
      return;
    }
    const pr = JSON.parse(a.text) as { state: string; isCurrentlySubmittedToQueue: boolean; prNumber: number };
    report.states[pr.state] = (report.states[pr.state] ?? 0) + 1;
    if (pr.prNumber !== n) report.violations.push(`PR ${n}: answered as PR ${pr.prNumber}`);
    if (!(PR_STATES as readonly string[]).includes(pr.state))
      report.violations.push(`PR ${n}: unknown state ${pr.state}`);
    if (pr.isCurrentlySubmittedToQueue === TERMINAL.has(pr.state))
      report.violations.push(`PR ${n}: ${pr.state} but isCurrentlySubmittedToQueue=${pr.isCurrentlySubmittedToQueue}`);
    // Every PR here is mergeable and based on the branch, so a running queue admits it at once.
    if (opts.queueRunning && pr.state === 'not_ready') report.violations.push(`PR ${n}: not_ready in a running queue`);
    if (ledger.mustBeCancelled(n)) {
      report.cancelledChecked++;
      if (pr.state !== 'cancelled')
        report.violations.push(`PR ${n}: cancel acknowledged after its last submission, but it is ${pr.state}`);
    }
    if (ledger.breakers.has(n) && pr.state === 'merged') report.violations.push(`PR ${n}: breaks the build but merged`);
  });
  return report;
}

/**
 * Merge order against queue order: for each snapshot, the PRs in it whose every submission was
 * answered before the snapshot was requested (so the snapshot shows the trip they ended with) and
 * which ended merged must have non-decreasing merge times in snapshot order.
 */
export function checkMergeOrder(
  snapshots: Snapshot[],
  ledger: Ledger,
  mergedAt: Map<number, number>,
): { pairs: number; violations: string[] } {
  let pairs = 0;
  const violations: string[] = [];
  for (const s of snapshots) {
    let prev: { n: number; at: number } | undefined;
    for (const n of s.prs) {
      const at = mergedAt.get(n);
      if (at === undefined) continue;
      if (ledger.lastSubmitAck(n) >= s.sent) continue;
      if (prev) {
        pairs++;
        if (at < prev.at && violations.length < 10) {
          violations.push(
            `PR ${prev.n} was ahead of PR ${n} in the queue but merged later (${new Date(prev.at).toISOString()} > ${new Date(at).toISOString()})`,
          );
        }
      }
      prev = { n, at };
    }
  }
  return { pairs, violations };
}

/** Peak and current resident memory (MiB) and CPU time used (s) of a process, from /proc (Linux). */
export async function procMemory(pid: number): Promise<{ hwmMiB: number; rssMiB: number; cpuS: number } | undefined> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    // /proc/PID/stat: fields 14 and 15 (utime, stime) in clock ticks, counted after the `(comm)`.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuS = (Number(fields[11]) + Number(fields[12])) / 100;
    return { hwmMiB: kb('VmHWM') / 1024, rssMiB: kb('VmRSS') / 1024, cpuS };
  } catch {
    return undefined;
  }
}
