/**
 * The dependency bag handed to every command: streams, environment, clock, settings and a lazily
 * built API client. Tests build one with string streams and a fake clock; nothing in a command
 * reaches for `process` directly.
 */
import type { MergeQueueClient } from './api/client.js';
import type { RequestDescription } from './api/http.js';
import type { RepoRef } from './api/schemas.js';
import { tokenDestinationError } from './config/api-url.js';
import {
  activeProfile,
  DEFAULT_API_URL,
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
import { FORMATS, type Format } from './output/render.js';
import { makeStyle, type Style } from './output/style.js';
import { parseDuration } from './util/duration.js';

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

export class Context {
  readonly env: NodeJS.ProcessEnv;
  readonly io: IO;
  readonly cwd: string;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Aborted on Ctrl-C, so long waits can stop promptly. */
  readonly signal: AbortSignal;
  options: GlobalOptions = {};
  /** The command being run, e.g. `mq queue update` (set while parsing; for usage hints). */
  commandPath = 'mq';
  /** What the command run by this context exits with. */
  exitCode = 0;
  /** Set by waiting commands: --timeout then bounds the wait, not each request. */
  waiting = false;
  private cachedConfig?: ConfigData;
  private cachedClient?: MergeQueueClient;

  constructor(init: { env: NodeJS.ProcessEnv; io: IO; cwd: string; now?: () => number; sleep?: (ms: number) => Promise<void>; signal?: AbortSignal }) {
    this.env = init.env;
    this.io = init.io;
    this.cwd = init.cwd;
    this.now = init.now ?? Date.now;
    this.sleep = init.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.signal = init.signal ?? new AbortController().signal;
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
    return this.options.debug === true || (this.env.MQ_DEBUG !== undefined && this.env.MQ_DEBUG !== '' && this.env.MQ_DEBUG !== '0');
  }

  debug(line: string): void {
    if (this.debugEnabled) this.io.err(`mq: debug: ${line}\n`);
  }

  /** The output format: --json, else -o, else a table on a terminal and plain rows in a pipe. */
  format(fallback?: Format): Format {
    if (this.options.json) return 'json';
    if (this.options.output) return this.options.output as Format;
    return fallback ?? (this.io.stdoutIsTTY ? 'table' : 'plain');
  }

  get style(): Style {
    return makeStyle(this.io.color);
  }

  get styleErr(): Style {
    return makeStyle(this.io.colorErr);
  }

  /** Request timeout in ms: --timeout > MQ_TIMEOUT > 30 s. */
  requestTimeoutMs(): number {
    const flag = this.waiting ? undefined : this.options.timeout;
    const raw = flag ?? (this.env.MQ_TIMEOUT || undefined);
    if (raw === undefined) return 30_000;
    const source = flag !== undefined ? '--timeout' : 'MQ_TIMEOUT';
    return checkedTimeout(parseDuration(raw, source), source);
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

  connection(): { apiUrl: Sourced<string>; token?: Sourced<string>; profile: Sourced<string> } {
    const { name, data } = this.profile();
    const apiUrl = resolveApiUrl(this.options, this.env, data, name.value);
    const token = resolveToken(this.env, data, name.value);
    if (token) this.io.addSecret(token.value);
    const refused = tokenDestinationError({ apiUrl, tokenSource: token?.source, profileName: name.value, profileApiUrl: data.apiUrl, defaultApiUrl: DEFAULT_API_URL });
    if (refused) throw refused;
    return { apiUrl, token, profile: name };
  }

  /** The API client; with `dryRun`, mutations are printed instead of sent and no token is needed. */
  async client(opts: { dryRun?: boolean } = {}): Promise<MergeQueueClient> {
    if (this.cachedClient && !opts.dryRun) return this.cachedClient;
    // Command-line mistakes first (exit 2), then configuration (exit 7).
    const timeoutMs = this.requestTimeoutMs();
    const conn = this.connection();
    if (!conn.token && !opts.dryRun) throw missingToken(conn.profile.value);
    const [{ HttpClient }, { MergeQueueClient }] = await Promise.all([import('./api/http.js'), import('./api/client.js')]);
    const http = new HttpClient({
      baseUrl: conn.apiUrl.value,
      token: conn.token?.value ?? '',
      userAgent: `mq/${VERSION}`,
      timeoutMs,
      signal: this.signal,
      now: this.now,
      env: this.env,
      debug: this.debugEnabled ? (line) => this.debug(line) : undefined,
      backoffMs: this.env.MQ_RETRY_BASE_MS ? Number(this.env.MQ_RETRY_BASE_MS) : undefined,
    });
    if (opts.dryRun) return new MergeQueueClient(http, { dryRun: (req) => this.printDryRun(req) });
    this.cachedClient = new MergeQueueClient(http);
    return this.cachedClient;
  }

  /** Dry runs print to stdout (the request is the data) unless --json wants it as a document. */
  readonly dryRuns: RequestDescription[] = [];
  private printDryRun(req: RequestDescription): void {
    this.dryRuns.push(req);
    if (this.format() === 'json') return;
    const lines = [`${req.method} ${req.url}`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`)];
    if (req.body !== undefined) lines.push('', req.body);
    const saveBody = req.body !== undefined && req.body.length > CURL_INLINE_MAX ? ' and save the body above as body.json' : '';
    lines.push('', `# equivalent curl command (set MQ_TOKEN first${saveBody}):`, curlCommand(req), '');
    this.io.out(`${lines.join('\n')}\n`);
  }
}

/** Timers take at most 2^31-1 ms (about 24.8 days); anything longer is refused, not wrapped. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkedTimeout(ms: number, source: string): number {
  if (ms <= 0) throw new UsageError(`${source}: must be greater than zero`);
  if (ms > MAX_TIMEOUT_MS) throw new UsageError(`${source}: must be at most 24 days`);
  return ms;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const CURL_INLINE_MAX = 4096;

export function curlCommand(req: RequestDescription): string {
  const parts = ['curl', '-sS', '-X', req.method, shellQuote(req.url)];
  for (const [k, v] of Object.entries(req.headers)) {
    if (k === 'x-api-token') parts.push('-H', `"x-api-token: $MQ_TOKEN"`);
    else if (k !== 'user-agent' && k !== 'accept') parts.push('-H', shellQuote(`${k}: ${v}`));
  }
  if (req.body !== undefined) parts.push('--data-binary', req.body.length > CURL_INLINE_MAX ? '@body.json' : shellQuote(req.body));
  return parts.join(' ');
}
