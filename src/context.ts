// The deps every behaviour gets (like gh's Factory): streams, env, cwd, clock, signal, options,
// presenter, config and a lazy client. Tests build one with memory IO, a fixed clock and a fake client.
import { setMaxListeners } from 'node:events';
import type { MergeQueueService } from './api/service.js';
import type { RequestDescription } from './api/http.js';
import type { RepoRef } from './api/schemas.js';
import { checkedTimeout } from './api/connection-checks.js';
import { type ApiChoice, chooseApi } from './config/api-choice.js';
import { tokenDestinationError } from './config/api-url.js';
import {
  activeProfile,
  DEFAULT_API_URL,
  findProfile,
  missingToken,
  resolveApiUrl,
  resolveBranch,
  resolveProfileName,
  resolveRepo,
  resolveToken,
  type GlobalFlags,
  type Sourced,
} from './config/resolve.js';
import { configDir, ProfileStore, type ConfigData, type Profile } from './config/store.js';
import { UsageError } from './errors.js';
import type { IO } from './output/io.js';
import { Presenter } from './output/present.js';
import { FORMATS, own, paints } from './output/render.js';
import { safeLine } from './output/sanitize.js';
import { systemClock, type Clock } from './util/clock.js';
import { parseDuration } from './util/duration.js';

export { checkedTimeout, MAX_TIMEOUT_MS } from './api/connection-checks.js';

declare const MQ_VERSION: string;
export const VERSION: string = typeof MQ_VERSION === 'string' ? MQ_VERSION : '0.0.0-dev';

export interface GlobalOptions extends GlobalFlags {
  json?: boolean;
  output?: string;
  timeout?: string;
  debug?: boolean;
  color?: boolean;
}

export interface Target {
  repo: RepoRef;
  targetBranch: string;
}

/** Builds the API client; tests replace it with a fake. */
export interface ClientOptions {
  /** Mutations are recorded in `dryRuns`, not sent; no token is needed. */
  dryRun?: boolean;
  /** The command waits: --timeout bounds the wait (passed per call as a deadline), not each request. */
  waiting?: boolean;
  /** Epoch ms: no request of this client, side reads included, starts, is retried or runs past it. */
  deadline?: number;
  /** This service and token instead of the resolved ones (`auth login` checks the token it is about to store). */
  connection?: { apiUrl: string; token: string };
  /** A fork PR's workflow run id: it authenticates setImpactedTargets, so no token is needed for it. */
  forkedWorkflowRunId?: string;
}
export type ClientFactory = (deps: Context, opts: ClientOptions) => Promise<MergeQueueService>;

/** What a behaviour may use. */
export type Deps = Pick<
  Context,
  | 'io'
  | 'env'
  | 'cwd'
  | 'clock'
  | 'signal'
  | 'options'
  | 'out'
  | 'client'
  | 'target'
  | 'profile'
  | 'config'
  | 'store'
  | 'connection'
  | 'dryRuns'
  | 'debug'
  | 'debugEnabled'
>;

export class Context {
  readonly env: NodeJS.ProcessEnv;
  readonly io: IO;
  readonly cwd: string;
  readonly clock: Clock;
  /** Aborted on Ctrl-C and by run() once the command has its outcome, so nothing it started outlives it. */
  readonly signal: AbortSignal;
  readonly out: Presenter;
  options: GlobalOptions = {};
  /** The command being run, e.g. `mq queue update` (set while parsing; for usage hints). */
  commandPath = 'mq';
  /** What the command run by this context exits with. */
  exitCode = 0;
  /** Requests a dry-run client described instead of sending. */
  readonly dryRuns: RequestDescription[] = [];
  /** Tests of the wiring: receives each command's typed options instead of running it. */
  intercept?: (command: string, options: unknown) => void;
  private readonly clientFactory: ClientFactory;
  private readonly ended = new AbortController();
  private cachedConfig?: ConfigData;
  private cachedClient?: MergeQueueService;

  constructor(init: {
    env: NodeJS.ProcessEnv;
    io: IO;
    cwd: string;
    clock?: Clock;
    signal?: AbortSignal;
    client?: ClientFactory;
  }) {
    this.env = init.env;
    this.io = init.io;
    this.cwd = init.cwd;
    this.clock = init.clock ?? systemClock;
    this.signal = init.signal ? AbortSignal.any([init.signal, this.ended.signal]) : this.ended.signal;
    // Every request in flight listens to it (a bulk run has --parallel of them).
    setMaxListeners(0, this.signal);
    this.clientFactory = init.client ?? httpClientFactory;
    this.out = new Presenter(this.io, () => this.options);
  }

  /** The command has its outcome: whatever it still has in flight is aborted (a Context runs one command line). */
  end(): void {
    this.ended.abort();
  }

  /** Called once commander has parsed the global options. */
  setOptions(options: GlobalOptions): void {
    this.options = options;
    if (options.color === false) {
      this.io.color = false;
      this.io.colorErr = false;
    }
    if (options.output !== undefined && !(FORMATS as readonly string[]).includes(options.output)) {
      throw new UsageError(`--output: unknown format "${options.output}"; expected one of ${FORMATS.join(', ')}`);
    }
  }

  get debugEnabled(): boolean {
    return (
      this.options.debug === true ||
      (this.env.MQ_DEBUG !== undefined && this.env.MQ_DEBUG !== '' && this.env.MQ_DEBUG !== '0')
    );
  }

  debug(line: string): void {
    // Debug lines carry what the service sent (bodies, Location headers): inert on a terminal.
    if (this.debugEnabled) this.io.err(`mq: debug: ${safeLine(line)}\n`);
  }

  store(): ProfileStore {
    return new ProfileStore(configDir(this.env), (line) => this.io.err(line));
  }

  config(): ConfigData {
    this.cachedConfig ??= this.store().read({ lenient: true });
    return this.cachedConfig;
  }

  profile(): { name: Sourced<string>; data: Profile } {
    const config = this.config();
    const name = resolveProfileName(this.options, this.env, config);
    return { name, data: activeProfile(name, config) };
  }

  target(): Target & { sources: { repo: string; branch: string } } {
    const { name, data } = this.profile();
    const t = { flags: this.options, env: this.env, profile: data, profileName: name.value, cwd: this.cwd };
    const repo = resolveRepo(t);
    const branch = resolveBranch(t);
    return { repo: repo.value, targetBranch: branch.value, sources: { repo: repo.source, branch: branch.source } };
  }

  connection(): { apiUrl: Sourced<string>; token?: Sourced<string>; profile: Sourced<string>; api: ApiChoice } {
    const { name, data } = this.profile();
    const apiUrl = resolveApiUrl(this.options, this.env, data, name.value);
    const token = resolveToken(this.env, data, name.value);
    const api = chooseApi({
      flag: this.options.api,
      env: this.env,
      profile: data,
      profileName: name.value,
      apiUrl,
      token: token?.value,
    });
    if (token) this.io.addSecret(token.value);
    // Checked against where requests really go (v2: the URL's origin, or Trunk's by default).
    const refused = tokenDestinationError({
      apiUrl: { value: api.baseUrl, source: apiUrl.source },
      tokenSource: token?.source,
      profileName: name.value,
      profileApiUrl: data.apiUrl,
      defaultApiUrl: DEFAULT_API_URL,
    });
    if (refused) throw refused;
    return { apiUrl, token, profile: name, api };
  }

  /** The API client; with `dryRun`, mutations are recorded in `dryRuns` instead of sent and no token is needed. */
  async client(opts: ClientOptions = {}): Promise<MergeQueueService> {
    const plain =
      !opts.dryRun && !opts.waiting && opts.deadline === undefined && !opts.connection && !opts.forkedWorkflowRunId;
    if (this.cachedClient && plain) return this.cachedClient;
    const client = await this.clientFactory(this, opts);
    if (plain) this.cachedClient = client;
    return client;
  }
}

/** The per-request limit: MQ_TIMEOUT, else 30 s. --timeout sets it too, except for waits (there it bounds the wait). */
export function requestTimeoutMs(options: GlobalOptions, env: NodeJS.ProcessEnv, waiting: boolean): number {
  const flag = waiting ? undefined : options.timeout;
  const raw = flag ?? (env.MQ_TIMEOUT || undefined);
  if (raw === undefined) return 30_000;
  const source = flag !== undefined ? '--timeout' : 'MQ_TIMEOUT';
  return checkedTimeout(parseDuration(raw, source), source);
}

/** The setting behind the per-request limit, for hints: while waiting --timeout bounds the wait, not each request. */
export function timeoutSourceOf(options: GlobalOptions, env: NodeJS.ProcessEnv, waiting: boolean): string {
  if (!waiting && options.timeout !== undefined) return '--timeout';
  if (env.MQ_TIMEOUT) return 'MQ_TIMEOUT';
  return waiting ? 'MQ_TIMEOUT (each request of a wait; default 30s)' : '--timeout or MQ_TIMEOUT (default 30s)';
}

/** `auth login`'s connection: the URL and token given, and the API the profile being logged into would use. */
function connectionOf(ctx: Context, given: { apiUrl: string; token: string }) {
  const config = ctx.config();
  // The profile may not exist yet; its own `api` counts, so a key it could not use is refused here.
  const name = resolveProfileName(ctx.options, ctx.env, config).value;
  const api = chooseApi({
    flag: ctx.options.api,
    env: ctx.env,
    profile: findProfile(config, name) ?? {},
    profileName: name,
    apiUrl: { value: given.apiUrl, source: 'flag --api-url' },
    token: given.token,
  });
  return { apiUrl: { value: given.apiUrl }, token: { value: given.token }, profile: { value: '' }, api };
}

/** The real client: the HTTP layer over the resolved API URL and token. */
export const httpClientFactory: ClientFactory = async (ctx, opts) => {
  // Command-line mistakes first (exit 2), then configuration (exit 7).
  const timeoutMs = requestTimeoutMs(ctx.options, ctx.env, opts.waiting === true);
  const conn = opts.connection ? connectionOf(ctx, opts.connection) : ctx.connection();
  if (!conn.token && !opts.dryRun && !opts.forkedWorkflowRunId) throw missingToken(conn.profile.value);
  const v2 = conn.api.api === 'v2';
  const [{ HttpClient }, { MergeQueueClient }, v2Client, ids] = await Promise.all([
    import('./api/http.js'),
    import('./api/client.js'),
    v2 ? import('./api/v2/client.js') : undefined,
    v2 ? import('./api/v2/ids.js') : undefined,
  ]);
  const http = new HttpClient({
    baseUrl: conn.api.baseUrl,
    api: conn.api.api,
    token: conn.token?.value ?? '',
    ...(opts.forkedWorkflowRunId ? { forkedWorkflowRunId: opts.forkedWorkflowRunId } : {}),
    userAgent: `mq/${VERSION}`,
    timeoutMs,
    timeoutSource: timeoutSourceOf(ctx.options, ctx.env, opts.waiting === true),
    signal: ctx.signal,
    deadline: opts.deadline,
    now: () => ctx.clock.now(),
    env: ctx.env,
    debug: ctx.debugEnabled ? (line) => ctx.debug(line) : undefined,
    warn: (message) => ctx.out.note([own(paints.yellow, 'warning:'), ` ${message}`]),
    backoffMs: ctx.env.MQ_RETRY_BASE_MS ? Number(ctx.env.MQ_RETRY_BASE_MS) : undefined,
  });
  const options = opts.dryRun ? { dryRun: (req: RequestDescription) => ctx.dryRuns.push(req) } : {};
  if (v2Client && ids) {
    const store = ids.fileIdStore(ids.idCacheDir(ctx.env, ctx.env.HOME), new URL(conn.api.baseUrl).origin);
    return new v2Client.V2Client(http, store, options);
  }
  return new MergeQueueClient(http, options);
};
