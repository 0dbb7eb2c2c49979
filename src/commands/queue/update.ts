import { Command } from 'commander';
import { DIRECT_MERGE_MODES, MAX_U32, MERGE_METHODS, OPTIMIZATION_MODES, QUEUE_MODES } from '../../api/constants.js';
import type { Queue, UpdateQueueSettings } from '../../api/schemas.js';
import { parseIntIn } from '../../cli/args.js';
import type { Context } from '../../context.js';
import { MqError, UsageError } from '../../errors.js';
import { json, renderRows } from '../../output/render.js';
import { changeLines, changeRows, settingChanges, type SettingChange } from '../../views/queue.js';
import { collect, finishDryRun, withExamples } from '../shared.js';
import { bannerToStderr, choiceOption, identity, queueName } from './common.js';

type Settings = Record<string, unknown>;

/** The flags of `mq queue update`, each with the updateQueue field it sets. */
const INT_FLAGS = [
  { flag: 'concurrency', attr: 'concurrency', field: 'concurrency', help: 'PRs or batches tested at once' },
  { flag: 'bisection-concurrency', attr: 'bisectionConcurrency', field: 'bisectionConcurrency', help: 'tests run at once while bisecting a failed batch' },
  { flag: 'testing-timeout', attr: 'testingTimeout', field: 'testingTimeoutMinutes', help: 'minutes to wait for tests before timing out', unit: 'minutes' },
  { flag: 'pending-failure-depth', attr: 'pendingFailureDepth', field: 'pendingFailureDepth', help: 'PRs below a failing PR that must finish testing before it is removed' },
  { flag: 'batching-max-wait', attr: 'batchingMaxWait', field: 'batchingMaxWaitTimeMinutes', help: 'minutes to wait while collecting a batch', unit: 'minutes' },
  { flag: 'batching-min-size', attr: 'batchingMinSize', field: 'batchingMinSize', help: 'PRs needed to form a batch' },
] as const;

const ENUM_FLAGS = [
  { flag: 'mode', attr: 'mode', field: 'mode', values: QUEUE_MODES, help: 'queue mode' },
  { flag: 'direct-merge', attr: 'directMerge', field: 'directMergeMode', values: DIRECT_MERGE_MODES, help: 'let an up-to-date PR merge on submission without queue testing' },
  { flag: 'optimization', attr: 'optimization', field: 'optimizationMode', values: OPTIMIZATION_MODES, help: 'optimization strategy' },
  { flag: 'merge-method', attr: 'mergeMethod', field: 'mergeMethod', values: MERGE_METHODS, help: 'how PRs are merged into the branch' },
] as const;

const BOOL_FLAGS = [
  { flag: 'optimistic-merge', attr: 'optimisticMerge', field: 'canOptimisticallyMerge', help: 'optimistic merging: a passing PR also passes every PR ahead of it', off: 'no optimistic merging' },
  { flag: 'batch', attr: 'batch', field: 'batch', help: 'test PRs in batches', off: 'test PRs one by one, never in batches' },
  { flag: 'comments', attr: 'comments', field: 'commentsEnabled', help: 'post comments on PRs', off: 'post no comments on PRs' },
  { flag: 'commands', attr: 'commands', field: 'commandsEnabled', help: 'allow submitting a PR with a merge command comment', off: 'ignore merge command comments' },
  { flag: 'testing-branch-prs', attr: 'testingBranchPrs', field: 'createPrsForTestingBranches', help: 'create PRs for testing branches so CI runs on them', off: 'create no PRs for testing branches' },
  { flag: 'status-check', attr: 'statusCheck', field: 'statusCheckEnabled', help: 'post a status check with the queue status on PRs', off: 'post no status check on PRs' },
] as const;

export const UPDATE_FLAGS = [
  ...INT_FLAGS.map((f) => `--${f.flag}`),
  ...ENUM_FLAGS.map((f) => `--${f.flag}`),
  ...BOOL_FLAGS.map((f) => `--[no-]${f.flag}`),
  '--required-status',
  '--clear-required-statuses',
];

export interface UpdateOptions {
  requiredStatus?: string[];
  clearRequiredStatuses?: boolean;
  dryRun?: boolean;
  [attr: string]: unknown;
}

/** The updateQueue fields the flags ask for; only flags given appear. Throws before anything is sent. */
export function settingsFromFlags(opts: UpdateOptions): UpdateQueueSettings {
  const s: Settings = {};
  for (const f of [...INT_FLAGS, ...ENUM_FLAGS, ...BOOL_FLAGS]) {
    const v = opts[f.attr];
    if (v !== undefined) s[f.field] = v;
  }
  if (opts.requiredStatus !== undefined && opts.clearRequiredStatuses) {
    throw new UsageError('--required-status and --clear-required-statuses cannot be used together: one sets the list, the other removes it', {
      hints: ['to replace the list, pass only --required-status (once per status)'],
    });
  }
  if (opts.requiredStatus !== undefined) {
    if (opts.requiredStatus.some((r) => r.trim() === '')) throw new UsageError('--required-status: a status name cannot be empty');
    s.requiredStatuses = [...new Set(opts.requiredStatus)];
  }
  if (opts.clearRequiredStatuses) s.deleteRequiredStatuses = true;
  if (Object.keys(s).length === 0) {
    throw new UsageError('mq queue update: no setting given; pass at least one setting flag', {
      hints: [`settings: ${UPDATE_FLAGS.join(', ')}`, 'to pause, resume or drain use `mq queue pause|resume|drain`'],
    });
  }
  return s as UpdateQueueSettings;
}

/** The queue as it would be after `settings` (for dry runs). */
export function applySettings(q: Queue, settings: UpdateQueueSettings): Queue {
  const next: Settings = { ...q };
  for (const [k, v] of Object.entries(settings)) if (k !== 'deleteRequiredStatuses' && v !== undefined) next[k] = v;
  if (settings.deleteRequiredStatuses) next.requiredStatuses = null;
  return next as Queue;
}

function requestedFields(settings: UpdateQueueSettings): Set<string> {
  const fields = new Set(Object.keys(settings));
  if (fields.delete('deleteRequiredStatuses')) fields.add('requiredStatuses');
  return fields;
}

async function printChanges(ctx: Context, changes: SettingChange[], heading: string): Promise<void> {
  const format = ctx.format();
  if (format === 'plain' || format === 'raw') ctx.io.out(await renderRows([], changeRows(changes), 'plain', ctx.style));
  else if (format === 'markdown') ctx.io.out(`${heading}\n\n${await renderRows(['Setting', 'Before', 'After', ''], changeRows(changes), 'markdown', ctx.style)}`);
  else ctx.io.out(`${ctx.style.bold(heading)}\n${changeLines(changes, ctx.style)}`);
}

export async function runQueueUpdate(ctx: Context, opts: UpdateOptions): Promise<number> {
  const settings = settingsFromFlags(opts);
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  const requested = requestedFields(settings);

  let before: Queue | undefined;
  if (opts.dryRun) {
    // The read only describes the change; a dry run goes on without it (it may have no token).
    try {
      before = await client.getQueue(target);
    } catch (err) {
      ctx.io.err(`${ctx.styleErr.yellow('!')} could not read the queue to compare (${err instanceof MqError ? err.why : String(err)}); showing only the requested values\n`);
    }
  } else {
    before = await client.getQueue(target);
  }

  const returned = await client.updateQueue({ ...target, ...settings });
  if (opts.dryRun || returned === undefined) {
    const predicted = applySettings(before ?? ({} as Queue), settings);
    const changes = settingChanges(before, predicted, requested);
    if (ctx.format() !== 'json') await printChanges(ctx, changes, `Would change, for ${queueName(target)}:`);
    finishDryRun(ctx, { ...identity(target), settings, changes });
    return 0;
  }
  const changes = settingChanges(before, returned, requested);
  const changed = changes.filter((c) => c.changed).length;
  ctx.io.err(`${ctx.styleErr.green('✓')} updated the queue for ${queueName(target)}: ${changed} setting${changed === 1 ? '' : 's'} changed\n`);
  if (ctx.format() === 'json') ctx.io.out(json({ ...identity(target), settings, changes, queue: returned }));
  else await printChanges(ctx, changes, `Changed, for ${queueName(target)}:`);
  bannerToStderr(ctx, returned.state);
  return 0;
}

export function queueUpdateCommand(ctx: Context): Command {
  const cmd = new Command('update')
    .summary('change queue settings')
    .description(
      [
        'Change settings of the merge queue of the target branch. Only the flags given are sent; at least one is required. The queue is read first, and afterwards every setting that changed is printed as before -> after (requested settings the service left as they were are marked unchanged).',
        '',
        `Numbers are integers from 1 to ${MAX_U32}. --required-status replaces the list of statuses that must pass in queue testing and overrides branch protection and the repository config; --clear-required-statuses removes that override. Piped, each line is: setting, before, after, changed|unchanged.`,
      ].join('\n'),
    );
  for (const f of INT_FLAGS) {
    cmd.option(`--${f.flag} <${'unit' in f ? f.unit : 'n'}>`, f.help, (v: string) => parseIntIn(v, `--${f.flag}`, 1, MAX_U32));
  }
  for (const f of ENUM_FLAGS) {
    cmd.addOption(choiceOption(`--${f.flag} <value>`, f.help, f.values));
  }
  for (const f of BOOL_FLAGS) {
    cmd.option(`--${f.flag}`, f.help);
    cmd.option(`--no-${f.flag}`, f.off);
  }
  cmd
    .option('--required-status <name>', 'a status that must pass in queue testing (repeatable; replaces the list)', collect)
    .option('--clear-required-statuses', 'remove the list set through the API; statuses come from branch protection or the repo config again')
    .option('--dry-run', 'print the request and the changes it would make, and send nothing')
    .action(async (opts: UpdateOptions) => {
      ctx.exitCode = await runQueueUpdate(ctx, opts);
    });
  return withExamples(cmd, [
    'mq queue update --concurrency 4 --batch --batching-min-size 3',
    'mq queue update --required-status ci/build --required-status ci/lint --dry-run',
    'mq queue update --no-optimistic-merge --pending-failure-depth 2 --json',
  ]);
}
