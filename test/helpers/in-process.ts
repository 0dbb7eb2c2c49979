/**
 * `runCli`'s in-process twin for behaviour tests: the same argv, environment and stdin, the same
 * run() the binary uses, a memory IO (no terminal) and no process start. Spawned tests keep what
 * only a real process shows (signals, TTYs, the built bundle, exit through the OS).
 */
import { Context } from '../../src/context.js';
import { run } from '../../src/run.js';
import { memoryIO } from './memory-io.js';
import { type CliResult, tempDir } from './run-cli.js';

export async function runMq(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  const io = memoryIO({ stdin: options.input });
  const env = (options.env ?? {}) as NodeJS.ProcessEnv;
  const ctx = new Context({ env, io, cwd: options.cwd ?? tempDir('mq-cwd-') });
  const exitCode = await run(ctx, args);
  return { exitCode, stdout: io.stdout, stderr: io.stderr };
}
