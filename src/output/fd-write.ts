// stdout/stderr via `fs.writeSync` when not a terminal: creating `process.stdout` loads Node's streams
// (and node:net for pipes) at every start. A terminal keeps Node's stream. Writes stay synchronous and
// ordered; a pipe that would block hands over to the stream for good.
import { fstatSync, statSync, writeSync } from 'node:fs';

/** Whether `fd` is certainly not a terminal, found without loading node:tty (which loads node:net). */
export function notTerminal(fd: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return false;
  try {
    const st = fstatSync(fd);
    if (st.isFile() || st.isFIFO() || st.isSocket()) return true;
    // A character device is a terminal unless it is /dev/null itself.
    return st.isCharacterDevice() && st.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** Writes `text` to `fd` whole; `stream` takes over if it would block, `onEpipe` when the reader left. */
export function fdWriter(
  fd: number,
  stream: () => NodeJS.WritableStream,
  onEpipe: () => void,
  write: (fd: number, bytes: Uint8Array) => number = writeSync,
): (text: string) => void {
  let viaStream = false;
  return (text) => {
    if (viaStream) {
      stream().write(text);
      return;
    }
    let bytes = Buffer.from(text);
    while (bytes.length > 0) {
      let n: number;
      try {
        n = write(fd, bytes);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          viaStream = true;
          stream().write(bytes);
          return;
        }
        if (code === 'EPIPE') {
          onEpipe();
          return;
        }
        throw err;
      }
      bytes = bytes.subarray(n);
    }
  };
}
