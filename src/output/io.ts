// Standard streams behind one interface (stdout data, stderr the rest); every write is redacted,
// so the token never reaches a terminal or CI log even when a server echoes it.
import { readLimited } from '../util/limited-read.js';
import { fdWriter, notTerminal } from './fd-write.js';
import { promptLine } from './prompt.js';

export const DEFAULT_STDIN_LIMIT = 20 * 1024 * 1024;

export interface IO {
  out(text: string): void;
  err(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Colour on stdout / stderr, after NO_COLOR, FORCE_COLOR and --no-color. */
  color: boolean;
  colorErr: boolean;
  /** Standard input as text; fails with InputTooLarge past `limit` bytes (default 20 MiB). */
  readStdin(limit?: number): Promise<string>;
  /** Ask on stderr and read one line from the terminal; `hidden` does not echo it. */
  prompt(question: string, options?: { hidden?: boolean }): Promise<string>;
  /** Never print this string again; it is replaced by `***`. */
  addSecret(secret: string): void;
  redact(text: string): string;
  /** The terminal's width and height in cells, when stdout is one (live, they follow a resize). */
  readonly columns?: number;
  readonly rows?: number;
  /** The width of stderr, when it is a terminal. */
  readonly errColumns?: number;
  /** Calls `listener` when the terminal is resized; returns the unsubscribe. */
  onResize?(listener: () => void): () => void;
  /** Writes `text` to stdout if the process exits before the returned function is called (restores a live view). */
  atExit?(text: string): () => void;
  /** stderr is mid-line (a prompt, progress, an echoed `^C`): messages then start with a newline. */
  errLineOpen?: boolean;
}

/** Whether a line is left open on a stream after `text` is written to it (`\r` + erase counts as an empty line). */
export function lineOpenAfter(open: boolean, text: string): boolean {
  const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences print nothing
  const rest = text.slice(cut + 1).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  return cut < 0 ? open || rest !== '' : rest !== '';
}

/** A message (an error, a question) starts on a line of its own. */
export function startLine(io: IO): void {
  if (io.errLineOpen) io.err('\n');
}

/** Width assumed for a terminal that does not say. */
export const DEFAULT_COLUMNS = 80;
export const DEFAULT_ROWS = 24;

export function colorWanted(env: NodeJS.ProcessEnv, isTTY: boolean, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/** Replaces registered secrets with `***` (tests use it for their string streams too). */
export class Redactor {
  private secrets: string[] = [];
  add(secret: string): void {
    // Very short strings would turn ordinary output into asterisks; tokens are long.
    if (secret.length >= 4 && !this.secrets.includes(secret)) this.secrets.push(secret);
  }
  apply(text: string): string {
    let result = text;
    for (const s of this.secrets) if (result.includes(s)) result = result.split(s).join('***');
    return result;
  }
}

export function processIO(env: NodeJS.ProcessEnv): IO {
  const redactor = new Redactor();
  // A reader that went away (`mq … | head`) is not an error: stop quietly, as a filter would.
  const gone = () => process.exit(0);
  const watched = new Set<NodeJS.WriteStream>();
  const stream = (s: NodeJS.WriteStream) => {
    if (!watched.has(s)) {
      watched.add(s);
      s.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') gone();
        throw err;
      });
    }
    return s;
  };
  // Not a terminal: written without making Node's stream objects at all (fd-write.ts).
  const outPlain = notTerminal(1);
  const errPlain = notTerminal(2);
  const stdoutIsTTY = !outPlain && Boolean(stream(process.stdout).isTTY);
  const stderrIsTTY = !errPlain && Boolean(stream(process.stderr).isTTY);
  const writeOut = outPlain
    ? fdWriter(1, () => stream(process.stdout), gone)
    : (t: string) => void stream(process.stdout).write(t);
  const writeErr = errPlain
    ? fdWriter(2, () => stream(process.stderr), gone)
    : (t: string) => void stream(process.stderr).write(t);
  const io: IO = {
    out: (text) => writeOut(redactor.apply(text)),
    err: (text) => {
      writeErr(redactor.apply(text));
      io.errLineOpen = lineOpenAfter(io.errLineOpen === true, text);
    },
    stdoutIsTTY,
    stderrIsTTY,
    // Asked when needed: making the stdin stream (a file or pipe reader, or a TTY one, which loads
    // node:tty and node:net) costs milliseconds of every start, and few command lines read stdin.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    color: colorWanted(env, stdoutIsTTY, undefined),
    colorErr: colorWanted(env, stderrIsTTY, undefined),
    readStdin: (limit = DEFAULT_STDIN_LIMIT) => readLimited(process.stdin, limit),
    prompt: async (question, options = {}) => {
      startLine(io);
      const hidden = options.hidden === true;
      try {
        const answer = await promptLine(question, { hidden });
        io.errLineOpen = false;
        return answer;
      } catch (err) {
        // Interrupted: a hidden prompt has ended its line (promptLine's newline), an echoed one has not.
        io.errLineOpen = !hidden;
        throw err;
      }
    },
    addSecret: (s) => redactor.add(s),
    redact: (t) => redactor.apply(t),
    get columns() {
      return (stdoutIsTTY && process.stdout.columns) || DEFAULT_COLUMNS;
    },
    get errColumns() {
      return (stderrIsTTY && process.stderr.columns) || DEFAULT_COLUMNS;
    },
    get rows() {
      return (stdoutIsTTY && process.stdout.rows) || DEFAULT_ROWS;
    },
    onResize(listener) {
      // Only a terminal is resized.
      if (!stdoutIsTTY) return () => undefined;
      process.stdout.on('resize', listener);
      return () => void process.stdout.off('resize', listener);
    },
    atExit(text) {
      // A second Ctrl-C exits at once: the terminal still gets its screen and cursor back.
      const write = () => writeOut(text);
      process.once('exit', write);
      return () => void process.off('exit', write);
    },
    errLineOpen: false,
  };
  return io;
}
