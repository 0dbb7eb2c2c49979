import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { PrRequest } from '../api/client.js';
import type { MergeQueueService } from '../api/service.js';
import { COMMIT_SHA, WORKFLOW_RUN_ID } from '../domain/vocabulary.js';
import { forkedRunId } from '../config/fork.js';
import type { CallOptions } from '../api/http-types.js';
import { formatRepo } from '../config/resolve.js';
import { type Context, type Deps, requestTimeoutMs } from '../context.js';
import { UsageError } from '../errors.js';
import type { Result } from '../output/present.js';
import { plainNone } from '../output/plain.js';
import { own, paints, v } from '../output/render.js';
import { InputTooLarge, limitText } from '../util/limited-read.js';
import { type TargetsBody, TargetsBodyWriter } from './targets-file.js';
import { act, collect, onePr, withExamples, withPlainHelp, prDocument } from './shared.js';

/** The service refuses request bodies over 20 MiB. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

export type TargetSource = { targets: string[] } | { file: string } | { all: true } | { none: true };

export interface TargetsOptions {
  pr: number;
  sha: string;
  source: TargetSource;
  dryRun?: boolean;
  /** --forked-workflow-run-id: authenticate the upload as this fork PR's workflow run. */
  forkedWorkflowRunId?: string;
}

interface TargetsFlags {
  sha?: string;
  target?: string[];
  file?: string;
  all?: boolean;
  none?: boolean;
  dryRun?: boolean;
  forkedWorkflowRunId?: string;
}

/** The wiring: exactly one source of targets, a sha that is a commit id. */
export function targetsOptions(pr: number, f: TargetsFlags): TargetsOptions {
  const sha = f.sha?.trim();
  const hints = ['e.g. --sha "$(git rev-parse HEAD)"'];
  if (!sha) throw new UsageError('--sha: the head commit sha of the PR is required', { hints });
  if (!COMMIT_SHA.test(sha)) {
    throw new UsageError(`--sha: ${JSON.stringify(f.sha)} is not a commit sha; expected 7 to 64 hex digits`, { hints });
  }
  const chosen = [f.target !== undefined, f.file !== undefined, f.all === true, f.none === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new UsageError('give exactly one of --target, --file, --all or --none', {
      hints: ['e.g. --target //svc/api --target //svc/web, or --file targets.txt, or --all for "impacts everything"'],
    });
  }
  if (f.target?.some((t) => t.trim() === '')) throw new UsageError('--target: a target must not be empty');
  const source: TargetSource = f.all
    ? { all: true }
    : f.none
      ? { none: true }
      : f.target
        ? { targets: f.target }
        : { file: f.file as string };
  const forked = f.forkedWorkflowRunId?.trim();
  if (forked !== undefined && !WORKFLOW_RUN_ID.test(forked)) {
    const given = JSON.stringify(f.forkedWorkflowRunId);
    throw new UsageError(`--forked-workflow-run-id: ${given} is not a workflow run id; expected digits`, {
      hints: ['in the fork PR\'s workflow: --forked-workflow-run-id "$GITHUB_RUN_ID"'],
    });
  }
  return { pr, sha, source, dryRun: f.dryRun, ...(forked !== undefined ? { forkedWorkflowRunId: forked } : {}) };
}

function tooLarge(file: string): UsageError {
  return new UsageError(
    `--file: ${file === '-' ? 'standard input' : file} is over the limit of ${limitText(MAX_BODY_BYTES)} ` +
      `(the most the service accepts); nothing was sent`,
    { hints: ['send --all instead: the PR is then taken to impact every target'] },
  );
}

/**
 * A targets file, read and checked chunk by chunk into the request body (targets-file.ts); every
 * mistake in it is reported before anything is sent. Standard input arrives whole (at most 20 MiB)
 * and goes through the same checks.
 */
const READ_CHUNK = 1 << 20;

async function readTargetsFile(deps: Deps, file: string): Promise<TargetsBodyWriter> {
  const writer = new TargetsBodyWriter(file, MAX_BODY_BYTES);
  try {
    if (file === '-') writer.write(await deps.io.readStdin(MAX_BODY_BYTES));
    else {
      // 1 MiB at a time into one buffer (the writer copies what it keeps): the text is never whole.
      // Read synchronously: a 20 MiB file takes milliseconds, and a thread pool round trip per
      // chunk would leave this thread idle for part of each.
      const fd = openSync(resolve(deps.cwd, file), 'r');
      try {
        const chunk = Buffer.allocUnsafe(READ_CHUNK);
        let size = 0;
        for (;;) {
          const bytesRead = readSync(fd, chunk, 0, READ_CHUNK, null);
          if (bytesRead === 0) break;
          size += bytesRead;
          if (size > MAX_BODY_BYTES) throw new InputTooLarge(MAX_BODY_BYTES);
          writer.write(chunk.subarray(0, bytesRead));
        }
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    if (err instanceof InputTooLarge) throw tooLarge(file);
    throw new UsageError(
      `--file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  writer.end();
  return writer;
}

export async function runTargets(opts: TargetsOptions, deps: Deps): Promise<Result> {
  const { pr, sha, source } = opts;
  const file = 'file' in source ? await readTargetsFile(deps, source.file) : undefined;
  const target = deps.target();
  const head = { repo: target.repo, targetBranch: target.targetBranch, pr: { number: pr, sha } };
  let count: number | 'ALL' = 'ALL';
  if (!file && !('all' in source)) {
    const impactedTargets = 'targets' in source ? source.targets : [];
    count = impactedTargets.length;
    const bytes = Buffer.byteLength(JSON.stringify({ ...head, impactedTargets }));
    if (bytes > MAX_BODY_BYTES) {
      throw new UsageError(
        `the target list makes a ${(bytes / 1048576).toFixed(1)} MiB request; the service accepts at most 20 MiB`,
        {
          hints: ['send --all instead: the PR is then taken to impact every target'],
        },
      );
    }
  }
  const forked = opts.forkedWorkflowRunId ?? forkWithoutToken(deps);
  const client = await deps.client({ dryRun: opts.dryRun, ...(forked ? { forkedWorkflowRunId: forked } : {}) });
  // The wire's own head (v2: the repository's id) and its way of saying "every target".
  const wire = await client.impactedTargetsHead(head);
  let body: string | TargetsBody;
  let bytes: number;
  if (file) {
    body = file.body(JSON.stringify(wire.head));
    count = body.count;
    bytes = body.length;
  } else {
    const list = 'targets' in source ? { impactedTargets: source.targets } : { impactedTargets: [] };
    body = JSON.stringify({ ...wire.head, ...('all' in source ? wire.all : list) });
    bytes = Buffer.byteLength(body);
  }
  if (count !== 'ALL' && wire.maxTargets !== undefined && count > wire.maxTargets) {
    throw new UsageError(
      `the target list has ${count} targets; this API accepts at most ${wire.maxTargets} per upload`,
      {
        hints: ['send --all instead: the PR is then taken to impact every target'],
      },
    );
  }
  // Read alongside the upload (no extra round trip), within one request's time, and ended with the command.
  const done = new AbortController();
  const signal = AbortSignal.any([deps.signal, done.signal]);
  const call = { signal, deadline: deps.clock.now() + requestTimeoutMs(deps.options, deps.env, false) };
  // A fork's run id cannot read: no check then.
  const known = opts.dryRun || forked ? undefined : knownHead(client, { ...target, pr: { number: pr } }, call);
  try {
    // The body is already made (and checked as it was read); the request object is not serialised again.
    await client.setImpactedTargets({ ...head, impactedTargets: count === 'ALL' ? 'ALL' : [] }, { body });
  } catch (err) {
    done.abort();
    throw err;
  }
  if (opts.dryRun)
    return { exitCode: 0, dryRun: { requests: deps.dryRuns, doc: { requests: deps.dryRuns, targets: count } } };
  const common = { action: 'targets', repo: formatRepo(target.repo), targetBranch: target.targetBranch };
  deps.out.note([
    own(paints.green, '✓'),
    ` set impacted targets of PR #${pr} at `,
    v(sha.slice(0, 12)),
    `: ${count === 'ALL' ? 'ALL' : `${count} target${count === 1 ? '' : 's'}`}`,
    forked ? ` (as fork workflow run ${forked})` : '',
  ]);
  const headSha = await known;
  if (headSha !== undefined && headSha.toLowerCase() !== sha.toLowerCase()) {
    deps.out.note([
      own(paints.yellow, 'warning:'),
      ` --sha ${sha} is not the head of PR #${pr} as the service knows it (`,
      v(headSha.slice(0, 64)),
      '); the PR waits for targets of its head',
    ]);
  }
  return {
    data: prDocument([{ pr, ok: true, exitCode: 0, ...common, sha, targets: count, bytes }], common),
    exitCode: 0,
  };
}

/** In a fork PR's workflow run with no token set: the run's id, which authenticates the upload. */
function forkWithoutToken(deps: Deps): string | undefined {
  const runId = forkedRunId(deps.env);
  return runId !== undefined && !deps.connection().token ? runId : undefined;
}

/** Best effort: the PR's head sha as the service knows it; unknown PR or a failed read: undefined. */
async function knownHead(client: MergeQueueService, req: PrRequest, call: CallOptions): Promise<string | undefined> {
  try {
    const pr = await client.getSubmittedPullRequest(req, call);
    return typeof pr.prSha === 'string' && pr.prSha !== '' ? pr.prSha : undefined;
  } catch {
    return undefined;
  }
}

export function targetsCommand(ctx: Context): Command {
  const cmd = new Command('targets')
    .summary('upload the impacted targets of a PR (parallel queues)')
    .description(
      'Set the impacted targets of a PR for its head sha. The last upload for a sha wins. A body over 20 ' +
        'MiB (on v2, a list over 100,000 targets) is refused before sending; use --all for "impacts everything". ' +
        "A --sha that is not the PR's head as the service knows it is uploaded with a warning.",
    )
    .argument('[pr]', 'PR number')
    .option('--sha <sha>', 'head commit sha the targets were computed for (required; 7 to 64 hex digits)')
    .option('-t, --target <target>', 'an impacted target (repeatable)', collect)
    .option('-f, --file <path>', 'read targets from a file (one per line, or a JSON array); - for stdin')
    .option('--all', 'the PR impacts every target (sends "ALL")')
    .option('--none', 'the PR impacts nothing (sends an empty list)')
    .option('--dry-run', 'print the request instead of sending it')
    .option(
      '--forked-workflow-run-id <id>',
      "a fork PR's workflow run id, the upload's credential instead of a token (default there: GITHUB_RUN_ID)",
    )
    .action(
      act(
        ctx,
        'targets',
        (pr: string | undefined, f: TargetsFlags) => targetsOptions(onePr(ctx.env, pr), f),
        runTargets,
      ),
    );
  withPlainHelp(cmd, [plainNone('nothing on stdout: a ✓ line on stderr, and the exit code')]);
  return withExamples(cmd, [
    'mq targets 42 --sha "$(git rev-parse HEAD)" --target //svc/api --target //svc/web',
    'bazel-diff ... > targets.txt && mq targets 42 --sha "$SHA" --file targets.txt',
    'mq targets 42 --sha "$SHA" --all',
  ]);
}
