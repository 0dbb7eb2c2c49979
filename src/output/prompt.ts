// One line read from the terminal, question on stderr; hidden input is muted by `read`. Ctrl-D on an
// empty line answers "" (else `read` never settles: exit 13), so callers see an empty answer; Ctrl-C
// rejects with the interrupt error (130).

export interface PromptOptions {
  hidden?: boolean;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

export function interrupted(): Error {
  return Object.assign(new Error('interrupted'), { code: 'MQ_INTERRUPTED' });
}

export async function promptLine(question: string, options: PromptOptions = {}): Promise<string> {
  // Loaded when a question is asked: `read` brings readline, which no other command line needs.
  const { read } = await import('read');
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const hidden = options.hidden === true;
  let settled = false;
  let eof = false;
  let endOfInput: (() => void) | undefined;
  const ended = new Promise<string>((resolve) => {
    endOfInput = () => {
      eof = true;
      resolve('');
    };
  });
  // readline pauses its input on close (after an answer, or at end of input) and for Ctrl-Z, which keeps listeners.
  const listeners = () => input.listenerCount('keypress') + input.listenerCount('data');
  let withReadline = Infinity;
  const onPause = () =>
    setImmediate(() => {
      if (!settled && listeners() < withReadline) endOfInput?.();
    });
  input.on('pause', onPause);
  try {
    const reading = read({ prompt: question, silent: hidden, input, output, terminal: Boolean(input.isTTY) });
    withReadline = listeners();
    const answer = await Promise.race([
      reading.then(
        (line) => line,
        (err: Error) => {
          throw err.message === 'canceled' ? interrupted() : err;
        },
      ),
      ended,
    ]);
    return answer;
  } finally {
    settled = true;
    input.off('pause', onPause);
    // The answer's Enter (muted when hidden) or Ctrl-D left the cursor on the prompt line: what
    // follows starts on a line of its own.
    if (hidden || eof) output.write('\n');
  }
}
