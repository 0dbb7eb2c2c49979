/**
 * The only exit site: builds the Context from the real process, runs the command line, and sets
 * the exit code. Loaded by main.ts for everything but `--version`.
 */
import { type ClientFactory, Context, httpClientFactory } from './context.js';
import { ExitCode } from './errors.js';
import { processIO } from './output/io.js';
import { run } from './run.js';

export async function main(argv: string[]): Promise<void> {
  const controller = new AbortController();
  const io = processIO(process.env);
  // The HTTP layer is closed at the end only if a client was made: a command that sends nothing
  // (help, usage errors, profile) does not load it. (The demo's own client talks to loopback over
  // node:http, whose idle keep-alive sockets do not hold the process open.)
  let httpUsed = false;
  const client: ClientFactory = (c, opts) => {
    httpUsed = true;
    return httpClientFactory(c, opts);
  };
  const ctx = new Context({ env: process.env, io, cwd: process.cwd(), signal: controller.signal, client });
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
    if (httpUsed) {
      const { closeHttp } = await import('./api/http.js');
      await closeHttp();
    }
  }
}
