/**
 * The only exit site: builds the Context from the real process, runs the command line, and sets
 * the exit code. Loaded by main.ts for everything but `--version`.
 */
import { Context } from './context.js';
import { ExitCode } from './errors.js';
import { processIO } from './output/io.js';
import { run } from './run.js';

export async function main(argv: string[]): Promise<void> {
  const controller = new AbortController();
  const io = processIO(process.env);
  const ctx = new Context({ env: process.env, io, cwd: process.cwd(), signal: controller.signal });
  const onSignal = () => {
    // First Ctrl-C: let the command stop cleanly; a second one exits at once.
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    // A terminal echoes the key as `^C` where the cursor was: what mq says next starts below it.
    if (io.stderrIsTTY) io.errLineOpen = true;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  try {
    process.exitCode = await run(ctx, argv);
  } finally {
    process.off('SIGINT', onSignal);
    const { closeHttp } = await import('./api/http.js');
    await closeHttp();
  }
}
