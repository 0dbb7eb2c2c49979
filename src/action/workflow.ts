// The runner's side of a JavaScript action, without @actions/core (its HTTP/OIDC stack is unused):
// INPUT_* inputs, workflow commands on stdout, outputs and summary appended to the runner's files.
// Messages encode `%`, CR, LF (and `:` `,` in properties) so no text can end a command early; every
// line is made safe first (safeLogLine: `::` and `##[` would read as commands).
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';

import { safeLine } from '../output/sanitize.js';

export interface ActionIo {
  env: NodeJS.ProcessEnv;
  /** Writes to the step log (stdout). */
  write(text: string): void;
}

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One line of text for the log: controls escaped as in the CLI, nothing the runner takes for a command. */
export function safeLogLine(text: string): string {
  return safeLine(text)
    .replace(/^(\s*)::/, '$1\\x3a:')
    .replace(/##\[/g, '##\\x5b');
}

/** A message of one or more lines, each made safe. */
const safeMessage = (text: string) => text.split(/\r?\n/).map(safeLogLine).join('\n');

export function command(name: string, properties: Record<string, string | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`;
}

function annotation(name: string, message: string, title: string | undefined): string {
  return command(name, { title: title === undefined ? undefined : safeLogLine(title) }, safeMessage(message));
}

export class Workflow {
  constructor(private readonly io: ActionIo) {}

  /** An input as the runner passes it: INPUT_<NAME> (spaces to `_`, upper-cased), trimmed; '' when unset. */
  input(name: string): string {
    return (this.io.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
  }

  log(line: string): void {
    this.io.write(`${safeLogLine(line)}\n`);
  }

  /** Every later occurrence of `secret` in the log is shown as ***. */
  mask(secret: string): void {
    // The runner masks per line; a multi-line value is masked line by line too.
    const parts = new Set([secret, ...secret.split(/\r?\n/)]);
    for (const part of parts) if (part.trim() !== '') this.io.write(command('add-mask', {}, part));
  }

  group(title: string): void {
    this.io.write(command('group', {}, safeLogLine(title)));
  }

  endGroup(): void {
    this.io.write(command('endgroup', {}, ''));
  }

  error(message: string, title?: string): void {
    this.io.write(annotation('error', message, title));
  }

  warning(message: string, title?: string): void {
    this.io.write(annotation('warning', message, title));
  }

  notice(message: string, title?: string): void {
    this.io.write(annotation('notice', message, title));
  }

  /** Appends `name<<DELIM ... DELIM` to $GITHUB_OUTPUT with a random delimiter absent from the value. */
  setOutput(name: string, value: string): void {
    const file = this.io.env.GITHUB_OUTPUT;
    if (!file) {
      this.warning(`GITHUB_OUTPUT is not set, so output ${name} cannot be set`);
      return;
    }
    const delimiter = `ghadelimiter_${randomUUID()}`;
    if (name.includes(delimiter) || value.includes(delimiter))
      throw new Error(`output ${name}: the value contains the delimiter`);
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
  }

  /** Appends Markdown to the job summary ($GITHUB_STEP_SUMMARY), if the runner provides one. */
  summary(markdown: string): void {
    const file = this.io.env.GITHUB_STEP_SUMMARY;
    if (file) appendFileSync(file, markdown, 'utf8');
  }
}
