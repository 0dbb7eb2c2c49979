// Argument parsers: each throws a UsageError naming the flag and rule before anything is sent.
import type { Command, Option } from 'commander';
import { MAX_U32, PRIORITY_NAMES, PRIORITY_VALUES } from '../domain/vocabulary.js';
import { UsageError } from '../errors.js';

/** A PR number: an integer 1..4294967295, optionally written `#42` (the service has no PR 0). */
export function parsePrNumber(text: string, label = 'PR number'): number {
  const t = text.trim().replace(/^#/, '');
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > MAX_U32) {
    throw new UsageError(
      `${label}: ${JSON.stringify(text)} is not a PR number; expected an integer from 1 to ${MAX_U32}`,
      {
        example: '42',
      },
    );
  }
  return Number(t);
}

/** Several PR numbers, all checked before any is used. `-` stands for the numbers read from stdin. */
export function parsePrList(items: string[], stdinText?: string): number[] {
  const tokens: string[] = [];
  for (const item of items) {
    if (item === '-') {
      if (stdinText === undefined) throw new UsageError('PR list: `-` given but standard input was not read');
      tokens.push(...stdinText.split(/[\s,]+/).filter((s) => s !== ''));
    } else tokens.push(item);
  }
  if (tokens.length === 0)
    throw new UsageError('PR list: no PR numbers given', {
      hints: ['pass numbers as arguments, or `-` to read them from stdin'],
    });
  const numbers = tokens.map((t) => parsePrNumber(t));
  return [...new Set(numbers)];
}

export type Priority = number | (typeof PRIORITY_NAMES)[number];

/** `urgent|high|medium|low` or an integer 0..255 (0 is the most urgent). */
export function parsePriority(text: string): Priority {
  const t = text.trim().toLowerCase();
  if ((PRIORITY_NAMES as readonly string[]).includes(t)) return t as Priority;
  if (/^\d+$/.test(t) && Number(t) <= 255) return Number(t);
  throw new UsageError(
    `--priority: ${JSON.stringify(text)} is not a priority; expected ${PRIORITY_NAMES.join(', ')} or an ` +
      `integer from 0 to 255`,
  );
}

export function priorityValue(p: Priority): number {
  return typeof p === 'number' ? p : PRIORITY_VALUES[p];
}

/** An integer in [min, max] for `flag`. */
export function parseIntIn(text: string, flag: string, min: number, max: number): number {
  const t = text.trim();
  if (!/^-?\d+$/.test(t) || Number(t) < min || Number(t) > max) {
    throw new UsageError(`${flag}: ${JSON.stringify(text)} must be an integer from ${min} to ${max}`);
  }
  return Number(t);
}

/** One of `values`, case-insensitive, returned as spelled in `values`. */
export function parseChoice<T extends string>(text: string, flag: string, values: readonly T[]): T {
  const t = text.trim().toLowerCase();
  const hit = values.find((v) => v.toLowerCase() === t);
  if (!hit) throw new UsageError(`${flag}: ${JSON.stringify(text)} is not one of ${values.join(', ')}`);
  return hit;
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The root of a command tree: its `rawArgs` are the command line as given. */
function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** The tokens before `--` that are `flag` itself or `flag=value`. */
function occurrences(argv: readonly string[], flag: string): number {
  let n = 0;
  for (const a of argv) {
    if (a === '--') break;
    if (a === flag || a.startsWith(`${flag}=`)) n++;
  }
  return n;
}

/** An option that takes one value, so a second occurrence would silently replace the first. */
function takesOneValue(opt: Option): boolean {
  if (!(opt.required || opt.optional) || opt.variadic) return false;
  return (opt.parseArg as { repeatable?: boolean } | undefined)?.repeatable !== true;
}

/** Refuses a flag with its negation and a single-value option given twice (`collect` ones may repeat). */
export function refuseFlagConflicts(cmd: Command): void {
  const seen = new Map<string, string[]>();
  for (const opt of cmd.options as Option[]) {
    const name = opt.name();
    const long = opt.long ?? `--${name}`;
    cmd.on(`option:${name}`, (value?: string) => {
      const values = [...(seen.get(name) ?? []), String(value)];
      seen.set(name, values);
      const flag = opt.short && opt.long ? `${opt.long} (${opt.short})` : long;
      if (values.length === 2 && takesOneValue(opt)) {
        throw new UsageError(
          `${flag}: given twice (${values.map((s) => JSON.stringify(s)).join(' and ')}); it takes one value`,
          {
            hints: [`give ${long} once`],
          },
        );
      }
      const positive = opt.negate ? `--${long.slice('--no-'.length)}` : long;
      const negative = opt.negate ? long : `--no-${long.slice(2)}`;
      // `--no-x` alone makes `--x` an unknown option; a defined `--x` alone makes `--no-x` one.
      const negationDefined = opt.negate || (cmd.options as Option[]).some((o) => o.long === negative);
      const argv = (rootOf(cmd) as unknown as { rawArgs?: string[] }).rawArgs ?? [];
      if (
        values.length === 1 &&
        negationDefined &&
        occurrences(argv, positive) > 0 &&
        occurrences(argv, negative) > 0
      ) {
        throw new UsageError(`${positive} and ${negative}: give one or the other, not both`, {
          hints: [`drop ${positive} or ${negative}`],
        });
      }
    });
  }
}
