// Shell completion scripts (bash, zsh, fish) generated from the command tree, as case tables, so they
// cannot drift. Nothing read at completion time is evaluated: profile names are validated and compared
// as plain strings (no `compgen -W`, no `eval`). Data: tree.ts; scripts: posix.ts, fish.ts.
import { fishScript } from './fish.js';
import { bashScript, zshScript } from './posix.js';
import { SHELLS, type Shell, type Tree, treeOf } from './tree.js';

export { bashScript, fishScript, SHELLS, treeOf, zshScript };
export type { Shell, Tree };

export function completionScript(shell: Shell, tree: Tree): string {
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}
