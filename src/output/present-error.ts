// Errors as the presenter prints them: `mq: <what>: <why>` plus hints on stderr, and the JSON error
// document on stdout when JSON was asked for; returns the exit code.
import { errorKind, ExitCode, MqError } from '../errors.js';
import { type IO, startLine } from './io.js';
import { json } from './render.js';
import { safeLine } from './sanitize.js';
import { makeStyle } from './style.js';

/** Before commander has parsed anything (a usage error), the command line itself says whether JSON was asked for. */
export function argvAsksJson(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a === '--json' || a === '-ojson' || a === '--output=json') return true;
    if ((a === '-o' || a === '--output') && argv[i + 1] === 'json') return true;
  }
  return false;
}

interface CommanderLikeError {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(err: unknown): err is CommanderLikeError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    (err as { code: string }).code.startsWith('commander.')
  );
}

export interface ErrorContext {
  io: IO;
  /** JSON was chosen (--json or -o json), as parsed or as seen on the command line. */
  json: boolean;
  debug: boolean;
  commandPath: string;
}

/** Prints whatever was thrown as one line plus hints (and the JSON error document); returns the exit code. */
export function presentError(c: ErrorContext, err: unknown): number {
  const style = makeStyle(c.io.colorErr);
  let code: number;
  let line: string;
  let hints: string[] = [];
  if (isCommanderError(err)) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    // Help shown because a subcommand is missing (`mq queue`): the command line was incomplete.
    if (err.code === 'commander.help') return ExitCode.usage;
    code = ExitCode.usage;
    const suggestion = /\(Did you mean (.+?)\?\)/.exec(err.message)?.[1];
    line = `usage: ${err.message
      .replace(/^error:\s*/i, '')
      .replace(/\s*\(Did you mean .+?\?\)/, '')
      .trim()}`;
    hints = [...(suggestion ? [`did you mean ${suggestion}?`] : []), `see \`${c.commandPath} --help\``];
  } else if (err instanceof MqError) {
    code = err.exitCode;
    line = `${err.what}: ${err.why}`;
    // An example names the command being run (`mq cancel 42`), whichever command raised it.
    const example = err.example === undefined ? [] : [`for example: ${c.commandPath} ${err.example}`];
    hints =
      code === ExitCode.usage
        ? [...err.hints, ...example, `see \`${c.commandPath} --help\``]
        : [...err.hints, ...example];
  } else if ((err as { code?: string })?.code === 'MQ_INTERRUPTED') {
    code = ExitCode.interrupted;
    line = 'interrupted';
  } else {
    code = ExitCode.unexpected;
    line = `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    hints = c.debug ? [] : ['rerun with --debug for details, and report it if it keeps happening'];
  }
  startLine(c.io);
  c.io.err(`${style.red('mq:')} ${safeLine(line)}\n`);
  for (const h of hints) c.io.err(`${style.dim('hint:')} ${safeLine(h)}\n`);
  if (c.debug && err instanceof Error && err.stack && !isCommanderError(err))
    c.io.err(`${err.stack.split('\n').map(safeLine).join('\n')}\n`);
  if (c.json && code !== ExitCode.interrupted) {
    c.io.out(json({ ok: false, error: { exitCode: code, kind: errorKind(code), message: line, hints } }));
  }
  return code;
}
