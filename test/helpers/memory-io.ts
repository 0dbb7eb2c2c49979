/**
 * The one in-memory IO for in-process tests: captured stdout/stderr, chosen TTY flags and colour,
 * stdin text, scripted prompt answers, and real redaction of registered secrets.
 */
import { lineOpenAfter, Redactor, startLine, type IO } from '../../src/output/io.js';
import { interrupted } from '../../src/output/prompt.js';
import { InputTooLarge } from '../../src/util/limited-read.js';

export interface MemoryIO extends IO {
  stdout: string;
  stderr: string;
  /** Each write to stderr, as written (to count writes). */
  errWrites: string[];
  prompts: string[];
  columns: number;
  rows: number;
  /** Sets the terminal size and tells resize listeners, as SIGWINCH would. */
  resize(columns: number, rows?: number): void;
  /** Texts registered with atExit and not yet withdrawn. */
  exitTexts: string[];
}

export interface MemoryIOOptions {
  stdin?: string;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  color?: boolean;
  /** Terminal size (default 80 x 24). */
  columns?: number;
  rows?: number;
  /** Answers given to prompts, in order (`\u0003` is Ctrl-C); a prompt with no answer left fails the test. */
  answers?: string[];
}

export function memoryIO(opts: MemoryIOOptions = {}): MemoryIO {
  const answers = [...(opts.answers ?? [])];
  const redactor = new Redactor();
  const listeners = new Set<() => void>();
  const io: MemoryIO = {
    columns: opts.columns ?? 80,
    rows: opts.rows ?? 24,
    exitTexts: [],
    resize(columns, rows) {
      io.columns = columns;
      if (rows !== undefined) io.rows = rows;
      for (const l of [...listeners]) l();
    },
    onResize(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    atExit(text) {
      io.exitTexts.push(text);
      return () => {
        const i = io.exitTexts.indexOf(text);
        if (i >= 0) io.exitTexts.splice(i, 1);
      };
    },
    stdout: '',
    stderr: '',
    errWrites: [],
    prompts: [],
    out(text) {
      io.stdout += redactor.apply(text);
    },
    err(text) {
      const shown = redactor.apply(text);
      io.errWrites.push(shown);
      io.stderr += shown;
      io.errLineOpen = lineOpenAfter(io.errLineOpen === true, text);
    },
    stdoutIsTTY: opts.stdoutIsTTY ?? false,
    stderrIsTTY: opts.stderrIsTTY ?? false,
    stdinIsTTY: opts.stdinIsTTY ?? false,
    color: opts.color ?? false,
    colorErr: opts.color ?? false,
    readStdin: async (limit = 20 * 1024 * 1024) => {
      const text = opts.stdin ?? '';
      if (Buffer.byteLength(text) > limit) throw new InputTooLarge(limit);
      return text;
    },
    prompt: async (question) => {
      startLine(io);
      io.prompts.push(question);
      io.err(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected prompt: ${question}`);
      // Ctrl-C at the prompt: interrupted, the question's line left open.
      if (answer === '\u0003') throw interrupted();
      io.errLineOpen = false;
      return answer;
    },
    addSecret: (s) => redactor.add(s),
    redact: (t) => redactor.apply(t),
  };
  return io;
}
