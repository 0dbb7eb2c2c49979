/**
 * Runs a command line in this process against a string-backed Context: the same run() the binary
 * uses, without a process start per call (for fuzzing thousands of command lines).
 */
import { Context } from '../../src/context.js';
import { Redactor, type IO } from '../../src/output/io.js';
import { run } from '../../src/run.js';
import type { CliResult } from './run-cli.js';

export function stringIO(stdin = ''): IO & { stdout: string[]; stderr: string[] } {
  const redactor = new Redactor();
  const redact = (t: string) => redactor.apply(t);
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => void stdout.push(redact(t)),
    err: (t) => void stderr.push(redact(t)),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: false,
    colorErr: false,
    readStdin: async () => stdin,
    prompt: async () => {
      throw new Error('no terminal in tests');
    },
    addSecret: (s) => redactor.add(s),
    redact,
  };
}

export async function runInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  stdin = '',
): Promise<CliResult> {
  const io = stringIO(stdin);
  const ctx = new Context({ env: env as NodeJS.ProcessEnv, io, cwd: env.HOME ?? '/' });
  const exitCode = await run(ctx, argv);
  return { exitCode, stdout: io.stdout.join(''), stderr: io.stderr.join('') };
}

/**
 * `runCli`'s in-process twin for behaviour tests: the same argv, environment and stdin, the same
 * run() the binary uses, a memory IO (no terminal) and no process start. Spawned tests keep what
 * only a real process shows (signals, TTYs, the built bundle, exit through the OS).
 */
export async function runMq(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  const { memoryIO } = await import('./memory-io.js');
  const { tempDir } = await import('./run-cli.js');
  const io = memoryIO({ stdin: options.input });
  const env = (options.env ?? {}) as NodeJS.ProcessEnv;
  const ctx = new Context({ env, io, cwd: options.cwd ?? tempDir('mq-cwd-') });
  const exitCode = await run(ctx, args);
  return { exitCode, stdout: io.stdout, stderr: io.stderr };
}
