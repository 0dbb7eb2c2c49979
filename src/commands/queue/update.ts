import { Command, Option } from 'commander';
import { MAX_U32 } from '../../domain/vocabulary.js';
import {
  flagAttr,
  SETTING_MAX,
  SETTING_MIN,
  updateFlagSettings,
  type QueueSettingInfo,
} from '../../domain/queue-settings.js';
import type { Queue, UpdateQueueSettings } from '../../api/schemas.js';
import { parseIntIn } from '../../cli/args.js';
import type { Context, Deps } from '../../context.js';
import { MqError, UsageError } from '../../errors.js';
import type { Result, View } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import {
  CHANGE_PLAIN,
  changeLines,
  changePlainRows,
  changeRows,
  settingChanges,
  type SettingChange,
} from '../../views/queue.js';
import { act, collect, withExamples, withPlainHelp } from '../shared.js';
import { bannerToStderr, choiceOption, identity, queueName } from './common.js';

type Settings = Record<string, unknown>;

/** A setting's commander option: `--n <n>` (1..MAX_U32), a choice, or `--x`/`--no-x`. */
export function settingOption(s: QueueSettingInfo, help = s.help ?? '', placeholder = 'value'): Option[] {
  const flag = `--${s.flag}`;
  if (s.kind === 'int' || s.kind === 'minutes') {
    return [
      new Option(`${flag} <${s.unit ?? 'n'}>`, help).argParser((v: string) =>
        parseIntIn(v, flag, SETTING_MIN, SETTING_MAX),
      ),
    ];
  }
  if (s.kind === 'enum') return [choiceOption(`${flag} <${placeholder}>`, help, s.values ?? [])];
  if (s.kind === 'bool') return [new Option(flag, help), new Option(`--no-${s.flag}`, s.off ?? '')];
  return [];
}

const FLAG_SETTINGS = updateFlagSettings();

export const UPDATE_FLAGS = [
  ...FLAG_SETTINGS.map((s) => (s.kind === 'bool' ? `--[no-]${s.flag}` : `--${s.flag}`)),
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
  for (const f of FLAG_SETTINGS) {
    const v = opts[flagAttr(f.flag as string)];
    if (v !== undefined) s[f.field] = v;
  }
  if (opts.requiredStatus !== undefined && opts.clearRequiredStatuses) {
    throw new UsageError(
      '--required-status and --clear-required-statuses cannot be used together: one sets the list, the ' +
        'other removes it',
      {
        hints: ['to replace the list, pass only --required-status (once per status)'],
      },
    );
  }
  if (opts.requiredStatus !== undefined) {
    if (opts.requiredStatus.some((r) => r.trim() === ''))
      throw new UsageError('--required-status: a status name cannot be empty');
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

function changesView(changes: SettingChange[], heading: string): View {
  return {
    plain: [{ headers: [], rows: changePlainRows(changes) }],
    markdown: [{ lines: [heading, ''] }, { headers: ['Setting', 'Before', 'After', ''], rows: changeRows(changes) }],
    table: [{ lines: [own(paints.bold, heading), ...changeLines(changes)] }],
  };
}

/** What the service did beyond the values: a mode switch still under way, a setting changed unasked. */
export function explainChanges(changes: SettingChange[], settings: UpdateQueueSettings, after: Queue): SettingChange[] {
  const wanted = (settings as { mode?: string }).mode;
  return changes.map((c) => {
    if (c.field === 'mode' && wanted !== undefined && after.state === 'switching_modes' && after.mode !== wanted) {
      return {
        ...c,
        to: wanted,
        changed: true,
        note: `switching_modes: the queue switches once the PRs in flight are done`,
      };
    }
    if (c.changed && !c.requested && c.field !== 'state')
      return { ...c, note: 'changed by the service, not asked for' };
    return c;
  });
}

export interface UpdateQueueOptions {
  settings: UpdateQueueSettings;
  dryRun?: boolean;
}

export async function runQueueUpdate(opts: UpdateQueueOptions, deps: Deps): Promise<Result> {
  const { settings } = opts;
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun });
  const requested = requestedFields(settings);

  let before: Queue | undefined;
  if (opts.dryRun) {
    // The read only describes the change; a dry run goes on without it (it may have no token).
    try {
      before = await client.getQueue(target);
    } catch (err) {
      deps.out.note([
        own(paints.yellow, '!'),
        ' could not read the queue to compare (',
        v(err instanceof MqError ? err.why : String(err)),
        '); showing only the requested values',
      ]);
    }
  } else {
    before = await client.getQueue(target);
  }

  const returned = await client.updateQueue({ ...target, ...settings });
  if (opts.dryRun || returned === undefined) {
    const predicted = applySettings(before ?? ({} as Queue), settings);
    const changes = settingChanges(before, predicted, requested);
    return {
      exitCode: 0,
      dryRun: {
        requests: deps.dryRuns,
        doc: { ...identity(target), settings, changes },
        view: changesView(changes, `Would change, for ${queueName(target)}:`),
      },
    };
  }
  const changes = explainChanges(settingChanges(before, returned, requested), settings, returned);
  const changed = changes.filter((c) => c.changed).length;
  const count = changed === 0 ? 'nothing changed' : `${changed} setting${changed === 1 ? '' : 's'} changed`;
  deps.out.note([own(paints.green, '✓'), ' updated the queue for ', v(queueName(target)), `: ${count}`]);
  const unasked = changes.filter((c) => c.changed && !c.requested && c.field !== 'state');
  if (unasked.length > 0) {
    deps.out.note([
      own(paints.yellow, 'note:'),
      ' the service also changed ',
      v(unasked.map((c) => `${c.key} (${c.from} -> ${c.to})`).join(', ')),
      ', which you did not ask for',
    ]);
  }
  bannerToStderr(deps, returned.state);
  const heading = changed === 0 ? `Nothing changed, for ${queueName(target)}:` : `Changed, for ${queueName(target)}:`;
  return {
    data: { ...identity(target), settings, changes, queue: returned },
    view: changesView(changes, heading),
    exitCode: 0,
  };
}

export function queueUpdateCommand(ctx: Context): Command {
  const cmd = new Command('update')
    .summary('change queue settings')
    .description(
      [
        'Change settings of the merge queue of the target branch. Only the flags given are sent; at least ' +
          'one is required. The queue is read first, and afterwards every setting that changed is printed as ' +
          'before -> after (requested settings the service left as they were are marked unchanged).',
        '',
        `Numbers are integers from 1 to ${MAX_U32}. --required-status replaces the list of statuses that ` +
          `must pass in queue testing and overrides branch protection and the repository config; ` +
          `--clear-required-statuses removes that override.`,
      ].join('\n'),
    );
  for (const s of FLAG_SETTINGS) for (const o of settingOption(s)) cmd.addOption(o);
  cmd
    .option(
      '--required-status <name>',
      'a status that must pass in queue testing (repeatable; replaces the list)',
      collect,
    )
    .option(
      '--clear-required-statuses',
      'remove the list set through the API; statuses come from branch protection or the repo config again',
    )
    .option('--dry-run', 'print the request and the changes it would make, and send nothing')
    .action(
      act(
        ctx,
        'queue update',
        (f: UpdateOptions): UpdateQueueOptions => ({ settings: settingsFromFlags(f), dryRun: f.dryRun }),
        runQueueUpdate,
      ),
    );
  withPlainHelp(cmd, [CHANGE_PLAIN]);
  return withExamples(cmd, [
    'mq queue update --concurrency 4 --batch --batching-min-size 3',
    'mq queue update --required-status ci/build --required-status ci/lint --dry-run',
    'mq queue update --no-optimistic-merge --pending-failure-depth 2 --json',
  ]);
}
