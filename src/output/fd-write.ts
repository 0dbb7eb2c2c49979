/**
 * Standard output and error written with `fs.writeSync` when they are not a terminal (a file, a
 * pipe, a socket, /dev/null): making `process.stdout` loads Node's stream machinery and, for a pipe
 * or socket, node:net, about 10 ms of every start of a command that prints a line. A terminal keeps
 * Node's stream (its size, its resize events). Writes stay synchronous and in order, as Node's own
 * are for files and pipes on POSIX systems; a pipe that would block (its reader set it
 * non-blocking) hands over to the stream for good.
 */
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

/**
 * Writes `text` to `fd` whole. `stream` is the fallback for a descriptor that would block; `onEpipe`
 * runs when the reader went away (`mq … | head`).
 */
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
