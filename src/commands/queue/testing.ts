import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { renderFields, renderRows } from '../../output/render.js';
import { checkRows, checks, testedPrRows, testingFields } from '../../views/testing-details.js';
import { emit, withExamples } from '../shared.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const RUN_ID = new RegExp(`^${UUID}(-bisection)?$`);
const TEST_BRANCH = new RegExp(`^(?:refs/heads/)?trunk-merge/pr-(\\d+)/(${UUID}(?:-bisection)?)$`);

/** The test run id from a bare id or a `trunk-merge/pr-<N>/<uuid>` test branch (the uuid is the id). */
export function parseTestRun(text: string): { testRunId: string; pr?: number } {
  const t = text.trim();
  if (RUN_ID.test(t)) return { testRunId: t };
  const m = TEST_BRANCH.exec(t);
  if (m) return { testRunId: m[2] as string, pr: Number(m[1]) };
  throw new UsageError(`test run: ${JSON.stringify(text)} is neither a test run id (a UUID) nor a test branch trunk-merge/pr-<N>/<uuid>`, {
    hints: ['in CI on the test branch: mq queue testing "$GITHUB_REF_NAME"'],
  });
}

export async function runQueueTesting(ctx: Context, arg: string): Promise<number> {
  const { testRunId } = parseTestRun(arg);
  const target = ctx.target();
  const client = await ctx.client();
  const details = await client.getMergeQueueTestingDetails({ ...target, testRunId });
  const format = ctx.format();
  const style = ctx.style;
  const list = checks(details);
  await emit(ctx, details, async () => {
    const fields = testingFields(details, ctx.now(), style);
    const prs = testedPrRows(details);
    const checkList = checkRows(list, style);
    if (format === 'plain' || format === 'raw') {
      // One record per line, first column the kind, so `awk -F'\t' '$1 == "check"'` picks the checks.
      const prLines = await renderRows([], prs.map((r) => ['pr', ...r]), 'plain', style);
      const checkLines = await renderRows([], checkList.map((r) => ['check', ...r]), 'plain', style);
      return renderFields(fields, 'plain', style) + prLines + checkLines;
    }
    const title = `Test run ${testRunId}`;
    const head = renderFields(fields, format, style, title);
    const prTable = prs.length ? await renderRows(['PR', 'Title', 'URL'], prs, format, style) : '';
    const checkTable = checkList.length ? await renderRows(['Check', 'State', 'Required', 'URL'], checkList, format, style) : `${style.dim('No checks reported yet.')}\n`;
    return `${head}\n${prTable ? `${format === 'markdown' ? '' : style.bold('Tested PRs')}\n${prTable}\n` : ''}${format === 'markdown' ? '' : `${style.bold('Checks')}\n`}${checkTable}`;
  });
  return 0;
}

export function queueTestingCommand(ctx: Context): Command {
  const cmd = new Command('testing')
    .summary('show a queue test run: status, tested PRs and checks')
    .description(
      'Show the details of a merge queue test run: its status, test branch and sha, the PRs it tests (more than one for a batch), the required statuses and where they come from, and every check with its state and URL. Give the test run id (a UUID, optionally ending in -bisection) or the test branch trunk-merge/pr-<N>/<uuid>, whose last part is the id. Piped, lines are `key<TAB>value`, then `pr<TAB>number<TAB>title<TAB>url` and `check<TAB>name<TAB>state<TAB>required<TAB>url`.',
    )
    .argument('<test-run>', 'test run id, or test branch trunk-merge/pr-<N>/<uuid>')
    .action(async (arg: string) => {
      ctx.exitCode = await runQueueTesting(ctx, arg);
    });
  return withExamples(cmd, [
    'mq queue testing 5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    'mq queue testing trunk-merge/pr-1815/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    'mq queue testing "$GITHUB_REF_NAME" --json | jq ".testedPullRequests[].prNumber"',
  ]);
}
