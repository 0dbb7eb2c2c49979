/**
 * Real emulator processes for crash and ownership tests: `mq emulator start` from the built
 * bin/mq.js (npm test builds first), as a user runs it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

import { BIN, baseEnv } from '../helpers/run-cli.js';
import { TOKEN } from './http-helpers.js';

export interface EmulatorChild {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `mq emulator start ARGS`; resolves once the banner is out, rejects if it exits first. */
export async function startChild(args: string[]): Promise<EmulatorChild> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--token', TOKEN, ...args], {
    env: baseEnv() as NodeJS.ProcessEnv,
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      const m = /^mq emulator listening on (\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`emulator exited early (${code}): ${err}`)));
  });
  return { child, url, stderr: () => err, exited };
}

/** Runs `mq emulator start ARGS` expecting it to exit by itself; returns its exit code and stderr. */
export async function runChild(
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--token', TOKEN, ...args], {
    env: baseEnv() as NodeJS.ProcessEnv,
  });
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8');
  child.stdout.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  child.stdout.on('data', (d: string) => (stdout += d));
  const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(kill);
  return { code, stderr, stdout };
}
