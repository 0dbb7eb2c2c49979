/**
 * Shell completion scripts for bash, zsh and fish, generated from the command tree (via the same
 * description `mq help --json` prints), so they cannot drift from the program.
 *
 * Each script carries its data as case tables: subcommands and flags with their descriptions,
 * what an option's value is (a fixed list, a profile name, a file, a directory, free text) and
 * what each positional argument is. It walks the words typed so far to find the command path.
 *
 * Nothing read at completion time is ever evaluated: profile names come from
 * `mq profile list -o plain`, are kept only when they are valid profile names, and are compared
 * as plain strings (no `compgen -W`, no `eval`, nothing spliced into code).
 *
 * The data: tree.ts; the bash and zsh scripts: posix.ts; the fish script: fish.ts.
 */
import { fishScript } from './fish.js';
import { bashScript, zshScript } from './posix.js';
import { SHELLS, type Shell, type Tree, treeOf } from './tree.js';

export { bashScript, fishScript, SHELLS, treeOf, zshScript };
export type { Shell, Tree };

export function completionScript(shell: Shell, tree: Tree): string {
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}
