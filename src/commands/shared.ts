/** Small pieces every command uses: help examples, emitting data, the target of a PR call. */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { parsePrList, parsePrNumber } from '../cli/args.js';
import { inferPrNumber } from '../config/github.js';
import { json } from '../output/render.js';

export function withExamples(cmd: Command, examples: string[], extra?: string): Command {
  const text = `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n${extra ? `\n${extra}\n` : ''}`;
  return cmd.addHelpText('after', text);
}

/** Prints `data` as JSON under --json, else the text `render` produces. */
export async function emit(ctx: Context, data: unknown, render: () => string | Promise<string>): Promise<void> {
  if (ctx.format() === 'json') {
    ctx.io.out(json(data));
    return;
  }
  ctx.io.out(await render());
}

/**
 * Closes a dry run: under --json one document `{dryRun: true, request | requests, …}` (the
 * requests were printed already otherwise), and a note on stderr that nothing was sent.
 */
export function finishDryRun(ctx: Context, doc: Record<string, unknown> = {}, bulk = false): void {
  if (ctx.format() === 'json') {
    const requests = bulk ? { requests: ctx.dryRuns } : { request: ctx.dryRuns[0] ?? null };
    ctx.io.out(json({ dryRun: true, ...requests, ...doc }));
  }
  ctx.io.err('dry run: nothing was sent\n');
}

/** Accumulates a repeatable option; marked so `mq help --json` can say the option repeats. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
Object.assign(collect, { repeatable: true });

/** PR numbers from arguments, `-` (stdin), or in GitHub Actions the run's own PR; all checked first. */
export async function prArguments(ctx: Context, args: string[]): Promise<number[]> {
  if (args.length === 0) return [inferPrNumber(ctx.env)];
  const stdin = args.includes('-') ? await ctx.io.readStdin() : undefined;
  return parsePrList(args, stdin);
}

export function onePr(ctx: Context, arg: string | undefined): number {
  return arg === undefined ? inferPrNumber(ctx.env) : parsePrNumber(arg);
}
