import { Command } from 'commander';
import { parseChoice } from '../cli/args.js';
import type { Context, Deps } from '../context.js';
import type { Result } from '../output/present.js';
import { act, withExamples } from './shared.js';

export interface CompletionOptions {
  shell: string;
  program: Command;
}

/** The script is the output in every format (a JSON document of a shell script would help no one). */
export async function runCompletion({ shell: shellArg, program }: CompletionOptions, _deps: Deps): Promise<Result> {
  const [{ SHELLS, completionScript, treeOf }, { describeProgram }] = await Promise.all([
    import('../completion/generate.js'),
    import('../help/describe.js'),
  ]);
  const shell = parseChoice(shellArg, 'shell', SHELLS);
  return { text: completionScript(shell, treeOf(describeProgram(program))), exitCode: 0 };
}

export function completionCommand(ctx: Context, program: () => Command): Command {
  const cmd = new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .description(
      'Print a completion script. It completes commands, subcommands, flags, enum values (e.g. --mode ' +
        'single|parallel) and profile names.',
    )
    .argument('<shell>', 'bash, zsh or fish')
    .action(
      act(ctx, 'completion', (shell: string): CompletionOptions => ({ shell, program: program() }), runCompletion),
    );
  return withExamples(cmd, [
    'mq completion bash > /etc/bash_completion.d/mq        # or: source <(mq completion bash)',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion in a help example, not a template
    'mq completion zsh > "${fpath[1]}/_mq"',
    'mq completion fish > ~/.config/fish/completions/mq.fish',
  ]);
}
