import { Command } from 'commander';
import type { Context, Deps } from '../context.js';
import { UsageError } from '../errors.js';
import { environmentText, exitCodesText } from '../help/topics.js';
import type { Result } from '../output/present.js';
import { act, withExamples } from './shared.js';

export interface HelpOptions {
  topic: string[];
  program: Command;
}

/** Help is mq's own text: printed as is in every format but JSON, where the description is the document. */
export async function runHelp({ program, topic }: HelpOptions, deps: Deps): Promise<Result> {
  const [first] = topic;
  // A topic has no JSON document: under --json its name is looked up as a command (and refused).
  if (!deps.options.json && (first === 'exit-codes' || first === 'environment' || first === 'env')) {
    return { text: first === 'exit-codes' ? exitCodesText() : environmentText(), exitCode: 0 };
  }
  let cmd: Command | undefined = program;
  for (const name of topic) {
    cmd = cmd?.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!cmd) {
      throw new UsageError(`help: no command or topic "${topic.join(' ')}"`, {
        hints: ['topics: exit-codes, environment; commands: `mq --help`'],
      });
    }
  }
  const { describeProgram, describeCommand } = await import('../help/describe.js');
  const doc = cmd === program ? describeProgram(program) : describeCommand(cmd, cmd.parent ? pathOf(cmd.parent) : '');
  return { data: doc, view: [{ text: cmd.helpInformation() }], exitCode: 0 };
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function helpCommand(ctx: Context, program: () => Command): Command {
  const cmd = new Command('help')
    .summary('help on a command or topic (exit-codes, environment)')
    .description(
      'Show help for a command, or a topic: `exit-codes`, `environment`. With --json, describe every ' +
        'command, argument, option, environment variable and exit code.',
    )
    .argument('[topic...]', 'a command path (e.g. `queue update`) or a topic')
    .action(act(ctx, 'help', (topic: string[]): HelpOptions => ({ topic, program: program() }), runHelp));
  return withExamples(cmd, ['mq help exit-codes', 'mq help environment', 'mq help queue update', 'mq help --json']);
}
