/**
 * Runs one command line inside a Context and maps whatever was thrown to one error line, hints
 * and an exit code from the table in errors.ts. main.ts calls it for the real process; tests call
 * it in-process with string streams.
 */
import type { Context } from './context.js';
import { ExitCode, MqError } from './errors.js';
import type { IO } from './output/io.js';
import { makeStyle } from './output/style.js';

interface CommanderLikeError {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(err: unknown): err is CommanderLikeError {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('commander.');
}

/** Runs one command line in `ctx` and returns its exit code; never throws, never exits. */
export async function run(ctx: Context, argv: string[]): Promise<number> {
  try {
    const { buildProgram } = await import('./program.js');
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    return reportError(ctx, ctx.io, err, argv);
  }
}

export function reportError(ctx: Context, io: IO, err: unknown, argv: string[]): number {
  const style = makeStyle(io.colorErr);
  const wantsJson = ctx.options.json === true || argv.includes('--json');
  let code: number;
  let line: string;
  let hints: string[] = [];
  if (isCommanderError(err)) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    // Help shown because a subcommand is missing (`mq queue`): the command line was incomplete.
    if (err.code === 'commander.help') return ExitCode.usage;
    code = ExitCode.usage;
    const suggestion = /\(Did you mean (.+?)\?\)/.exec(err.message)?.[1];
    line = `usage: ${err.message.replace(/^error:\s*/i, '').replace(/\s*\(Did you mean .+?\?\)/, '').trim()}`;
    hints = [...(suggestion ? [`did you mean ${suggestion}?`] : []), `see \`${ctx.commandPath} --help\``];
  } else if (err instanceof MqError) {
    code = err.exitCode;
    line = `${err.what}: ${err.why}`;
    hints = code === ExitCode.usage ? [...err.hints, `see \`${ctx.commandPath} --help\``] : err.hints;
  } else if ((err as { code?: string })?.code === 'MQ_INTERRUPTED') {
    code = ExitCode.interrupted;
    line = 'interrupted';
  } else {
    code = ExitCode.unexpected;
    line = `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    hints = ctx.debugEnabled ? [] : ['rerun with --debug for details, and report it if it keeps happening'];
  }
  io.err(`${style.red('mq:')} ${line}\n`);
  for (const h of hints) io.err(`${style.dim('hint:')} ${h}\n`);
  if (ctx.debugEnabled && err instanceof Error && err.stack && !isCommanderError(err)) io.err(`${err.stack}\n`);
  if (wantsJson && code !== ExitCode.interrupted) {
    const kind = code === ExitCode.usage ? 'usage' : (err as MqError).name ?? 'error';
    io.out(`${JSON.stringify({ ok: false, error: { exitCode: code, kind, message: line, hints } }, null, 2)}\n`);
  }
  return code;
}
