import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Context } from '../context.js';
import { formatRepo } from '../config/resolve.js';
import { UsageError } from '../errors.js';
import { collect, emit, finishDryRun, onePr, withExamples } from './shared.js';

/** The service refuses request bodies over 20 MiB. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

export interface TargetsOptions {
  sha?: string;
  target?: string[];
  file?: string;
  all?: boolean;
  none?: boolean;
  dryRun?: boolean;
}

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

async function readTargets(ctx: Context, opts: TargetsOptions): Promise<string[] | 'ALL'> {
  const chosen = [opts.target !== undefined, opts.file !== undefined, opts.all === true, opts.none === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new UsageError('give exactly one of --target, --file, --all or --none', {
      hints: ['e.g. --target //svc/api --target //svc/web, or --file targets.txt, or --all for "impacts everything"'],
    });
  }
  if (opts.all) return 'ALL';
  if (opts.none) return [];
  if (opts.target) {
    if (opts.target.some((t) => t.trim() === '')) throw new UsageError('--target: a target must not be empty');
    return opts.target;
  }
  const file = opts.file as string;
  let text: string;
  try {
    text = file === '-' ? await ctx.io.readStdin() : readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseTargetsText(text, file === '-' ? 'stdin' : file);
}

export async function runTargets(ctx: Context, prArg: string | undefined, opts: TargetsOptions): Promise<number> {
  const pr = onePr(ctx, prArg);
  const sha = opts.sha?.trim();
  if (!sha || /\s/.test(sha)) throw new UsageError('--sha: the head commit sha of the PR is required', { hints: ['e.g. --sha "$(git rev-parse HEAD)"'] });
  const impactedTargets = await readTargets(ctx, opts);
  const target = ctx.target();
  const request = { repo: target.repo, targetBranch: target.targetBranch, pr: { number: pr, sha }, impactedTargets };
  const body = JSON.stringify(request);
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_BODY_BYTES) {
    throw new UsageError(`the target list makes a ${(bytes / 1048576).toFixed(1)} MiB request; the service accepts at most 20 MiB`, {
      hints: ['send --all instead: the PR is then taken to impact every target'],
    });
  }
  const client = await ctx.client({ dryRun: opts.dryRun });
  await client.setImpactedTargets(request, { body });
  const count = impactedTargets === 'ALL' ? 'ALL' : impactedTargets.length;
  if (opts.dryRun) {
    finishDryRun(ctx, { targets: count });
    return 0;
  }
  ctx.io.err(`${ctx.styleErr.green('✓')} set impacted targets of PR #${pr} at ${sha.slice(0, 12)}: ${count === 'ALL' ? 'ALL' : `${count} target${count === 1 ? '' : 's'}`}\n`);
  await emit(ctx, { pr, ok: true, exitCode: 0, action: 'targets', repo: formatRepo(target.repo), targetBranch: target.targetBranch, sha, targets: count, bytes }, () => '');
  return 0;
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
    .action(async (pr: string | undefined, opts: TargetsOptions) => {
      ctx.exitCode = await runTargets(ctx, pr, opts);
    });
  return withExamples(cmd, [
    'mq targets 42 --sha "$(git rev-parse HEAD)" --target //svc/api --target //svc/web',
    'bazel-diff ... > targets.txt && mq targets 42 --sha "$SHA" --file targets.txt',
    'mq targets 42 --sha "$SHA" --all',
  ]);
}
