/** Starts the built `mq emulator start` as a child process and talks to its control API. */
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { BIN, baseEnv, tempDir } from './run-cli.js';

export type Api = 'v1' | 'v2';
/** The APIs the spawned tests against the emulator run on, each with the same expected output. */
export const APIS: Api[] = ['v1', 'v2'];

export interface EmulatorProcess {
  url: string;
  token: string;
  /** The v2 key with every permission the emulator printed. */
  v2Key: string;
  api: Api;
  child: ResultPromise;
  /** Environment for `runCli` pointing at this emulator on `api` (v2: the origin, the v2 key, a private id cache). */
  env: Record<string, string | undefined>;
  /** Environment for `runCli` pointing at this emulator on another API (its own id cache on v2). */
  envFor(api: Api): Record<string, string | undefined>;
  control(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown; text: string }>;
  /** A v1 call with the token: its JSON (undefined for a mutation's `OK`); throws unless 200. */
  post(endpoint: string, body: unknown): Promise<unknown>;
  /** The emulator's clock, in epoch milliseconds. */
  now(): Promise<number>;
  advance(minutes: number): Promise<void>;
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
}

export async function startEmulatorProcess(
  args: string[] = [],
  token = 'tok_emulator_e2e_1234',
  api: Api = 'v1',
): Promise<EmulatorProcess> {
  // v2's per-key rate limits on wall time would make tests wait on 429s (test/emulator/v2-rate-limits.test.ts has them).
  const limits = args.includes('--rate-limits') ? [] : ['--rate-limits', 'off'];
  const child = execa(
    process.execPath,
    [BIN, 'emulator', 'start', '--port', '0', '--token', token, ...limits, ...args],
    {
      env: baseEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    },
  );
  const [url, v2Key] = await new Promise<[string, string]>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${buf}`)), 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /^mq emulator listening on (http:\/\/\S+\/v1)\n[\s\S]*^export MQ_V2_API_KEY=(\S+)\n/m.exec(buf);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolve([m[1], m[2]]);
      }
    });
    void child.then((r) => reject(new Error(`emulator exited ${r.exitCode}: ${r.stderr}`)));
  });
  const root = url.replace(/\/v1$/, '');
  const control: EmulatorProcess['control'] = async (method, path, body) => {
    const res = await fetch(`${root}${path}`, {
      method,
      headers: { 'x-api-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  };
  const where = { MQ_REPO: 'github.com/acme/widgets', MQ_BRANCH: 'main' };
  const envFor = (on: Api) =>
    on === 'v1'
      ? { ...baseEnv(), MQ_API_URL: url, MQ_TOKEN: token, ...where }
      : { ...baseEnv(), MQ_API_URL: root, MQ_TOKEN: v2Key, MQ_CACHE_DIR: tempDir('mq-cache-'), ...where };
  return {
    url,
    token,
    v2Key,
    api,
    child,
    env: envFor(api),
    envFor,
    control,
    post: async (endpoint, body) => {
      const r = await control('POST', `/v1/${endpoint}`, body);
      if (r.status !== 200) throw new Error(`${endpoint}: ${r.status} ${r.text}`);
      return r.json;
    },
    now: async () => {
      const c = (await control('GET', '/_emulator/clock')).json as { now: string | number };
      return typeof c.now === 'number' ? c.now : Date.parse(c.now);
    },
    advance: async (minutes) => {
      const r = await control('POST', '/_emulator/clock/advance', { minutes });
      if (r.status !== 200) throw new Error(`advance failed: ${r.status} ${r.text}`);
    },
    stop: async (signal = 'SIGINT') => {
      child.kill(signal);
      const r = await child;
      return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
  };
}

/** The built emulator as a fixture of one file (or describe block): started before its tests, stopped after. */
export function useEmulatorProcess(args: string[] = [], api: Api = 'v1'): EmulatorProcess {
  const emu = {} as EmulatorProcess;
  beforeAll(async () => void Object.assign(emu, await startEmulatorProcess(args, undefined, api)));
  afterAll(async () => void (await emu.stop?.()));
  return emu;
}
