import { resolve } from 'node:path';
import { Command } from 'commander';
import { formatRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { own, paints, v } from '../output/render.js';
import { InputTooLarge, limitText, readFileLimited } from '../util/limited-read.js';
import { prDocument } from './pr-doc.js';
import { act, collect, onePr, withExamples } from './shared.js';

/** The service refuses request bodies over 20 MiB. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** A targets file: a JSON array of strings, or one target per line (blank lines and `#` comments skipped). */
export function parseTargetsText(text: string, source: string): string[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new UsageError(`--file: ${source} starts with [ but is not a valid JSON array`);
    }
    if (!Array.isArray(parsed) || parsed.some((t) => typeof t !== 'string' || t === '')) {
      throw new UsageError(`--file: ${source} must be a JSON array of non-empty strings`);
    }
    return parsed as string[];
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t !== '' && !t.startsWith('#')) out.push(t);
  }
  return out;
}

export type TargetSource = { targets: string[] } | { file: string } | { all: true } | { none: true };

export interface TargetsOptions {
  pr: number;
  sha: string;
  source: TargetSource;
  dryRun?: boolean;
}

interface TargetsFlags {
  sha?: string;
  target?: string[];
  file?: string;
  all?: boolean;
  none?: boolean;
  dryRun?: boolean;
}

/** The wiring: exactly one source of targets, a sha without white space. */
export function targetsOptions(pr: number, f: TargetsFlags): TargetsOptions {
  const sha = f.sha?.trim();
  if (!sha || /\s/.test(sha)) throw new UsageError('--sha: the head commit sha of the PR is required', { hints: ['e.g. --sha "$(git rev-parse HEAD)"'] });
  const chosen = [f.target !== undefined, f.file !== undefined, f.all === true, f.none === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new UsageError('give exactly one of --target, --file, --all or --none', {
      hints: ['e.g. --target //svc/api --target //svc/web, or --file targets.txt, or --all for "impacts everything"'],
    });
  }
  if (f.target?.some((t) => t.trim() === '')) throw new UsageError('--target: a target must not be empty');
  const source: TargetSource = f.all ? { all: true } : f.none ? { none: true } : f.target ? { targets: f.target } : { file: f.file as string };
  return { pr, sha, source, dryRun: f.dryRun };
}

async function readTargets(deps: Deps, source: TargetSource): Promise<string[] | 'ALL'> {
  if ('all' in source) return 'ALL';
  if ('none' in source) return [];
  if ('targets' in source) return source.targets;
  const file = source.file;
  let text: string;
  try {
    text = file === '-' ? await deps.io.readStdin(MAX_BODY_BYTES) : await readFileLimited(resolve(deps.cwd, file), MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof InputTooLarge) {
      throw new UsageError(
        `--file: ${file === '-' ? 'standard input' : file} is over the limit of ${limitText(MAX_BODY_BYTES)} (the most the service accepts); nothing was sent`,
        {
          hints: ['send --all instead: the PR is then taken to impact every target'],
        },
      );
    }
    throw new UsageError(`--file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const targets = parseTargetsText(text, file === '-' ? 'stdin' : file);
  // An empty list says "impacts nothing": too much to infer from a file that may have failed to fill.
  if (targets.length === 0) {
    throw new UsageError(`--file: ${file === '-' ? 'standard input' : file} lists no targets; nothing was sent`, {
      hints: ['if the PR really impacts nothing, say so with --none'],
    });
  }
  return targets;
}

export async function runTargets(opts: TargetsOptions, deps: Deps): Promise<Result> {
  const { pr, sha } = opts;
  const impactedTargets = await readTargets(deps, opts.source);
  const target = deps.target();
  const request = { repo: target.repo, targetBranch: target.targetBranch, pr: { number: pr, sha }, impactedTargets };
  const body = JSON.stringify(request);
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_BODY_BYTES) {
    throw new UsageError(`the target list makes a ${(bytes / 1048576).toFixed(1)} MiB request; the service accepts at most 20 MiB`, {
      hints: ['send --all instead: the PR is then taken to impact every target'],
    });
  }
  const client = await deps.client({ dryRun: opts.dryRun });
  await client.setImpactedTargets(request, { body });
  const count = impactedTargets === 'ALL' ? 'ALL' : impactedTargets.length;
  if (opts.dryRun) return { exitCode: 0, dryRun: { requests: deps.dryRuns, doc: { requests: deps.dryRuns, targets: count } } };
  const common = { action: 'targets', repo: formatRepo(target.repo), targetBranch: target.targetBranch };
  deps.out.note([
    own(paints.green, '✓'),
    ` set impacted targets of PR #${pr} at `,
    v(sha.slice(0, 12)),
    `: ${count === 'ALL' ? 'ALL' : `${count} target${count === 1 ? '' : 's'}`}`,
  ]);
  return {
    data: prDocument([{ pr, ok: true, exitCode: 0, ...common, sha, targets: count, bytes }], common),
    exitCode: 0,
  };
}

export function targetsCommand(ctx: Context): Command {
  const cmd = new Command('targets')
    .summary('upload the impacted targets of a PR (parallel queues)')
    .description(
      'Set the impacted targets of a PR for its head sha. The last upload for a sha wins. A body over 20 MiB is refused before sending; use --all for "impacts everything".',
    )
    .argument('[pr]', 'PR number')
    .option('--sha <sha>', 'head commit sha the targets were computed for (required)')
    .option('-t, --target <target>', 'an impacted target (repeatable)', collect)
    .option('-f, --file <path>', 'read targets from a file (one per line, or a JSON array); - for stdin')
    .option('--all', 'the PR impacts every target (sends "ALL")')
    .option('--none', 'the PR impacts nothing (sends an empty list)')
    .option('--dry-run', 'print the request instead of sending it')
    .action(act(ctx, 'targets', (pr: string | undefined, f: TargetsFlags) => targetsOptions(onePr(ctx.env, pr), f), runTargets));
  return withExamples(cmd, [
    'mq targets 42 --sha "$(git rev-parse HEAD)" --target //svc/api --target //svc/web',
    'bazel-diff ... > targets.txt && mq targets 42 --sha "$SHA" --file targets.txt',
    'mq targets 42 --sha "$SHA" --all',
  ]);
}
