// The job summary: a headline, a table of the outcome (state, time, test run, place, ETA), then the PR's
// trip, failing checks and requeues. What comes from the service is escaped; links are http(s) only.
import type { Requeue } from '../commands/requeue.js';
import type { Transition } from '../lib/types.js';
import { safeMarkdown } from '../output/sanitize.js';
import type { PrPosition } from '../stats/position.js';
import { formatDuration } from '../util/duration.js';
import { placeText } from '../views/position.js';
import type { ActionInputs } from './inputs.js';
import type { ActionEta, FailingCheck, PrStory } from './story.js';

/** What a run reports: the outputs and the summary's table. */
export interface Report {
  state: string;
  exitCode: number;
  timeInQueueS: number | null;
  testRun: string;
  failing: FailingCheck[];
  /** With the requeue input: each resubmit after a flake or an infrastructure failure. */
  requeues?: Requeue[];
  /** Where a PR still in the queue stands, when the order could be read. */
  place?: PrPosition;
  /** When it should merge (the service's estimate), for a PR still in the queue. */
  eta?: ActionEta;
}

/** The summary's rows of a PR still in the queue: its place and why it waits. */
function placeRows(p: PrPosition | undefined): Array<[string, string]> {
  if (!p || p.of === null) return [];
  const prs = (ns: number[]) => ns.map((n) => `#${n}`).join(' ');
  const rows: Array<[string, string]> = [['Position', placeText(p)]];
  if (p.ahead.length > 0) rows.push(['Directly ahead', prs(p.ahead)]);
  if (p.heldBy.length > 0) rows.push(['Held by', prs(p.heldBy)]);
  if (p.waitingBecause) rows.push(['Waiting because', p.waitingBecause.words]);
  return rows;
}

function link(text: string, url: string | undefined): string {
  const label = safeMarkdown(text);
  if (!url || !/^https?:\/\//i.test(url)) return label;
  return `[${label}](${encodeURI(decodeURIComponentSafe(url)).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'))})`;
}

function decodeURIComponentSafe(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

function headline(inputs: ActionInputs, outcome: string, state: string): string {
  const pr = `PR #${inputs.pr}`;
  switch (outcome) {
    case 'merged':
      return `✅ ${pr} merged`;
    case 'failed':
      return `❌ ${pr} failed in the merge queue`;
    case 'cancelled':
      return `❌ ${pr} was cancelled in the merge queue`;
    case 'left_queue':
      return `❌ ${pr} left the merge queue without merging (state ${state})`;
    case 'timeout':
      return `⏳ ${pr} still ${state || 'unknown'} at the timeout`;
    case 'submitted':
      return `➡️ ${pr} submitted (state ${state || 'unknown'})`;
    case 'targets uploaded': {
      const run = inputs.forkedWorkflowRunId;
      return `⬆️ impacted targets of ${pr} uploaded as fork run ${run}; not submitted (no token)`;
    }
    default:
      return `❌ ${pr}: ${outcome}`;
  }
}

export function summaryOf(
  inputs: ActionInputs,
  outcome: string,
  r: Report,
  transitions: Transition[],
  detail?: string,
  story?: PrStory,
): string {
  const rows: Array<[string, string]> = [
    ['Repository', `${inputs.repo.host}/${inputs.repo.owner}/${inputs.repo.name}`],
    ['Target branch', inputs.branch],
    ['State', r.state || '—'],
    ['Exit code', String(r.exitCode)],
  ];
  if (r.timeInQueueS !== null) rows.push(['Time in queue', formatDuration(r.timeInQueueS * 1000)]);
  if (r.testRun) rows.push(['Test run', r.testRun]);
  rows.push(...placeRows(r.place));
  if (r.eta) rows.push(['Estimated merge', `${r.eta.p50}${r.eta.p90 ? ` – ${r.eta.p90}` : ''} (${r.eta.source})`]);
  const out = [`### ${safeMarkdown(headline(inputs, outcome, r.state))}`, ''];
  if (detail) out.push(safeMarkdown(detail, true), '');
  out.push('| | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${safeMarkdown(v)} |`), '');
  if (story && story.steps.length > 0) {
    out.push("#### The PR's trip through the queue", '', '| At | State | What happened |', '| --- | --- | --- |');
    for (const st of story.steps)
      out.push(`| ${safeMarkdown(st.at)} | ${safeMarkdown(st.state)} | ${safeMarkdown(st.text)} |`);
    out.push('');
  } else if (transitions.length > 0) {
    out.push('#### Transitions', '', '| At | From | To | After |', '| --- | --- | --- | --- |');
    for (const t of transitions) {
      out.push(
        `| ${safeMarkdown(t.at)} | ${safeMarkdown(t.from ?? '—')} | ${safeMarkdown(t.to)} ` +
          `| ${t.afterMs === null ? '' : formatDuration(t.afterMs)} |`,
      );
    }
    out.push('');
  }
  if (r.failing.length > 0) {
    out.push('#### Failing checks', '');
    for (const c of r.failing) out.push(`- ${link(c.name, c.url)}: ${safeMarkdown(c.conclusion)}`);
    out.push('');
  }
  if (story?.note) out.push(safeMarkdown(story.note, true), '');
  if (r.requeues && r.requeues.length > 0) {
    out.push('#### Requeues', '', '| # | Failed run | Kind | Why |', '| --- | --- | --- | --- |');
    for (const q of r.requeues)
      out.push(`| ${q.attempt} | ${safeMarkdown(q.runId ?? '—')} | ${q.kind} | ${safeMarkdown(q.reason)} |`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
