/**
 * The runner's side of a JavaScript action, written out instead of taking @actions/core: the
 * protocol is small (inputs from INPUT_* variables, workflow commands on stdout, outputs and the
 * job summary appended to files the runner names), and @actions/core would bring its HTTP and
 * OIDC stack into the bundle for nothing this action uses.
 *
 * Workflow commands are `::name key=value,...::message` lines. The runner decodes `%25`, `%0D`
 * and `%0A` in messages, and additionally `%3A` and `%2C` in property values, so those characters
 * are encoded here; without it a message with a newline would end the command early and let the
 * rest of the text be read as another command.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';

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

export function command(name: string, properties: Record<string, string | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`;
}

export class Workflow {
  constructor(private readonly io: ActionIo) {}

  /** An input as the runner passes it: INPUT_<NAME> (spaces to `_`, upper-cased), trimmed; '' when unset. */
  input(name: string): string {
    return (this.io.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
  }

  log(line: string): void {
    this.io.write(`${line}\n`);
  }

  /** Every later occurrence of `secret` in the log is shown as ***. */
  mask(secret: string): void {
    // The runner masks per line; a multi-line value is masked line by line too.
    const parts = new Set([secret, ...secret.split(/\r?\n/)]);
    for (const part of parts) if (part.trim() !== '') this.io.write(command('add-mask', {}, part));
  }

  group(title: string): void {
    this.io.write(command('group', {}, title));
  }

  endGroup(): void {
    this.io.write(command('endgroup', {}, ''));
  }

  error(message: string, title?: string): void {
    this.io.write(command('error', { title }, message));
  }

  warning(message: string, title?: string): void {
    this.io.write(command('warning', { title }, message));
  }

  notice(message: string, title?: string): void {
    this.io.write(command('notice', { title }, message));
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

/** Markdown table cell text: no pipes or newlines can break the table, no HTML gets through. */
export function cell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[|\\]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
