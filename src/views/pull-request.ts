/** How a submitted pull request reads on a terminal, in a pipe and in markdown. */
import type { SubmittedPullRequest } from '../api/schemas.js';
import { plainBool, plainKeys, plainNumber, plainSecondsSince } from '../output/plain.js';
import type { Field } from '../output/render.js';
import { stateColor } from '../output/style.js';
import { formatDuration } from '../util/duration.js';

export function sinceText(iso: string | null | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : formatDuration(now - t);
}

export function priorityText(name: string | null | undefined, value: number | null | undefined): string {
  if (name && value !== null && value !== undefined) return `${name} (${value})`;
  return name ?? (value !== null && value !== undefined ? String(value) : '');
}

/** What keeps a PR out of the queue, in stable words: base_branch_mismatch, not_mergeable, impacted_targets_missing. */
export function notReadyReasons(pr: SubmittedPullRequest): string[] {
  const r = pr.readiness;
  if (!r) return [];
  const out: string[] = [];
  if (r.doesBaseBranchMatch === false) out.push('base_branch_mismatch');
  if (r.gitHubMergeability && r.gitHubMergeability !== 'mergeable') out.push('not_mergeable');
  if (r.requiresImpactedTargets && !r.hasImpactedTargets) out.push('impacted_targets_missing');
  return out;
}

/** `yes`, or what the PR still waits for before it can enter the queue. */
export function readinessText(pr: SubmittedPullRequest): string {
  const r = pr.readiness;
  if (!r) return '';
  const missing: string[] = [];
  if (r.doesBaseBranchMatch === false) missing.push('base branch differs from the queue');
  if (r.gitHubMergeability && r.gitHubMergeability !== 'mergeable')
    missing.push(`not mergeable (${r.gitHubMergeability})`);
  if (r.requiresImpactedTargets && !r.hasImpactedTargets) missing.push('impacted targets not uploaded');
  return missing.length === 0 ? 'yes' : `no: ${missing.join('; ')}`;
}

export function pullRequestFields(pr: SubmittedPullRequest, now: number): Field[] {
  const state = pr.state ?? 'unknown';
  const submitted = pr.isCurrentlySubmittedToQueue;
  const fields: Field[] = [
    { key: 'pr', label: 'PR', value: pr.prNumber !== null && pr.prNumber !== undefined ? `#${pr.prNumber}` : '' },
    { key: 'state', label: 'State', value: state, paint: stateColor },
    { key: 'in_state_for', label: 'In state for', value: sinceText(pr.stateChangedAt, now) },
    { key: 'state_changed_at', label: 'Since', value: pr.stateChangedAt ?? '' },
    { key: 'priority', label: 'Priority', value: priorityText(pr.priorityName, pr.priorityValue) },
    {
      key: 'submitted',
      label: 'In the queue',
      value: submitted === undefined || submitted === null ? '' : submitted ? 'yes' : 'no',
    },
    { key: 'ready', label: 'Ready', value: readinessText(pr) },
    { key: 'title', label: 'Title', value: pr.prTitle ?? '' },
    { key: 'author', label: 'Author', value: pr.prAuthor ?? '' },
    { key: 'sha', label: 'SHA', value: pr.prSha ?? '' },
    { key: 'base_branch', label: 'Base branch', value: pr.prBaseBranch ?? '' },
  ];
  if (pr.id) fields.push({ key: 'id', label: 'Entry id', value: pr.id });
  return fields.filter((f) => f.value !== '');
}

/** The plain `key<TAB>value` lines of a PR (`mq status 42`, `mq wait 42 -o plain` does not use them). */
export const PR_PLAIN = plainKeys('one line per field of the PR', [
  'pr',
  'state',
  'in_state_seconds',
  'state_changed_at',
  'priority',
  'priority_value',
  'submitted',
  'ready',
  'not_ready_reasons',
  'title',
  'author',
  'sha',
  'base_branch',
  'id',
  'run',
]);

/** A PR for scripts: raw values, priority name and value apart, readiness gaps comma-separated; no empty keys. */
export function pullRequestPlainFields(pr: SubmittedPullRequest, now: number): Field[] {
  const f = PR_PLAIN.field;
  const ready = pr.readiness ? notReadyReasons(pr) : undefined;
  const fields: Field[] = [
    f('pr', 'PR', plainNumber(pr.prNumber)),
    f('state', 'State', pr.state ?? 'unknown'),
    f('in_state_seconds', 'In state for', plainSecondsSince(pr.stateChangedAt, now)),
    f('state_changed_at', 'Since', pr.stateChangedAt ?? ''),
    f('priority', 'Priority', pr.priorityName ?? ''),
    f('priority_value', 'Priority value', plainNumber(pr.priorityValue)),
    f('submitted', 'In the queue', plainBool(pr.isCurrentlySubmittedToQueue)),
    f('ready', 'Ready', ready === undefined ? '' : String(ready.length === 0)),
    f('not_ready_reasons', 'Not ready because', (ready ?? []).join(',')),
    f('title', 'Title', pr.prTitle ?? ''),
    f('author', 'Author', pr.prAuthor ?? ''),
    f('sha', 'SHA', pr.prSha ?? ''),
    f('base_branch', 'Base branch', pr.prBaseBranch ?? ''),
    f('id', 'Entry id', pr.id ?? ''),
  ];
  return fields.filter((x) => x.value !== '');
}
