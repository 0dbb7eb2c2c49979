import { Command } from 'commander';
import type { Context, Deps } from '../context.js';
import { ExitCode, MqError, mostSevere, UsageError } from '../errors.js';
import type { Block, Result } from '../output/present.js';
import { plainColumns, plainSecondsSince } from '../output/plain.js';
import type { Row } from '../output/render.js';
import { stateColor } from '../output/style.js';
import type { QueueOrder } from '../domain/order.js';
import { ETA_PLAIN } from '../views/eta.js';
import { POSITION_PLAIN, STORY_PLAIN } from '../views/story.js';
import { PR_PLAIN, pullRequestFields, pullRequestPlainFields } from '../views/pull-request.js';
import { act, onePr, prArguments, withExamples, withPlainHelp, prDocument } from './shared.js';

export interface StatusOptions {
  pr: number;
  /** Estimate when it merges (loads the planner). */
  eta?: boolean;
}

/** One PR: its record, then its story (trips newest first) and, for a failed PR, the failing checks. */
export async function runStatus(opts: StatusOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const lazy = await import('../stats/lazy.js');
  const { batchRow, dispatchSequence, fetchStory, NO_POSITION, positionOf, positionJson, positionView } = lazy;
  const { storyJson, storyView } = lazy;
  // The order is read alongside the record (one request more, not one round trip more); the record's
  // error, if any, is the one told.
  const orderRead = client.getOrder(target).then(
    (o) => () => o,
    (err: unknown) => () => positionsUnknown(err),
  );
  const { record, story, checksNote } = await fetchStory(client, target, opts.pr);
  const order = (await orderRead)();
  const position = order ? positionOf(order, opts.pr, record) : NO_POSITION;
  const now = client.serviceNow(() => deps.clock.now());
  const fields = pullRequestFields(record, now);
  const plainFields = pullRequestPlainFields(record, now);
  if (story.runId) {
    fields.push({ key: 'run', label: story.state === 'failed' ? 'Failing run' : 'Run', value: story.runId });
    plainFields.push(PR_PLAIN.field('run', 'Run', story.runId));
  }
  const storyBlocks = storyView(story, now);
  const live = order !== null && position.of !== null;
  const eta = opts.eta && live ? await withEta(deps, client, opts.pr, order, now) : null;
  const place = positionView(position, eta ? [eta.field] : []);
  const notes = checksNote ? [`mq: note: ${checksNote}`] : [];
  const sequence = order ? dispatchSequence(order) : [];
  return {
    data: {
      ...prDocument([
        {
          pr: opts.pr,
          ok: true,
          exitCode: 0,
          ...record,
          ...storyJson(story),
          ...positionJson(position),
          ...(opts.eta ? { eta: eta?.json ?? { unavailable: order ? 'not in the queue' : 'no queue order' } } : {}),
        },
      ]),
      results: [{ pr: opts.pr, ok: true, exitCode: 0, state: record.state ?? null }],
      pullRequests: [batchRow(opts.pr, record, false, sequence, 0).json],
      notFound: [],
    },
    exitCode: 0,
    view: {
      table: [{ fields }, ...storyBlocks.table, ...place.table],
      plain: [{ fields: plainFields }, ...storyBlocks.plain, ...place.plain, ...(eta ? [eta.plain] : [])],
      markdown: [{ fields, title: `PR #${opts.pr}` }, ...storyBlocks.markdown, ...place.markdown],
    },
    notes: { table: notes, plain: notes, markdown: notes, json: notes },
  };
}

/** The ETA row, plain line and JSON (src/commands/status-eta.ts, loaded only here). */
async function withEta(
  deps: Deps,
  client: Awaited<ReturnType<Deps['client']>>,
  pr: number,
  order: QueueOrder,
  now: number,
) {
  const [{ statusEta }, view] = await Promise.all([import('./status-eta.js'), import('../views/eta.js')]);
  const place = { target: deps.target(), origin: deps.connection().apiUrl.value, env: deps.env };
  const e = await statusEta(place, client, pr, order, now);
  return { field: view.etaField(e, now), plain: { headers: [], rows: [view.etaPlainRow(e)] }, json: view.etaJson(e) };
}

export interface StatusManyOptions {
  args: string[];
}

/** The order is read only for positions: without it they stay empty; a refused token or Ctrl-C still ends it. */
function positionsUnknown(err: unknown): null {
  if (err instanceof MqError && (err.exitCode === ExitCode.auth || err.exitCode === ExitCode.interrupted)) throw err;
  return null;
}

/** Several PRs (or `-`): one batch request per 50, one row each; never-submitted PRs are not found (exit 3). */
export async function runStatusMany(opts: StatusManyOptions, deps: Deps): Promise<Result> {
  const numbers = await prArguments(deps, opts.args);
  const target = deps.target();
  const client = await deps.client();
  const { batchRow, dispatchSequence, fetchBatch, positionOf, positionJson } = await import('../stats/lazy.js');
  const [{ pullRequests, notFound, oneByOne }, queueOrder] = await Promise.all([
    fetchBatch(client, target, numbers, true),
    client.getOrder(target).catch(positionsUnknown),
  ]);
  const order = queueOrder ? dispatchSequence(queueOrder) : [];
  const byNumber = new Map(pullRequests.map((r) => [r.prNumber, r]));
  const missing = new Set(notFound);
  const now = client.serviceNow(() => deps.clock.now());
  const rows = [...new Set(numbers)].map((n) =>
    batchRow(n, byNumber.get(n), missing.has(n) || !byNumber.has(n), order, now),
  );
  const table: Block[] = [
    {
      headers: ['PR', 'State', 'For', 'Position', 'Reason'],
      fit: { truncate: ['Reason'], drop: ['Position'] },
      rows: rows.map(
        (r): Row => [
          `#${r.pr}`,
          { value: r.state, paint: stateColor },
          r.forText,
          r.position === null ? '' : String(r.position),
          r.reason,
        ],
      ),
    },
  ];
  const plain: Block[] = [
    {
      headers: [],
      rows: rows.map((r) =>
        STATUS_MANY_PLAIN.row({
          pr: String(r.pr),
          state: r.found ? r.state : 'not_found',
          state_changed_at: r.since,
          in_state_seconds: plainSecondsSince(r.since, now),
          position: r.position === null ? '' : String(r.position),
          reason: r.reason,
        }),
      ),
    },
  ];
  const notes =
    oneByOne === null
      ? []
      : [`mq: note: the service has no getSubmittedPullRequests (HTTP ${oneByOne}); read one PR per request`];
  return {
    data: {
      ...prDocument(
        rows.map((r) =>
          r.found
            ? { pr: r.pr, ok: true, exitCode: ExitCode.ok, state: r.state }
            : { pr: r.pr, ok: false, exitCode: ExitCode.notFound, state: null, error: r.reason },
        ),
      ),
      pullRequests: rows
        .filter((r) => r.found)
        .map((r) =>
          queueOrder ? { ...r.json, ...positionJson(positionOf(queueOrder, r.pr, byNumber.get(r.pr))) } : r.json,
        ),
      notFound: rows.filter((r) => !r.found).map((r) => r.pr),
    },
    exitCode: mostSevere(rows.map((r) => (r.found ? ExitCode.ok : ExitCode.notFound))),
    view: { table, markdown: table, plain },
    notes: { table: notes, plain: notes, markdown: notes, json: notes },
  };
}

/** `mq status 41 42 43` piped. */
export const STATUS_MANY_PLAIN = plainColumns('with several PRs, one line per PR', [
  'pr',
  'state',
  'state_changed_at',
  'in_state_seconds',
  'position',
  'reason',
]);

export function statusCommand(ctx: Context): Command {
  const one = act(
    ctx,
    'status',
    (pr: string | undefined, eta: boolean): StatusOptions => ({ pr: onePr(ctx.env, pr), ...(eta ? { eta } : {}) }),
    runStatus,
  );
  const many = act(ctx, 'status', (args: string[]): StatusManyOptions => ({ args }), runStatusMany);
  const cmd = new Command('status')
    .summary("show a PR's state and story in the merge queue")
    .description(
      'Show where a submitted PR is: its state and for how long, priority, readiness, title, author, sha ' +
        "and base branch, then its story: every trip through the queue (newest first) with each transition's " +
        'time, state and reason in plain words, and the run that merged or failed it (on a terminal, times ' +
        "read as how long ago by the service's clock and run ids by their first 8 characters; piped and with " +
        '--json, ISO times and whole ids). For a failed PR the failing checks of that run are listed with ' +
        'their URLs. A PR still in the queue ends with its place: "3rd of 12" counts the PRs under test and ' +
        'waiting (PRs not yet admitted are not counted; such a PR has no place), the PRs directly ahead and any ' +
        "failing PRs holding it, and why it waits; from the service's dispatch order on v2, derived from the " +
        'queue record on v1 (marked approximate). With --eta the block gains an ETA: p50 – p90 of when it merges, ' +
        "from the service's estimate where it serves one, else mq's simulation of the live queue with the chance " +
        "it fails instead and its error measured on the queue's recent merges (cached a few hours). With " +
        'several PRs (or `-` for numbers on stdin), one row per PR ' +
        '(state, for how long, ' +
        'position, reason), read 50 PRs per request (one per request from a service without ' +
        'getSubmittedPullRequests, said once on stderr). A PR never submitted to this queue exits 3.',
    )
    .argument(
      '[prs...]',
      'PR numbers, or - to read them from stdin (in GitHub Actions it defaults to the PR of the workflow run)',
    )
    .option('--eta', "estimate when the PR merges: the service's estimate, else mq's simulation (one PR)")
    .action(async (prs: string[], o: { eta?: boolean }) => {
      if (!(prs.length > 1 || prs.includes('-'))) return one(prs[0], o.eta === true);
      if (o.eta) throw new UsageError('--eta: takes one PR', { hints: ['run `mq status 42 --eta` for each PR'] });
      return many(prs);
    });
  withPlainHelp(
    cmd,
    [
      PR_PLAIN,
      STORY_PLAIN.trip,
      STORY_PLAIN.step,
      STORY_PLAIN.cut,
      STORY_PLAIN.check,
      POSITION_PLAIN,
      ETA_PLAIN,
      STATUS_MANY_PLAIN,
    ],
    '  A PR never submitted to this queue reads state not_found.',
  );
  return withExamples(cmd, [
    'mq status 42',
    'mq status 42 --json | jq -r .state',
    'mq status 42 --json | jq -r ".failingChecks[].url"',
    'mq status 42 --eta',
    'mq status 41 42 43',
    'gh pr list --json number -q ".[].number" | mq status -',
    'mq status 42 -o markdown >> "$GITHUB_STEP_SUMMARY"',
  ]);
}
