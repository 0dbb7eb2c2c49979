import { Command } from 'commander';
import type { Context } from '../context.js';
import { parseChoice } from '../cli/args.js';
import { withExamples } from './shared.js';

export async function runCompletion(ctx: Context, program: Command, shellArg: string): Promise<number> {
  const [{ SHELLS, completionScript, treeOf }, { describeProgram }] = await Promise.all([import('../completion/generate.js'), import('../help/describe.js')]);
  const shell = parseChoice(shellArg, 'shell', SHELLS);
  ctx.io.out(completionScript(shell, treeOf(describeProgram(program))));
  return 0;
}

export function completionCommand(ctx: Context, program: () => Command): Command {
  const cmd = new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .description('Print a completion script. It completes commands, subcommands, flags, enum values (e.g. --mode single|parallel) and profile names.')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      ctx.exitCode = await runCompletion(ctx, program(), shell);
    });
  return withExamples(cmd, [
    'mq completion bash > /etc/bash_completion.d/mq        # or: source <(mq completion bash)',
    'mq completion zsh > "${fpath[1]}/_mq"',
    'mq completion fish > ~/.config/fish/completions/mq.fish',
  ]);
}
