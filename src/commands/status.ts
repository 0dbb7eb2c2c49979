import { Command } from 'commander';
import type { Context } from '../context.js';
import { renderFields } from '../output/render.js';
import { pullRequestFields } from '../views/pull-request.js';
import { emit, onePr, withExamples } from './shared.js';

export async function runStatus(ctx: Context, prArg: string | undefined): Promise<number> {
  const pr = onePr(ctx, prArg);
  const target = ctx.target();
  const client = await ctx.client();
  const record = await client.getSubmittedPullRequest({ ...target, pr: { number: pr } });
  await emit(ctx, record, () => renderFields(pullRequestFields(record, ctx.now(), ctx.style), ctx.format(), ctx.style, ctx.format() === 'markdown' ? `PR #${pr}` : undefined));
  return 0;
}

export function statusCommand(ctx: Context): Command {
  const cmd = new Command('status')
    .summary("show a PR's state in the merge queue")
    .description('Show where a submitted PR is: its state and for how long, priority, whether it is in the queue, readiness, title, author, sha and base branch. A PR never submitted to this queue exits 3.')
    .argument('[pr]', 'PR number (in GitHub Actions it defaults to the PR of the workflow run)')
    .action(async (pr: string | undefined) => {
      ctx.exitCode = await runStatus(ctx, pr);
    });
  return withExamples(cmd, ['mq status 42', 'mq status 42 --json | jq -r .state', 'mq status 42 -o markdown >> "$GITHUB_STEP_SUMMARY"']);
}
