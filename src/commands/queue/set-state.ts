/**
 * pause, resume and drain are one updateQueue call with `state`; this reads the state before,
 * sends the change, and reports before -> after.
 */
import type { MergeQueueClient } from '../../api/client.js';
import type { Queue } from '../../api/schemas.js';
import type { Context, Target } from '../../context.js';
import { MqError } from '../../errors.js';
import { json, renderFields, type Field } from '../../output/render.js';
import { stateColor } from '../../output/style.js';
import { bannerToStderr, identity } from './common.js';
import { finishDryRun } from '../shared.js';

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
  client: MergeQueueClient;
  target: Target;
  queue?: Queue;
}

/** Sends the state change, or describes it under --dry-run. Prints nothing but warnings. */
export async function setQueueState(ctx: Context, action: StateAction, opts: { dryRun?: boolean; reason?: string }): Promise<SetStateResult> {
  const target = ctx.target();
  const client = await ctx.client({ dryRun: opts.dryRun });
  let before: Queue | undefined;
  try {
    before = await client.getQueue(target);
  } catch (err) {
    // A dry run can go on without the current state; a real change needs the queue to exist.
    if (!opts.dryRun) throw err;
    ctx.io.err(`${ctx.styleErr.yellow('!')} could not read the queue (${err instanceof MqError ? err.why : String(err)}); the state before is unknown\n`);
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
    at: new Date(ctx.now()).toISOString(),
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
  };
  return { change, client, target, queue: returned };
}

function changeFields(ctx: Context, c: StateChange): Field[] {
  const fields: Field[] = [
    { key: 'queue', label: 'Queue', value: `${c.targetBranch} of ${c.repo}` },
    { key: 'before', label: 'Before', value: c.before ?? 'unknown' },
    { key: 'after', label: 'After', value: c.after ?? 'unknown', styled: stateColor(ctx.style, c.after ?? 'unknown') },
  ];
  if (c.reason !== undefined) fields.push({ key: 'reason', label: 'Reason', value: c.reason });
  fields.push({ key: 'at', label: 'At', value: c.at });
  return fields;
}

/** Prints the change: a before -> after line on a terminal, key<TAB>value lines when piped. */
export function printStateChange(ctx: Context, c: StateChange, dryRun: boolean): void {
  const format = ctx.format();
  if (dryRun) {
    if (format !== 'json') ctx.io.out(`would set ${c.targetBranch} of ${c.repo}: ${c.before ?? 'unknown'} -> ${c.after}${c.reason !== undefined ? ` (reason: ${c.reason})` : ''}\n`);
    finishDryRun(ctx, { ...c });
    return;
  }
  if (format === 'json') ctx.io.out(json(c));
  else if (format === 'table') {
    const s = ctx.style;
    const same = c.changed ? '' : s.dim(` (it was already ${c.after})`);
    ctx.io.out(`${s.green('✓')} ${c.targetBranch} of ${c.repo}: ${c.before ?? 'unknown'} -> ${stateColor(s, c.after ?? 'unknown')}${same}\n`);
    if (c.reason !== undefined) ctx.io.out(`  reason: ${c.reason}\n`);
    ctx.io.out(`  at:     ${c.at}\n`);
  } else ctx.io.out(renderFields(changeFields(ctx, c), format, ctx.style, format === 'markdown' ? `Queue ${c.action}` : undefined));
  bannerToStderr(ctx, c.after);
  if (c.after === 'paused' || c.after === 'draining') ctx.io.err(`hint: resume the queue with \`mq queue resume${ctx.options.branch ? ` --branch ${c.targetBranch}` : ''}\`\n`);
}

