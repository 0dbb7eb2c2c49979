import { Command } from 'commander';
import type { Context } from '../context.js';
import { ExitCode, mostSevere } from '../errors.js';
import { renderFields, renderRows, type Row } from '../output/render.js';
import { stateColor } from '../output/style.js';
import { fetchBatch, fetchStory } from '../stats/fetch.js';
import { batchRow, storyJson } from '../stats/status-rows.js';
import { pullRequestFields } from '../views/pull-request.js';
import { storyLines } from '../views/story.js';
import { emit, onePr, prArguments, withExamples } from './shared.js';

/** One PR: its record, then its story (trips newest first) and, for a failed PR, the failing checks. */
export async function runStatus(ctx: Context, prArg: string | undefined): Promise<number> {
  const pr = onePr(ctx, prArg);
  const target = ctx.target();
  const client = await ctx.client();
  const { record, story, checksNote } = await fetchStory(client, target, pr);
  const format = ctx.format();
  await emit(ctx, { ...record, ...storyJson(story) }, () => {
    const fields = pullRequestFields(record, ctx.now(), ctx.style);
    if (story.runId) fields.push({ key: 'run', label: story.state === 'failed' ? 'Failing run' : 'Run', value: story.runId });
    const head = renderFields(fields, format, ctx.style, format === 'markdown' ? `PR #${pr}` : undefined);
    if (story.trips.length === 0 && story.failingChecks.length === 0) return head;
    const lines = storyLines(story, format === 'markdown' ? 'markdown' : format === 'table' ? 'table' : 'plain', ctx.style);
    return `${head}\n${lines.slice(1).join('\n')}\n`;
  });
  if (checksNote) ctx.io.err(`mq: note: ${checksNote}\n`);
  return 0;
}

/** Several PRs (or `-`): one batch request per 50, one row each; never-submitted PRs are not found (exit 3). */
export async function runStatusMany(ctx: Context, args: string[]): Promise<number> {
  const numbers = await prArguments(ctx, args);
  const target = ctx.target();
  const client = await ctx.client();
  const [{ pullRequests, notFound }, queue] = await Promise.all([fetchBatch(client, target, numbers, true), client.getQueue(target).catch(() => null)]);
  const order = (queue?.enqueuedPullRequests ?? []).map((e) => e.prNumber);
  const byNumber = new Map(pullRequests.map((r) => [r.prNumber, r]));
  const missing = new Set(notFound);
  const now = ctx.now();
  const rows = [...new Set(numbers)].map((n) => batchRow(n, byNumber.get(n), missing.has(n) || !byNumber.has(n), order, now));
  const format = ctx.format();
  const human = format === 'table' || format === 'markdown';
  const style = ctx.style;
  await emit(ctx, { pullRequests: rows.filter((r) => r.found).map((r) => r.json), notFound: rows.filter((r) => !r.found).map((r) => r.pr) }, () => {
    const table: Row[] = rows.map((r) => [
      human ? `#${r.pr}` : String(r.pr),
      { value: r.state, styled: stateColor(style, r.state) },
      human ? r.forText : r.since,
      r.position === null ? '' : String(r.position),
      r.reason,
    ]);
    return renderRows(['PR', 'State', 'For', 'Position', 'Reason'], table, format, style);
  });
  return mostSevere(rows.map((r) => (r.found ? ExitCode.ok : ExitCode.notFound)));
}

export function statusCommand(ctx: Context): Command {
  const cmd = new Command('status')
    .summary("show a PR's state and story in the merge queue")
    .description(
      "Show where a submitted PR is: its state and for how long, priority, readiness, title, author, sha and base branch, then its story: every trip through the queue (newest first) with each transition's time, state and reason in plain words, and the run that merged or failed it. For a failed PR the failing checks of that run are listed with their URLs. With several PRs (or `-` for numbers on stdin), one row per PR (state, for how long, position, reason), read 50 PRs per request. A PR never submitted to this queue exits 3.",
    )
    .argument('[prs...]', 'PR numbers, or - to read them from stdin (in GitHub Actions it defaults to the PR of the workflow run)')
    .action(async (prs: string[]) => {
      ctx.exitCode = prs.length > 1 || prs.includes('-') ? await runStatusMany(ctx, prs) : await runStatus(ctx, prs[0]);
    });
  return withExamples(cmd, [
    'mq status 42',
    'mq status 42 --json | jq -r .state',
    'mq status 42 --json | jq -r ".failingChecks[].url"',
    'mq status 41 42 43',
    'gh pr list --json number -q ".[].number" | mq status -',
    'mq status 42 -o markdown >> "$GITHUB_STEP_SUMMARY"',
  ]);
}
