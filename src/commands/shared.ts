// Pieces every command uses: the action wrapper, help examples, PR arguments, repeatable options.
import type { Command } from 'commander';
import { parsePrList, parsePrNumber } from '../cli/args.js';
import { inferPrNumber } from '../config/github.js';
import type { Context, Deps } from '../context.js';
import { mostSevere, UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainHelpText, type PlainSpec } from '../output/plain.js';
import type { Format } from '../output/render.js';
import { InputTooLarge, limitText } from '../util/limited-read.js';

// Help paragraphs are written when help is shown, not each time a command is built.
export function withExamples(cmd: Command, examples: string[], extra?: string): Command {
  return cmd.addHelpText(
    'after',
    () => `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n${extra ? `\n${extra}\n` : ''}`,
  );
}

/** Adds the `Plain output (piped, or -o plain):` paragraph, written from the specs that build the rows. */
export function withPlainHelp(cmd: Command, specs: readonly PlainSpec[], note?: string): Command {
  return cmd.addHelpText('after', () => plainHelpText(specs, note));
}

/** A commander action: `toOptions` is the wiring (tested via `ctx.intercept`), `run` returns a Result. */
// biome-ignore lint/suspicious/noExplicitAny: commander hands actions untyped arguments
export function act<A extends any[], O>(
  ctx: Context,
  name: string,
  toOptions: (...args: A) => O,
  run: (options: O, deps: Deps) => Promise<Result>,
  piped?: Format,
) {
  return async (...args: A): Promise<void> => {
    const options = toOptions(...args);
    if (ctx.intercept) {
      ctx.intercept(name, options);
      return;
    }
    ctx.exitCode = await ctx.out.show(await run(options, ctx), piped);
  };
}

/** Accumulates a repeatable option; marked so `mq help --json` can say the option repeats. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
Object.assign(collect, { repeatable: true });

/** The most PR numbers standard input may carry (a PR number is at most 10 digits and a separator). */
export const PR_LIST_STDIN_LIMIT = 1024 * 1024;

/** Reads standard input, refusing more than `limit` bytes with a message naming `what` and the limit. */
export async function readStdinLimited(deps: Pick<Deps, 'io'>, limit: number, what: string): Promise<string> {
  try {
    return await deps.io.readStdin(limit);
  } catch (err) {
    if (err instanceof InputTooLarge)
      throw new UsageError(`${what}: standard input is over the limit of ${limitText(limit)}; nothing was sent`);
    throw err;
  }
}

/** PR numbers from arguments, `-` (stdin), or in GitHub Actions the run's own PR; all checked first. */
export async function prArguments(deps: Pick<Deps, 'io' | 'env'>, args: string[]): Promise<number[]> {
  if (args.length === 0) return [inferPrNumber(deps.env)];
  const stdin = args.includes('-') ? await readStdinLimited(deps, PR_LIST_STDIN_LIMIT, 'PR list') : undefined;
  return parsePrList(args, stdin);
}

/** One PR argument, or in GitHub Actions the run's own PR. */
export function onePr(env: NodeJS.ProcessEnv, arg: string | undefined): number {
  return arg === undefined ? inferPrNumber(env) : parsePrNumber(arg);
}

/** The --json shape of every PR command: `{ok, exitCode, ..., results: [one per PR]}`; one PR is also at top level. */
export interface PrItem {
  pr: number;
  ok: boolean;
  exitCode: number;
  [field: string]: unknown;
}

export function prDocument(results: PrItem[], common: Record<string, unknown> = {}): Record<string, unknown> {
  const single = results.length === 1 ? results[0] : undefined;
  return {
    ...single,
    ok: results.every((r) => r.ok),
    exitCode: mostSevere(results.map((r) => r.exitCode)),
    ...common,
    results,
  };
}
