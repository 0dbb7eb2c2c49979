import { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { environmentText, exitCodesText } from '../help/topics.js';
import { withExamples } from './shared.js';

export async function runHelp(ctx: Context, program: Command, topic: string[]): Promise<number> {
  const [first] = topic;
  if (!ctx.options.json && (first === 'exit-codes' || first === 'environment' || first === 'env')) {
    ctx.io.out(first === 'exit-codes' ? exitCodesText() : environmentText());
    return 0;
  }
  let cmd: Command | undefined = program;
  for (const name of topic) {
    cmd = cmd?.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!cmd) {
      throw new UsageError(`help: no command or topic "${topic.join(' ')}"`, { hints: ['topics: exit-codes, environment; commands: `mq --help`'] });
    }
  }
  if (ctx.options.json) {
    const { describeProgram, describeCommand } = await import('../help/describe.js');
    const doc = cmd === program ? describeProgram(program) : describeCommand(cmd, (cmd.parent ? pathOf(cmd.parent) : ''));
    ctx.io.out(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  ctx.io.out(cmd.helpInformation());
  return 0;
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function helpCommand(ctx: Context, program: () => Command): Command {
  const cmd = new Command('help')
    .summary('help on a command or topic (exit-codes, environment)')
    .description('Show help for a command, or a topic: `exit-codes`, `environment`. With --json, describe every command, argument, option, environment variable and exit code.')
    .argument('[topic...]', 'a command path (e.g. `queue update`) or a topic')
    .action(async (topic: string[]) => {
      ctx.exitCode = await runHelp(ctx, program(), topic);
    });
  return withExamples(cmd, ['mq help exit-codes', 'mq help environment', 'mq help queue update', 'mq help --json']);
}
