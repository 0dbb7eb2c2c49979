// A machine-readable description of the CLI from the live commander tree: commands, arguments,
// options, environment variables and exit codes.
import type { Argument, Command, Option } from 'commander';
import { EXIT_CODES } from '../errors.js';
import { ENVIRONMENT } from './topics.js';

export interface OptionDescription {
  flags: string;
  long?: string;
  short?: string;
  description: string;
  type: 'boolean' | 'string' | 'string[]';
  negate: boolean;
  default?: unknown;
  choices?: readonly string[];
  required: boolean;
}

export interface CommandDescription {
  name: string;
  path: string;
  aliases: string[];
  summary: string;
  description: string;
  arguments: Array<{
    name: string;
    description: string;
    required: boolean;
    variadic: boolean;
    choices?: readonly string[];
  }>;
  options: OptionDescription[];
  commands: CommandDescription[];
}

function describeOption(o: Option): OptionDescription {
  const takesValue = o.required || o.optional;
  return {
    flags: o.flags,
    long: o.long ?? undefined,
    short: o.short ?? undefined,
    description: o.description,
    type: takesValue
      ? o.variadic || (o.parseArg as { repeatable?: boolean } | undefined)?.repeatable === true
        ? 'string[]'
        : 'string'
      : 'boolean',
    negate: o.negate,
    ...(o.defaultValue !== undefined && !(o.negate && o.defaultValue === true) ? { default: o.defaultValue } : {}),
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    required: o.mandatory,
  };
}

function describeArgument(a: Argument) {
  return {
    name: a.name(),
    description: a.description,
    required: a.required,
    variadic: a.variadic,
    ...(a.argChoices ? { choices: a.argChoices } : {}),
  };
}

export function describeCommand(cmd: Command, parentPath = ''): CommandDescription {
  const path = parentPath ? `${parentPath} ${cmd.name()}` : cmd.name();
  return {
    name: cmd.name(),
    path,
    aliases: cmd.aliases(),
    summary: cmd.summary(),
    description: cmd.description(),
    arguments: cmd.registeredArguments.map(describeArgument),
    options: cmd.options.filter((o) => !o.hidden).map(describeOption),
    commands: cmd.commands.map((c) => describeCommand(c, path)),
  };
}

export function describeProgram(program: Command) {
  return {
    name: program.name(),
    version: program.version(),
    globalOptions: program.options.map(describeOption),
    commands: program.commands.map((c) => describeCommand(c, program.name())),
    environment: ENVIRONMENT,
    exitCodes: EXIT_CODES,
  };
}
