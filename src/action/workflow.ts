/**
 * The runner's side of a JavaScript action, written out instead of taking @actions/core: the
 * protocol is small (inputs from INPUT_* variables, workflow commands on stdout, outputs and the
 * job summary appended to files the runner names), and @actions/core would bring its HTTP and
 * OIDC stack into the bundle for nothing this action uses.
 *
 * Workflow commands are `::name key=value,...::message` lines. The runner decodes `%25`, `%0D`
 * and `%0A` in messages, and additionally `%3A` and `%2C` in property values, so those characters
 * are encoded here; without it a message with a newline would end the command early and let the
 * rest of the text be read as another command. Every line of text (log lines, messages, titles) is
 * made safe first (safeLogLine): the runner also reads a line starting with `::` (after blanks)
 * and any `##[` (its older form) as a command.
 */
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

  /**
   * Appends `name` to $GITHUB_OUTPUT in the multi-line form `name<<DELIM ... DELIM`, with a random
   * delimiter that cannot occur in the value.
   */
  setOutput(name: string, value: string): void {
    const file = this.io.env.GITHUB_OUTPUT;
    if (!file) {
      this.warning(`GITHUB_OUTPUT is not set, so output ${name} cannot be set`);
      return;
    }
    const delimiter = `ghadelimiter_${randomUUID()}`;
    if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`output ${name}: the value contains the delimiter`);
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
  }

  /** Appends Markdown to the job summary ($GITHUB_STEP_SUMMARY), if the runner provides one. */
  summary(markdown: string): void {
    const file = this.io.env.GITHUB_STEP_SUMMARY;
    if (file) appendFileSync(file, markdown, 'utf8');
  }
}
