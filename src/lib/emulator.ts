/**
 * The emulator as a test fixture (`import { startEmulator } from 'mq-cli/emulator'`): an in-process
 * merge queue service on a free 127.0.0.1 port, with the control API as typed functions. The
 * functions go through the control API over HTTP (as `mq emulator` users do), so they behave
 * exactly as a separate emulator process would, persistence and the real-clock timer included.
 */
import { randomBytes } from 'node:crypto';

import { startEmulator as startServer } from '../emulator/start-emulator.js';
import type {
  EmulatorRun,
  EmulatorWebhookTarget,
  FakePullRequest,
  FakePullRequestInput,
  StartEmulatorOptions,
} from './emulator-types.js';

export type * from './emulator-types.js';
export type { RepoRef } from './types.js';

export interface EmulatorFixture {
  /** The API base URL (`http://127.0.0.1:<port>/v1`): pass it as `apiUrl`. */
  readonly url: string;
  /** The token it accepts: pass it as `token`. */
  readonly token: string;
  /** The v2 API's base URL (`http://127.0.0.1:<port>/v2`). */
  readonly v2Url: string;
  /** The v2 API key it accepts, with every permission: send it as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  readonly port: number;
  /** Moves the manual clock on by this many minutes; due runs finish, PRs move on. Returns the new time (ISO-8601). */
  advance(minutes: number): Promise<string>;
  /** The emulator's time now (ISO-8601). */
  now(): Promise<string>;
  /** Creates or updates a fake PR on the fake code host: its title, SHA, mergeability and scripted CI outcomes. */
  createPullRequest(input: FakePullRequestInput): Promise<FakePullRequest>;
  /** The test runs, optionally of one repository or branch, oldest first. */
  listRuns(filter?: { host?: string; owner?: string; name?: string; branch?: string }): Promise<EmulatorRun[]>;
  /** Finishes a run in flight now, as passed or failed. */
  completeRun(id: string, result: 'passed' | 'failed'): Promise<EmulatorRun>;
  /** Forgets every queue, PR and run (the clock carries on). */
  reset(): Promise<void>;
  /** Stops listening and closes connections. Safe to call twice. */
  stop(): Promise<void>;
}

export class EmulatorControlError extends Error {
  readonly status: number;
  constructor(what: string, status: number, message: string) {
    super(`${what}: the emulator answered HTTP ${status}: ${message}`);
    this.name = 'EmulatorControlError';
    this.status = status;
  }
}

/** Starts an emulator; stop it with `stop()` (e.g. in afterEach / afterAll). */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<EmulatorFixture> {
  const token = options.token ?? `emu_${randomBytes(16).toString('hex')}`;
  const webhooks: EmulatorWebhookTarget[] | undefined = options.webhooks;
  const startTime =
    options.startTime === undefined
      ? undefined
      : options.startTime instanceof Date
        ? options.startTime.getTime()
        : Date.parse(options.startTime);
  if (options.apiKey !== undefined && !/^[\x21-\x7e]{1,200}$/.test(options.apiKey))
    throw new TypeError('apiKey: expected 1 to 200 printable ASCII characters, no spaces');
  if (startTime !== undefined && Number.isNaN(startTime))
    throw new TypeError(`startTime: ${String(options.startTime)} is not a date`);
  const running = await startServer({
    host: '127.0.0.1',
    port: options.port ?? 0,
    token,
    ...(options.apiKey !== undefined ? { v2Key: options.apiKey } : {}),
    ...(options.rateLimits !== undefined ? { rateLimits: options.rateLimits } : {}),
    clock: options.clock ?? 'manual',
    ...(options.speed !== undefined ? { speed: options.speed } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(startTime !== undefined ? { startTime } : {}),
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const base = running.url;

  async function control<T>(method: 'GET' | 'POST', path: string, what: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}/_emulator/${path}`, {
      method,
      headers: { 'x-api-token': token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new EmulatorControlError(what, res.status, text.slice(0, 500));
    const json = (res.headers.get('content-type') ?? '').includes('json');
    return (json && text !== '' ? JSON.parse(text) : undefined) as T;
  }

  return {
    url: base,
    token,
    v2Url: base.replace(/\/v1$/, '/v2'),
    apiKey: running.apiKeys[0]?.key ?? '',
    port: running.port,
    async advance(minutes) {
      if (!(typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0))
        throw new TypeError('advance(minutes): expected a number of minutes, 0 or more');
      return (await control<{ now: string }>('POST', 'clock/advance', 'advance the clock', { minutes })).now;
    },
    async now() {
      return (await control<{ now: string }>('GET', 'clock', 'read the clock')).now;
    },
    createPullRequest(input) {
      return control<FakePullRequest>('POST', 'pullRequests', `create fake PR #${input.number}`, input);
    },
    async listRuns(filter = {}) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(filter)) if (typeof v === 'string' && v !== '') q.set(k, v);
      const runs: EmulatorRun[] = [];
      for (;;) {
        q.set('offset', String(runs.length));
        const page = await control<{ testRuns: EmulatorRun[]; total: number }>(
          'GET',
          `testRuns?${q}`,
          'list test runs',
        );
        runs.push(...page.testRuns);
        if (page.testRuns.length === 0 || runs.length >= page.total) return runs;
      }
    },
    completeRun(id, result) {
      return control<EmulatorRun>('POST', `testRuns/${encodeURIComponent(id)}/complete`, `complete test run ${id}`, {
        result,
      });
    },
    async reset() {
      await control<unknown>('POST', 'reset', 'reset the emulator');
    },
    stop() {
      return running.close();
    },
  };
}
