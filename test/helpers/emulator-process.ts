/** Starts the built `mq emulator start` as a child process and talks to its control API. */
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { BIN, baseEnv } from './run-cli.js';

export interface EmulatorProcess {
  url: string;
  token: string;
  child: ResultPromise;
  /** Environment for `runCli` pointing at this emulator. */
  env: Record<string, string | undefined>;
  control(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown; text: string }>;
  advance(minutes: number): Promise<void>;
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
}

export async function startEmulatorProcess(
  args: string[] = [],
  token = 'tok_emulator_e2e_1234',
): Promise<EmulatorProcess> {
  const child = execa(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--token', token, ...args], {
    env: baseEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${buf}`)), 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /^mq emulator listening on (http:\/\/\S+\/v1)\n/.exec(buf);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
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
  return {
    url,
    token,
    child,
    env: { ...baseEnv(), MQ_API_URL: url, MQ_TOKEN: token, MQ_REPO: 'github.com/acme/widgets', MQ_BRANCH: 'main' },
    control,
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
export function useEmulatorProcess(args: string[] = []): EmulatorProcess {
  const emu = {} as EmulatorProcess;
  beforeAll(async () => void Object.assign(emu, await startEmulatorProcess(args)));
  afterAll(async () => void (await emu.stop?.()));
  return emu;
}
