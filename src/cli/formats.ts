// Which output formats each command honours (absent: all). An explicit format it cannot honour is a
// usage error before anything runs; the default never is.
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { FORMATS, type Format } from '../output/render.js';

type Flags = Record<string, unknown>;

const NOTES_ONLY: readonly Format[] = ['table', 'plain', 'json'];

/** Command path (without `mq`) → the formats it supports, given its own flags. */
export const COMMAND_FORMATS: Record<string, (flags: Flags) => readonly Format[]> = {
  // The outcome is a line on stderr; stdout carries the --json document only (--wait adds the wait's summary).
  submit: (f) => (f.wait ? ['table', 'plain', 'json', 'markdown'] : NOTES_ONLY),
  cancel: () => NOTES_ONLY,
  restart: () => NOTES_ONLY,
  targets: () => NOTES_ONLY,
  'queue delete': () => NOTES_ONLY,
  // Confirmed on stderr: stdout carries the --json document only.
  'auth login': () => NOTES_ONLY,
  'auth logout': () => NOTES_ONLY,
  'profile use': () => NOTES_ONLY,
  'profile remove': () => NOTES_ONLY,
  'profile set': () => NOTES_ONLY,
  // A live table or lines as it runs, then a summary; no markdown or raw form.
  demo: () => NOTES_ONLY,
  'queue watch': () => NOTES_ONLY,
  // A verdict, or a line per delivery (JSON Lines with --json).
  'webhooks verify': () => NOTES_ONLY,
  'webhooks listen': () => NOTES_ONLY,
  'webhooks replay': () => NOTES_ONLY,
  // ✓/✗ lines on stderr; --json: the outcome (with --watch, one per line).
  notify: () => NOTES_ONLY,
  // A server: its banner (export lines) is the output.
  'emulator start': () => ['table', 'plain'],
  // The shell script is the output.
  completion: () => ['table', 'plain'],
};

/** The format the command line chose explicitly, and how it was spelled; undefined when left to the default. */
function chosen(options: { json?: boolean; output?: string }): { format: Format; flag: string } | undefined {
  if (options.json) return { format: 'json', flag: '--json' };
  if (options.output !== undefined && (FORMATS as readonly string[]).includes(options.output))
    return { format: options.output as Format, flag: `-o ${options.output}` };
  return undefined;
}

export function commandPathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Throws a usage error when `cmd` cannot honour the format chosen in `options`. */
export function refuseUnsupportedFormat(cmd: Command, options: { json?: boolean; output?: string }): void {
  const choice = chosen(options);
  if (!choice) return;
  const path = commandPathOf(cmd);
  const supported = COMMAND_FORMATS[path]?.(cmd.opts());
  if (!supported || supported.includes(choice.format)) return;
  const spelled = supported.map((f) => (f === 'json' ? '--json' : `-o ${f}`)).join(', ');
  throw new UsageError(`${choice.flag}: mq ${path} has no ${choice.format} output; it supports ${spelled}`, {
    hints: [`drop ${choice.flag}, or use ${spelled}`],
  });
}
