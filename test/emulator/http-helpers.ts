/**
 * In-process emulator for HTTP tests: manual clock, fixed seed and start time, 127.0.0.1 port 0.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../src/emulator/index.js';

export const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);
export const repo = { host: 'github.com', owner: 'acme', name: 'app' };
export const queue = { repo, targetBranch: 'main' };
export const TOKEN = 'test-token-0123456789';

export interface Answer {
  status: number;
  text: string;
  type: string | null;
  headers: Headers;
  json<T = any>(): T;
}

export class Client {
  constructor(
    readonly emu: Pick<RunningEmulator, 'url' | 'token'>,
    readonly token = emu.token,
  ) {}

  get origin(): string {
    return this.emu.url.replace(/\/v1$/, '');
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${this.origin}${path}`, {
      method,
      headers: { 'x-api-token': this.token, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      text,
      type: res.headers.get('content-type'),
      headers: res.headers,
      json: () => JSON.parse(text),
    };
  }

  post(endpoint: string, body: unknown, headers?: Record<string, string>): Promise<Answer> {
    return this.request('POST', endpoint.startsWith('/') ? endpoint : `/v1/${endpoint}`, body, headers);
  }

  get(path: string): Promise<Answer> {
    return this.request('GET', path);
  }

  advance(minutes: number): Promise<Answer> {
    return this.post('/_emulator/clock/advance', { minutes });
  }

  /** PR `number` submitted, cancelled 3 minutes later and submitted again a minute after that. */
  async twoTrips(number: number): Promise<void> {
    const submit = () => this.post('submitPullRequest', { ...queue, pr: { number } });
    await submit();
    await this.advance(3);
    await this.post('cancelPullRequest', { ...queue, pr: { number } });
    await this.advance(1);
    await submit();
  }

  /** The queue created, and PR `number` (with `fields`) failed on its one run an hour later. */
  async queueWithFailedPr(number: number, fields: Record<string, unknown> = {}): Promise<void> {
    await this.post('createQueue', queue);
    await this.post('/_emulator/pullRequests', { repo, number, ...fields, outcomes: ['fail'] });
    await this.post('submitPullRequest', { ...queue, pr: { number } });
    await this.advance(60);
  }

  async runs(): Promise<Array<{ id: string; prNumbers: number[]; basePrNumbers: number[]; status: string }>> {
    return (await this.get('/_emulator/testRuns')).json().testRuns;
  }

  async pr(number: number): Promise<any> {
    const a = await this.post('getSubmittedPullRequest', { ...queue, pr: { number } });
    if (a.status !== 200) throw new Error(`getSubmittedPullRequest ${number}: ${a.status} ${a.text}`);
    return a.json();
  }
}

export async function startTestEmulator(
  options: StartEmulatorOptions = {},
): Promise<{ emu: RunningEmulator; client: Client }> {
  const emu = await startEmulator({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    clock: 'manual',
    seed: 7,
    startTime: T0,
    ...options,
  });
  return { emu, client: new Client(emu) };
}

/**
 * The test emulator as a fixture: a fresh one for each test (or one for the file with `all`),
 * closed after. The returned emulator and client stand for the current one.
 */
export function useEmulator(
  options: StartEmulatorOptions = {},
  scope: 'each' | 'all' = 'each',
): { emu: RunningEmulator; client: Client } {
  const emu = {} as RunningEmulator;
  const client = new Client(emu, options.token ?? TOKEN);
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => void Object.assign(emu, (await startTestEmulator(options)).emu));
  after(() => emu.close?.());
  return { emu, client };
}

/** Streams for runEmulatorStart that keep what it writes. */
export function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
}

/** Waits (5 s at most) until check() holds. */
export async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
