// Runs one command line in a Context; anything thrown goes to the presenter (error line, hints, exit
// code). cli.ts calls it for the real process, tests in-process.
import { versionRequest, versionText } from './cli/version.js';
import { type Context, VERSION } from './context.js';
import { formatOf } from './output/present.js';
import { argvAsksJson, presentError } from './output/present-error.js';
import { buildProgram } from './program.js';

/** Runs one command line in `ctx` and returns its exit code; never throws, never exits. Ends `ctx`. */
export async function run(ctx: Context, argv: string[]): Promise<number> {
  try {
    // The same answer main.ts gives before loading the CLI, for in-process runs.
    const version = versionRequest(argv);
    if (version) {
      ctx.io.out(versionText(VERSION, version));
      return 0;
    }
    await (await buildProgram(ctx, argv)).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    const json = formatOf(ctx.options, false) === 'json' || argvAsksJson(argv);
    return presentError({ io: ctx.io, json, debug: ctx.debugEnabled, commandPath: ctx.commandPath }, err);
  } finally {
    // The command has its outcome: nothing it started (a side read, a retry) goes on.
    ctx.end();
  }
}
