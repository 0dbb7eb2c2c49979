// pause, resume and drain: read the state, send updateQueue with `state`, report before -> after.
import type { MergeQueueService } from '../../api/service.js';
import type { Queue } from '../../api/schemas.js';
import type { Deps, Target } from '../../context.js';
import { MqError } from '../../errors.js';
import type { Result, View } from '../../output/present.js';
import { plainKeys } from '../../output/plain.js';
import { own, paints, v, type Field } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import { bannerToStderr, identity } from './common.js';

export const ACTION_STATE = { pause: 'paused', resume: 'running', drain: 'draining' } as const;
export type StateAction = keyof typeof ACTION_STATE;

export interface StateChange {
  repo: string;
  targetBranch: string;
  action: StateAction;
  before: string | null;
  after: string | null;
  changed: boolean;
  at: string;
  /** Only printed back: the API has no field for it. */
  reason?: string;
}

export interface SetStateResult {
  change: StateChange;
  client: MergeQueueService;
  target: Target;
  queue?: Queue;
}

/** Sends the state change, or describes it under --dry-run. Prints nothing but warnings. */
export async function setQueueState(
  deps: Deps,
  action: StateAction,
  opts: { dryRun?: boolean; reason?: string; waiting?: boolean; deadline?: number },
): Promise<SetStateResult> {
  const target = deps.target();
  const client = await deps.client({ dryRun: opts.dryRun, waiting: opts.waiting, deadline: opts.deadline });
  let before: { state?: string | null } | undefined;
  try {
    // The state alone: on v2 the queue's order and PRs would cost two more reads.
    before = { state: await client.getQueueState(target) };
  } catch (err) {
    // A dry run can go on without the current state; a real change needs the queue to exist.
    if (!opts.dryRun) throw err;
    deps.out.note([
      own(paints.yellow, '!'),
      ' could not read the queue (',
      v(err instanceof MqError ? err.why : String(err)),
      '); the state before is unknown',
    ]);
  }
  const wanted = ACTION_STATE[action];
  const returned = await client.updateQueue({ ...target, state: wanted });
  const beforeState = before?.state ?? null;
  const afterState = returned ? (returned.state ?? null) : wanted;
  const change: StateChange = {
    ...identity(target),
    action,
    before: beforeState,
    after: afterState,
    changed: beforeState !== afterState,
    // The service's time (its Date header), as the other commands print it.
    at: new Date(client.serviceNow(() => deps.clock.now())).toISOString(),
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
  };
  return { change, client, target, queue: returned };
}

function changeFields(c: StateChange): Field[] {
  const fields: Field[] = [
    { key: 'queue', label: 'Queue', value: `${c.targetBranch} of ${c.repo}` },
    { key: 'before', label: 'Before', value: c.before ?? 'unknown' },
    { key: 'after', label: 'After', value: c.after ?? 'unknown', paint: stateColor },
  ];
  if (c.reason !== undefined) fields.push({ key: 'reason', label: 'Reason', value: c.reason });
  fields.push({ key: 'at', label: 'At', value: c.at });
  return fields;
}

/** `mq queue pause|resume|drain` piped. */
export const STATE_CHANGE_PLAIN = plainKeys('one line per field of the change', [
  'repo',
  'branch',
  'action',
  'before',
  'after',
  'changed',
  'reason',
  'at',
]);

function changePlainFields(c: StateChange): Field[] {
  const f = STATE_CHANGE_PLAIN.field;
  const fields = [
    f('repo', 'Repository', c.repo),
    f('branch', 'Branch', c.targetBranch),
    f('action', 'Action', c.action),
    f('before', 'Before', c.before ?? ''),
    f('after', 'After', c.after ?? ''),
    f('changed', 'Changed', String(c.changed)),
  ];
  if (c.reason !== undefined) fields.push(f('reason', 'Reason', c.reason));
  fields.push(f('at', 'At', c.at));
  return fields;
}

/** The change: a before -> after line on a terminal, key<TAB>value lines when piped. */
export function stateChangeView(c: StateChange): View {
  const fields = changeFields(c);
  const after = c.after ?? 'unknown';
  return {
    table: [
      {
        lines: [
          [
            own(paints.green, '✓'),
            ' ',
            v(`${c.targetBranch} of ${c.repo}`),
            ': ',
            v(c.before ?? 'unknown'),
            ' -> ',
            v(after, stateColor),
            ...(c.changed ? [] : [own(paints.dim, ` (it was already ${c.after})`)]),
          ],
          ...(c.reason !== undefined ? [['  reason: ', v(c.reason)]] : []),
          `  at:     ${c.at}`,
        ],
      },
    ],
    plain: [{ fields: changePlainFields(c) }],
    markdown: [{ fields, title: `Queue ${c.action}` }],
  };
}

/** The result of pause/resume/drain (without --wait); warnings and the resume hint go to stderr. */
export function stateChangeResult(deps: Deps, c: StateChange, dryRun: boolean): Result {
  if (dryRun) {
    return {
      exitCode: 0,
      dryRun: {
        requests: deps.dryRuns,
        doc: { ...c },
        view: [
          {
            lines: [
              [
                `would set `,
                v(`${c.targetBranch} of ${c.repo}`),
                ': ',
                v(c.before ?? 'unknown'),
                ' -> ',
                v(String(c.after)),
                ...(c.reason !== undefined ? [' (reason: ', v(c.reason), ')'] : []),
              ],
            ],
          },
        ],
      },
    };
  }
  stateChangeNotes(deps, c);
  return { data: c, view: stateChangeView(c), exitCode: 0 };
}

export function stateChangeNotes(deps: Deps, c: StateChange): void {
  bannerToStderr(deps, c.after);
  if (c.after === 'paused' || c.after === 'draining')
    deps.out.note([
      'hint: resume the queue with `mq queue resume',
      ...(deps.options.branch ? [' --branch ', v(c.targetBranch)] : []),
      '`',
    ]);
}
