// How a queue reads: a banner when not running, a settings summary, key/value settings, the PRs in
// order, and the before -> after lines of a change.
import { QUEUE_SETTINGS, type SettingKind } from '../domain/queue-settings.js';
import type { Queue, QueueEntry } from '../api/schemas.js';
import { plainBool, plainColumns, plainKeys, plainNumber, plainSecondsSince } from '../output/plain.js';
import { own, paints, type Cell, type Field, type Line, type Row } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { TableFit } from '../output/width.js';
import { formatDuration } from '../util/duration.js';
import { priorityText } from './pull-request.js';

/** What a queue that is not running does, in the words an on-call engineer needs. */
const BANNERS: Record<string, string> = {
  paused: 'QUEUE PAUSED — no PRs are tested or merged until it is resumed (order is kept)',
  draining: 'QUEUE DRAINING — PRs already in the queue are tested and merged; no new PRs enter',
  switching_modes: 'QUEUE SWITCHING MODES — no new PRs enter until the PRs in flight have merged',
};

/** A one-line warning for a paused, draining or switching queue; undefined for a running one. */
export function queueBanner(state: string | null | undefined): Line | undefined {
  const text = state ? BANNERS[state] : undefined;
  return text ? own(paints.banner, ` ⚠ ${text} `) : undefined;
}

/** Continuations of a banner wrapped on a terminal start under its words, after ` ⚠ `. */
export const BANNER_WRAP = 3;

export function bannerText(state: string | null | undefined): string | undefined {
  return state ? BANNERS[state] : undefined;
}

export const onOff = (v: boolean | null | undefined): string => (v === true ? 'on' : v === false ? 'off' : '—');
const val = (v: unknown): string => (v === null || v === undefined ? '—' : String(v));
const minutes = (v: number | null | undefined): string => (typeof v === 'number' ? formatDuration(v * 60_000) : '—');

export function requiredStatusesText(statuses: readonly string[] | null | undefined): string {
  if (statuses === null || statuses === undefined) return 'not set (branch protection or repo config decides)';
  return statuses.length === 0 ? 'none' : statuses.join(', ');
}

/** PRs in states that still need the queue: pending, testing, passed and waiting to merge, pending failure. */
export const ACTIVE_STATES = ['testing', 'pending', 'tests_passed', 'pending_failure'] as const;

const STATE_WORDS: Record<string, string> = {
  testing: 'testing',
  pending: 'pending',
  tests_passed: 'waiting to merge',
  pending_failure: 'pending failure',
  not_ready: 'not ready',
};

export function stateCounts(entries: readonly QueueEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.state ?? 'unknown', (counts.get(e.state ?? 'unknown') ?? 0) + 1);
  return counts;
}

/** `6 PRs: 2 testing, 1 waiting to merge, 3 pending` */
export function countsText(entries: readonly QueueEntry[]): string {
  if (entries.length === 0) return 'none';
  const counts = stateCounts(entries);
  const order = [...ACTIVE_STATES, 'not_ready'];
  const keys = [...counts.keys()].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  const parts = keys.map((k) => `${counts.get(k)} ${STATE_WORDS[k] ?? k}`);
  return `${entries.length} PR${entries.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** A compact header for a terminal or a step summary: the settings that decide what the queue does. */
export function queueSummaryFields(q: Queue, where: string): Field[] {
  const state = q.state ?? 'unknown';
  const batching = q.batch
    ? `on: at least ${val(q.batchingMinSize)} PRs, waits up to ${minutes(q.batchingMaxWaitTimeMinutes)} · ` +
      `bisection concurrency ${val(q.bisectionConcurrency)}`
    : onOff(q.batch);
  const entries = q.enqueuedPullRequests ?? [];
  return [
    { key: 'queue', label: 'Queue', value: `${q.branch ?? '—'} · ${where}` },
    { key: 'state', label: 'State', value: state, paint: stateColor },
    {
      key: 'mode',
      label: 'Mode',
      value: `${val(q.mode)} · concurrency ${val(q.concurrency)} · merge method ${val(q.mergeMethod)}`,
    },
    { key: 'batching', label: 'Batching', value: batching },
    {
      key: 'testing',
      label: 'Testing',
      value:
        `timeout ${minutes(q.testingTimeoutMinutes)} · optimistic merge ${onOff(q.canOptimisticallyMerge)} · ` +
        `pending failure depth ${val(q.pendingFailureDepth)}`,
    },
    {
      key: 'shortcuts',
      label: 'Shortcuts',
      value: `direct merge ${val(q.directMergeMode)} · optimization ${val(q.optimizationMode)}`,
    },
    { key: 'required_statuses', label: 'Required', value: requiredStatusesText(q.requiredStatuses) },
    {
      key: 'on_prs',
      label: 'On PRs',
      value:
        `comments ${onOff(q.commentsEnabled)} · commands ${onOff(q.commandsEnabled)} · status ` +
        `check ${onOff(q.statusCheckEnabled)} · testing-branch PRs ${onOff(q.createPrsForTestingBranches)}`,
    },
    { key: 'prs', label: 'PRs', value: countsText(entries) },
  ];
}

/** `mq queue show --settings` and `mq queue create` piped: the keys are those of queueSettingFields. */
export const QUEUE_SETTINGS_PLAIN = plainKeys('one line per setting', [
  'branch',
  ...QUEUE_SETTINGS.map((s) => s.key),
  'enqueued',
]);

/** Every setting under a stable key with a raw value (minutes, true/false, comma lists) for `awk -F'\t'`. */
export function queueSettingFields(q: Queue): Field[] {
  const raw = (v: unknown): string => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));
  const branch: Field = { key: 'branch', label: 'Branch', value: raw(q.branch) };
  return [branch, ...QUEUE_SETTINGS.map((s) => ({ key: s.key, label: s.label, value: raw(q[s.field]) }))].concat([
    { key: 'enqueued', label: 'Enqueued PRs', value: String((q.enqueuedPullRequests ?? []).length) },
  ]);
}

export const PR_HEADERS = ['#', 'PR', 'State', 'In state', 'Priority', 'Author', 'Title'];
/** On a narrow terminal the title is cut, then priority, author and position go. */
export const PR_FIT: TableFit = { truncate: ['Title'], drop: ['Priority', 'Author', '#'] };

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function secondsSince(iso: string | null | undefined, now: number): number | undefined {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000));
}

/** The enqueued PRs piped (`mq queue show`), in queue order. */
export const QUEUE_PR_PLAIN = plainColumns('one line per PR in queue order', [
  'position',
  'pr',
  'state',
  'in_state_seconds',
  'priority',
  'priority_value',
  'skip_the_line',
  'no_batch',
  'author',
  'title',
  'waiting_for',
]);

/** The PRs in queue order; terminal times read `4m 10s`, piped values are raw so columns sort. */
export function queueRows(entries: readonly QueueEntry[], now: number, human: boolean): Row[] {
  return entries.map((e, i): Row => {
    const state = e.state ?? 'unknown';
    const seconds = secondsSince(e.stateChangedAt, now);
    const stateCell: Cell = { value: state, paint: stateColor };
    const title = e.prTitle ?? '';
    if (!human) {
      return QUEUE_PR_PLAIN.row({
        position: String(i + 1),
        pr: plainNumber(e.prNumber),
        state,
        in_state_seconds: plainSecondsSince(e.stateChangedAt, now),
        priority: e.priorityName ?? '',
        priority_value: plainNumber(e.priorityValue),
        skip_the_line: plainBool(e.skipTheLine),
        no_batch: plainBool(e.noBatch),
        author: e.prAuthor ?? '',
        title,
        waiting_for: '',
      });
    }
    const marks = [e.skipTheLine ? 'skip the line' : '', e.noBatch ? 'no batch' : ''].filter(Boolean);
    const priority = [priorityText(e.priorityName, e.priorityValue), ...marks].filter(Boolean).join(', ');
    return [
      String(i + 1),
      e.prNumber === null || e.prNumber === undefined ? '—' : `#${e.prNumber}`,
      stateCell,
      seconds === undefined ? '' : formatDuration(seconds * 1000),
      priority,
      e.prAuthor ?? '',
      truncate(title, 72),
    ];
  });
}

/** What the service reports about a not-ready PR (getSubmittedPullRequest's `readiness`). */
export interface ReadinessLike {
  hasImpactedTargets?: boolean | null;
  requiresImpactedTargets?: boolean | null;
  doesBaseBranchMatch?: boolean | null;
  gitHubMergeability?: string | null;
}

/** Why a submitted PR is not in the queue yet: what its readiness lacks, else the queue's state. */
export function notReadyReasons(
  r: ReadinessLike | null | undefined,
  pr: { prBaseBranch?: string | null },
  queue: Pick<Queue, 'state' | 'branch'>,
): string[] {
  const why: string[] = [];
  if (r?.doesBaseBranchMatch === false) {
    why.push(
      pr.prBaseBranch && queue.branch
        ? `base branch mismatch (${pr.prBaseBranch}, not ${queue.branch})`
        : 'base branch mismatch',
    );
  }
  const m = r?.gitHubMergeability;
  if (m === 'not_mergeable') why.push('not mergeable (failing checks, missing reviews or conflicts)');
  else if (m === 'in_progress' || m === 'unspecified') why.push('checks pending');
  if (r?.requiresImpactedTargets && !r.hasImpactedTargets) why.push('impacted targets missing');
  if (why.length === 0 && queue.state && queue.state !== 'running')
    why.push(`queue is ${queue.state.replace(/_/g, ' ')}: no PRs enter`);
  if (why.length === 0) why.push(r ? 'ready: about to enter the queue' : 'unknown');
  return why;
}

export const NOT_READY_HEADERS = ['PR', 'Waiting', 'Why', 'Author', 'Title'];

export interface SettingChange {
  field: string;
  key: string;
  label: string;
  before: unknown;
  after: unknown;
  from: string;
  to: string;
  /** The user asked for this setting (it may still be unchanged). */
  requested: boolean;
  changed: boolean;
  /** Said after the line: a mode in transition, a setting the service changed unasked. */
  note?: string;
}

function display(kind: SettingKind, v: unknown): string {
  if (kind === 'list') return Array.isArray(v) ? (v.length === 0 ? 'none' : v.join(', ')) : 'not set';
  if (v === null || v === undefined) return '—';
  if (kind === 'bool') return v ? 'on' : 'off';
  return String(v);
}

function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return (a ?? null) === (b ?? null);
}

/** Settings that differ, plus requested ones even if unchanged; `before` may be unknown. */
export function settingChanges(
  before: Queue | undefined,
  after: Queue,
  requested: ReadonlySet<string>,
): SettingChange[] {
  const out: SettingChange[] = [];
  for (const s of QUEUE_SETTINGS) {
    const b = before?.[s.field];
    const a = after[s.field];
    const changed = before === undefined ? true : !same(b, a);
    const isRequested = requested.has(s.field);
    if (!changed && !isRequested) continue;
    if (before === undefined && !isRequested) continue;
    out.push({
      field: s.field,
      key: s.key,
      label: s.label,
      before: b ?? null,
      after: a ?? null,
      from: before === undefined ? '?' : display(s.kind, b),
      to: display(s.kind, a),
      requested: isRequested,
      changed,
    });
  }
  return out;
}

/** `before -> after` lines; unchanged requested settings say so. */
export function changeLines(changes: readonly SettingChange[]): Line[] {
  if (changes.length === 0) return [own(paints.dim, 'no setting changed')];
  const width = Math.max(...changes.map((c) => c.key.length));
  return changes.map((c): Line => {
    const name = c.key.padEnd(width);
    if (!c.changed) return [`  ${name}  `, { text: c.to }, ' ', own(paints.dim, '(unchanged)')];
    const note: Line = c.note ? [' ', own(paints.dim, `(${c.note})`)] : [];
    return [`  ${name}  `, { text: c.from, paint: paints.red }, ' -> ', { text: c.to, paint: paints.green }, ...note];
  });
}

/** Tab-separated `key before after changed` rows for people (markdown). */
export function changeRows(changes: readonly SettingChange[]): Row[] {
  return changes.map((c) => [c.key, c.from, c.to, c.changed ? 'changed' : 'unchanged']);
}

/** `mq queue update` piped: one line per setting changed or asked for, raw values as in `queue show --settings`. */
export const CHANGE_PLAIN = plainColumns('one line per setting changed or asked for', [
  'setting',
  'before',
  'after',
  'changed',
]);

const rawSetting = (v: unknown): string =>
  v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v);

/** Raw before/after values (minutes as numbers, true/false, lists comma-separated); before is '' when unknown. */
export function changePlainRows(changes: readonly SettingChange[]): Row[] {
  return changes.map((c) =>
    CHANGE_PLAIN.row({
      setting: c.key,
      before: c.from === '?' ? '' : rawSetting(c.before),
      after: rawSetting(c.after),
      changed: String(c.changed),
    }),
  );
}
