/** Pieces the queue verbs share: naming the queue, the not-running banner, choices, prompts. */
import { Option } from 'commander';
import { parseChoice } from '../../cli/args.js';
import { formatRepo } from '../../config/resolve.js';
import type { Deps, Target } from '../../context.js';
import { BANNER_WRAP, queueBanner } from '../../views/queue.js';

/** `main of github.com/acme/widgets` */
export function queueName(target: Target): string {
  return `${target.targetBranch} of ${formatRepo(target.repo)}`;
}

/** The identity fields every JSON document of a queue verb starts with. */
export function identity(target: Target): { repo: string; targetBranch: string } {
  return { repo: formatRepo(target.repo), targetBranch: target.targetBranch };
}

/** Warns on stderr when the queue is paused, draining or switching modes. */
export function bannerToStderr(deps: Pick<Deps, 'out'>, state: string | null | undefined): void {
  const banner = queueBanner(state);
  if (banner) deps.out.note(banner, BANNER_WRAP);
}

/** Prompts are allowed only with a terminal on stdin and stderr, outside CI. */
export function canPrompt(deps: Pick<Deps, 'io' | 'env'>): boolean {
  return deps.io.stdinIsTTY && deps.io.stderrIsTTY && !deps.env.CI;
}

/** An option with choices commander knows, read case-insensitively; a wrong value names the flag and rule. */
export function choiceOption<T extends string>(flags: string, description: string, values: readonly T[]): Option {
  const flag = /--[\w-]+/.exec(flags)?.[0] ?? flags;
  return new Option(flags, description).choices(values).argParser((v: string) => parseChoice(v, flag, values));
}
