import { Command } from 'commander';
import type { TestingDetails } from '../../api/schemas.js';
import type { Context, Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Block, Result, View } from '../../output/present.js';
import { own, paints } from '../../output/render.js';
import {
  checkHeaders,
  checkPlainRows,
  checkRows,
  checks,
  groupChecks,
  TESTING_PLAIN,
  testedPrPlainRows,
  testedPrRows,
  testingFields,
  testingPlainFields,
} from '../../views/testing-details.js';
import { act, withExamples, withPlainHelp } from '../shared.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const RUN_ID = new RegExp(`^${UUID}(-bisection)?$`);
const TEST_BRANCH = new RegExp(`^(?:refs/heads/)?trunk-merge/pr-(\\d+)/(${UUID}(?:-bisection)?)$`);

/** The test run id from a bare id or a `trunk-merge/pr-<N>/<uuid>` test branch (the uuid is the id). */
export function parseTestRun(text: string): { testRunId: string; pr?: number } {
  const t = text.trim();
  if (RUN_ID.test(t)) return { testRunId: t };
  const m = TEST_BRANCH.exec(t);
  if (m && Number(m[1]) >= 1) return { testRunId: m[2] as string, pr: Number(m[1]) };
  if (m)
    throw new UsageError(`test run: ${JSON.stringify(text)} names PR 0; PR numbers start at 1`, {
      hints: ['pass the test run id (the uuid) alone'],
    });
  throw new UsageError(
    `test run: ${JSON.stringify(text)} is neither a test run id (a UUID) nor a test branch trunk-merge/pr-<N>/<uuid>`,
    {
      hints: ['in CI on the test branch: mq queue testing "$GITHUB_REF_NAME"'],
    },
  );
}

export interface TestingOptions {
  testRunId: string;
}

export async function runQueueTesting(opts: TestingOptions, deps: Deps): Promise<Result> {
  const { testRunId } = opts;
  const target = deps.target();
  const client = await deps.client();
  const details = await client.getMergeQueueTestingDetails({ ...target, testRunId });
  return {
    data: details,
    view: testingView(
      details,
      testRunId,
      client.serviceNow(() => deps.clock.now()),
    ),
    exitCode: 0,
  };
}

function testingView(details: TestingDetails, testRunId: string, now: number): View {
  const fields = testingFields(details, now);
  const prs = testedPrRows(details);
  const grouped = groupChecks(checks(details));
  const checkList = checkRows(grouped);
  const title = `Test run ${testRunId}`;
  const human = (markdown: boolean): Block[] => [
    { fields, title },
    { lines: [''] },
    ...(prs.length
      ? [
          { lines: [markdown ? '' : own(paints.bold, 'Tested PRs')] },
          { headers: ['PR', 'Title', 'URL'], rows: prs, fit: { truncate: ['Title'], whole: ['URL'] } },
          { lines: [''] },
        ]
      : []),
    ...(markdown ? [] : [{ lines: [own(paints.bold, 'Checks')] }]),
    checkList.length
      ? {
          headers: checkHeaders(grouped),
          rows: checkList,
          fit: { truncate: ['Check'], drop: ['Required'], whole: ['URL'] },
        }
      : { lines: [own(paints.dim, 'No checks reported yet.')] },
  ];
  return {
    // One record per line, first column the kind, so `awk -F'\t' '$1 == "check"'` picks the checks.
    plain: [
      { fields: testingPlainFields(details) },
      { headers: [], rows: testedPrPlainRows(details) },
      { headers: [], rows: checkPlainRows(checks(details)) },
    ],
    table: human(false),
    markdown: human(true),
  };
}

export function queueTestingCommand(ctx: Context): Command {
  const cmd = new Command('testing')
    .summary('show a queue test run: status, tested PRs and checks')
    .description(
      'Show the details of a merge queue test run: its status, test branch and sha, the PRs it tests (more ' +
        'than one for a batch), the required statuses and where they come from, and every check with its kind ' +
        '(check run or status), state and URL (identical checks once, with a count). Give the test run id (a ' +
        'UUID, optionally ending in -bisection) or the test branch trunk-merge/pr-<N>/<uuid>, whose last part ' +
        'is the id.',
    )
    .argument('<test-run>', 'test run id, or test branch trunk-merge/pr-<N>/<uuid>')
    .action(
      act(
        ctx,
        'queue testing',
        (arg: string): TestingOptions => ({ testRunId: parseTestRun(arg).testRunId }),
        runQueueTesting,
      ),
    );
  withPlainHelp(cmd, [TESTING_PLAIN.fields, TESTING_PLAIN.pr, TESTING_PLAIN.check]);
  return withExamples(cmd, [
    'mq queue testing 5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    'mq queue testing trunk-merge/pr-1815/5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31',
    'mq queue testing "$GITHUB_REF_NAME" --json | jq ".testedPullRequests[].prNumber"',
  ]);
}
