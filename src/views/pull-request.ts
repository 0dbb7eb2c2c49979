/** How a submitted pull request reads on a terminal, in a pipe and in markdown. */
import type { SubmittedPullRequest } from '../api/schemas.js';
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

/** `yes`, or what the PR still waits for before it can enter the queue. */
export function readinessText(pr: SubmittedPullRequest): string {
  const r = pr.readiness;
  if (!r) return '';
  const missing: string[] = [];
  if (r.doesBaseBranchMatch === false) missing.push('base branch differs from the queue');
  if (r.gitHubMergeability && r.gitHubMergeability !== 'mergeable') missing.push(`not mergeable (${r.gitHubMergeability})`);
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
