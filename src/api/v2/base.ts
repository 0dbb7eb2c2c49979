// What every v2 operation stands on: requests (reads paced, writes described in a dry run), and ids
// resolved once and kept (ids.ts); an id the service no longer knows (404) is resolved again, once.
// A write's or lookup's answer serves the next read of that PR.
import type * as z from 'zod/mini';
import { ApiError, ExitCode, MqError } from '../../errors.js';
import type { ClientOptions, PrRequest } from '../client.js';
import { decode } from '../decode.js';
import type { CallOptions, CallSpec, HttpClient, HttpResponse } from '../http.js';
import type { RepoRef } from '../schemas.js';
import type { IdStore } from './ids.js';
import { Pace, PR_READS_PER_SECOND } from './pace.js';
import { idList, pullRequestList, pullRequestSchema, type V2PullRequest } from './wire.js';

export type Method = CallSpec['method'];
export interface Target {
  repo: RepoRef;
  targetBranch: string;
}

export const enc = encodeURIComponent;
export const repoKey = (r: RepoRef) => `repo ${r.host}/${r.owner}/${r.name}`;
export const prLabel = (n: number) => `PR #${n}`;

/** A 404 saying the id itself is unknown (so a kept id may be stale). */
function unknownId(err: unknown, code: string): boolean {
  return err instanceof ApiError && err.status === 404 && (err.code === undefined || err.code === code);
}

export abstract class V2Base {
  readonly api = 'v2' as const;
  constructor(
    readonly http: HttpClient,
    protected readonly ids: IdStore,
    protected readonly options: ClientOptions = {},
  ) {}

  get dryRun(): boolean {
    return this.options.dryRun !== undefined;
  }

  serviceNow(localNow: () => number): number {
    return this.http.serviceClockOffsetMs === undefined ? localNow() : this.http.serviceNow();
  }

  async read<T>(
    path: string,
    query: Record<string, string>,
    schema: z.ZodMiniType<T>,
    what: string,
    call?: CallOptions,
  ): Promise<T> {
    if (path.startsWith('v2/pull-requests')) await this.prReads.turn(call?.signal);
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

  /** Spaces `GET /v2/pull-requests*` under Trunk's per-key limit. */
  private readonly prReads = new Pace(PR_READS_PER_SECOND);
  /** PRs as a write or lookup just answered them, by id (see takeFresh). */
  private readonly fresh = new Map<string, V2PullRequest>();
  /** Lookups in flight, so parallel reads of a cold cache ask once. */
  private readonly resolving = new Map<string, Promise<string>>();

  /** The lookup of `key` in flight, else `lookUp()` started: parallel reads of a cold cache ask once. */
  private once(key: string, lookUp: () => Promise<string>): Promise<string> {
    let pending = this.resolving.get(key);
    if (!pending) {
      pending = lookUp();
      this.resolving.set(key, pending);
      const done = () => this.resolving.delete(key);
      pending.then(done, done);
    }
    return pending;
  }

  async repositoryId(repo: RepoRef, call?: CallOptions): Promise<string> {
    const key = repoKey(repo);
    return this.ids.get(key) ?? this.once(key, () => this.lookUpRepository(repo, key, call));
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
    return this.ids.get(key) ?? this.once(key, () => this.lookUpQueue(target, repositoryId, key, call));
  }

  private async lookUpQueue(target: Target, repositoryId: string, key: string, call?: CallOptions): Promise<string> {
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

  keepQueueId(repositoryId: string, targetBranch: string, id: string): void {
    this.ids.set(`queue ${repositoryId} ${targetBranch}`, id);
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

  /** The PR's id when kept (no request). */
  keptPullRequestId(repositoryId: string, n: number): string | undefined {
    return this.ids.get(`pr ${repositoryId} ${n}`);
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

  /** A write's answer (the PR after it): its id is kept, and the next read of it is this answer. */
  protected keepAnswer(res: HttpResponse | undefined, req: PrRequest): void {
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
  protected takeFresh(id: string): V2PullRequest | undefined {
    const pr = this.fresh.get(id);
    this.fresh.delete(id);
    return pr;
  }

  /**
   * Trunk honours no idempotency key: a write whose outcome is unknown (sent, then no answer or a 5xx)
   * is read back, and sent once more only if it did not take effect.
   */
  protected async readBackFirst(
    send: () => Promise<HttpResponse | undefined>,
    tookEffect: () => Promise<boolean>,
  ): Promise<HttpResponse | undefined> {
    try {
      return await send();
    } catch (err) {
      const unknown =
        err instanceof MqError &&
        err.exitCode === ExitCode.unavailable &&
        (err instanceof ApiError ? err.status >= 500 : err.why.startsWith('outcome unknown'));
      if (!unknown || (await tookEffect().catch(() => false))) {
        if (unknown) return undefined;
        throw err;
      }
      return send();
    }
  }

  protected async entryInQueue(req: PrRequest, what: string, call?: CallOptions): Promise<V2PullRequest> {
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
}
