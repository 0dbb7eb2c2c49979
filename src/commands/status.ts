import { Command } from 'commander';
import type { Context, Deps } from '../context.js';
import type { Result } from '../output/present.js';
import { pullRequestFields } from '../views/pull-request.js';
import { act, onePr, withExamples } from './shared.js';

export interface StatusOptions {
  pr: number;
}

export async function runStatus(opts: StatusOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const record = await client.getSubmittedPullRequest({ ...target, pr: { number: opts.pr } });
  const fields = pullRequestFields(record, deps.clock.now());
  return { data: record, exitCode: 0, view: { table: [{ fields }], plain: [{ fields }], markdown: [{ fields, title: `PR #${opts.pr}` }] } };
}

export function statusCommand(ctx: Context): Command {
  const cmd = new Command('status')
    .summary("show a PR's state in the merge queue")
    .description('Show where a submitted PR is: its state and for how long, priority, whether it is in the queue, readiness, title, author, sha and base branch. A PR never submitted to this queue exits 3.')
    .argument('[pr]', 'PR number (in GitHub Actions it defaults to the PR of the workflow run)')
    .action(act(ctx, 'status', (pr: string | undefined): StatusOptions => ({ pr: onePr(ctx.env, pr) }), runStatus));
  return withExamples(cmd, ['mq status 42', 'mq status 42 --json | jq -r .state', 'mq status 42 -o markdown >> "$GITHUB_STEP_SUMMARY"']);
}
