/** Colour helpers bound to one decision (stdout or stderr), so views never test `isTTY` themselves. */
import { Chalk, type ChalkInstance } from 'chalk';

export type Style = ChalkInstance;

export function makeStyle(enabled: boolean): Style {
  return new Chalk({ level: enabled ? 1 : 0 });
}

/** Colour for a PR or queue state, by what it means to the reader. */
export function stateColor(style: Style, state: string): string {
  const s = state.toLowerCase();
  switch (s) {
    case 'merged':
    case 'tests_passed':
    case 'running':
      return style.green(state);
    case 'failed':
    case 'pending_failure':
      return style.red(state);
    case 'testing':
      return style.cyan(state);
    case 'pending':
    case 'not_ready':
      return style.yellow(state);
    case 'cancelled':
      return style.gray(state);
    case 'paused':
    case 'draining':
    case 'switching_modes':
      return style.bold.inverse.yellow(` ${state.toUpperCase()} `);
    default:
      return state;
  }
}
