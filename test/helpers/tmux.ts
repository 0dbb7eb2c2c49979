/** The built binary in a private tmux server: the screen a person sees, read back as text. */
import { execFileSync, spawnSync } from 'node:child_process';
import { displayWidth } from '../../src/output/width.js';
import { BIN } from './run-cli.js';

export const hasTmux = spawnSync('sh', ['-c', 'command -v tmux']).status === 0;

/** The widest line of a screen, in cells. */
export const widest = (screen: string) => Math.max(...screen.split('\n').map(displayWidth));

/**
 * `mq <args>` with `env` in a tmux window of `cols` x `rows`; the shell then prints its exit code
 * and waits. Call `kill` when done (an afterEach).
 */
export function terminal(args: string[], cols: number, rows: number, env: Record<string, string | undefined>) {
  const socket = `mq-tty-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const envArgs = Object.entries({ ...env, TERM: 'xterm-256color' })
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`);
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  const cmd = `env -i ${envArgs.join(' ')} '${process.execPath}' '${BIN}' ${quoted.join(' ')}; echo "exit=$?"; sleep 60`;
  tmux('new-session', '-d', '-x', String(cols), '-y', String(rows), cmd);
  // -J joins lines the terminal wrapped: a too-wide line shows as one long line.
  const screen = (history = false) => tmux('capture-pane', '-p', '-J', ...(history ? ['-S', '-'] : []));
  return {
    tmux,
    screen,
    kill: () => void spawnSync('tmux', ['-L', socket, 'kill-server']),
    /** The screen once `want` shows on it (or after `ms`, for the assertion to report). */
    async until(want: RegExp, history = false, ms = 10_000): Promise<string> {
      for (const end = Date.now() + ms; Date.now() < end; ) {
        const s = screen(history);
        if (want.test(s)) return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      return screen(history);
    },
  };
}
