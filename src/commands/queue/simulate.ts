// `mq queue simulate`: wiring around runSimulate (src/planner); views in src/views/simulate.ts.
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import type { QueueInfo } from '../../domain/types.js';
import { exitCodeForStatus, MqError, UsageError } from '../../errors.js';
import type { Result, View } from '../../output/present.js';
import { own, type Paint, paints, wrapToWidth } from '../../output/render.js';
import type { HistoryData, SimulateFlags, SimulateResult } from '../../planner/index.js';
import {
  BACKTEST_HEADERS,
  BACKTEST_NOTE,
  backtestRows,
  historyLines,
  inputsLine,
  SIMULATE_FIT,
  SIMULATE_HEADERS,
  SIMULATE_PLAIN,
  simulateLegend,
  simulatePlainRows,
  simulateRows,
  simulateTable,
} from '../../views/simulate.js';
import { act, collect, withExamples, withPlainHelp } from '../shared.js';

export const SIMULATE_LIMITS = [
  'What the model assumes: PRs arrive as a Poisson process at --arrivals and are ready at once (checks ' +
    'passed, mergeable, not up to date with the branch, so no direct merges);',
  'each PR breaks the build independently with probability --failure-rate; a run fails iff a PR in it, or ' +
    'an unmerged PR in the base it is tested on, breaks the build (failure attribution), or it flakes with ' +
    'probability --flake-rate, independently of everything else;',
  'test time is lognormal around --test-time with --test-time-spread as its coefficient of variation, ' +
    "drawn per run; a run past the queue's testing timeout fails;",
  'no logical conflicts between PRs beyond impacted-target lanes (parallel mode with --lanes N: each PR ' +
    'touches one of N lanes at random);',
  'CI capacity is unlimited unless --ci-capacity N caps the runs in flight across main and bisection (the ' +
    'others wait for a runner, and the wait counts towards the timeout).',
  "The queue itself is the emulator's engine: its scheduling, batching, bisection, pending failure depth " +
    'and optimistic merging rules.',
  'Not modelled: merge conflicts and PRs that need rebasing, people cancelling, restarting or ' +
    're-submitting PRs, priorities and urgent PRs, pausing or draining, direct merge, submission rates that ' +
    'react to a slow queue, time-of-day and weekday patterns (except the hour-of-day or hour-of-week profile ' +
    '--from-history fits), flakes that repeat on the same PR, CI queue time outside --ci-capacity, and the ' +
    'time GitHub takes to merge.',
  "--from-history 14d fits the workload to the last 14 days of the queue's history (the PRs that merged or " +
    'failed, and their test runs, as `mq queue stats` reads them): arrivals per hour (by UTC hour of the ' +
    'week, weekdays apart, with at least 14 days and 1,000 PRs; else by UTC hour of day with at least 3 days ' +
    "and 200 PRs; else flat), the test time's mean and spread, the share of PRs that failed on their own (a " +
    'failed run of their own, not merged on that commit), and the share of runs that failed and were followed ' +
    'by a pass or a merge on the same commit (flaky). It then backtests: the window is simulated with the ' +
    "queue's current settings and every figure of the table is set against the measured one, with its error " +
    "in percent; a row whose merges per hour and time to merge p50 differ from the baseline's by less than " +
    'their errors is marked "within the model\'s error" and is never recommended on that difference.',
  'Figures are measured over the whole --duration from an empty queue; PRs still in the queue at the end ' +
    'count in the depth but not in the time to merge (a row that falls behind shows fewer merges than ' +
    'arrivals and a growing backlog). Each row sees the same arrivals, test times, breaking PRs and flakes ' +
    '(common random numbers); the same --seed gives the same output.',
].join('\n');

async function loadQueue(deps: Deps, required: boolean): Promise<QueueInfo | null> {
  let target: ReturnType<Deps['target']>;
  try {
    target = deps.target();
  } catch (err) {
    if (required) throw err;
    return null;
  }
  if (!deps.connection().token && !required) return null;
  const client = await deps.client();
  try {
    return await client.getQueue(target);
  } catch (err) {
    if (err instanceof MqError) {
      throw new MqError(err.exitCode, err.what, err.why, {
        hints: [...err.hints, 'to simulate from the service defaults instead, pass --baseline defaults'],
        cause: err,
      });
    }
    throw err;
  }
}

/** --from-history: the queue's settings and the last `ms` of its history, counted back from the service's clock. */
async function loadHistory(deps: Deps, ms: number): Promise<HistoryData> {
  const target = deps.target();
  const client = await deps.client();
  const queue = await client.getQueue(target);
  const until = client.serviceNow(() => deps.clock.now());
  const window = { since: until - ms, until };
  const { fetchWindow } = await import('../../stats/lazy.js');
  const data = await fetchWindow(client, target, window, undefined, queue);
  if (data.noTestingHistory !== null) {
    const why =
      `the service does not offer testing history (listMergeQueueTestingResults answered ` +
      `HTTP ${data.noTestingHistory}), which the fit needs`;
    throw new MqError(exitCodeForStatus(data.noTestingHistory), '--from-history', why, {
      hints: [
        'give the workload instead: --arrivals, --test-time and --failure-rate (`mq queue stats` still ' +
          'shows merges per hour and time to merge)',
      ],
    });
  }
  return { window, prs: data.prs, attempts: data.attempts, queue };
}

function checkHtmlTarget(file: string): string {
  const path = resolve(file);
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new Error('is a directory');
    accessSync(dirname(path), constants.W_OK);
  } catch (err) {
    throw new UsageError(`--html: cannot write ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return path;
}

/** Table and markdown: inputs, backtest, rows, legend and recommendation; plain: one figure per line. */
function simulateView(data: SimulateResult, width: number | undefined): View {
  const best: Paint = (style, text) => style.green(style.bold(text));
  const wrap = (l: string) => (width === undefined ? [l] : wrapToWidth(l, width));
  const table = simulateTable(data, width, best);
  const backtest = backtestRows(data);
  return {
    plain: [{ headers: [], rows: simulatePlainRows(data) }],
    table: [
      {
        lines: [
          own(paints.dim, inputsLine(data)),
          ...historyLines(data)
            .flatMap(wrap)
            .map((l) => own(paints.dim, l)),
        ],
        wrap: 2,
      },
      ...(backtest.length > 0
        ? [{ headers: BACKTEST_HEADERS, rows: backtest }, { lines: wrap(BACKTEST_NOTE).map((l) => own(paints.dim, l)) }]
        : []),
      { headers: table.headers, rows: table.rows, fit: SIMULATE_FIT },
      {
        lines: [
          ...table.legend,
          ...simulateLegend(data, width).map((l) => own(paints.dim, l)),
          own(paints.bold, data.recommendation.text),
        ],
        wrap: 2,
      },
    ],
    markdown: [
      { lines: [inputsLine(data), ...historyLines(data).flatMap((l) => ['', l]), ''] },
      ...(backtest.length > 0
        ? [{ headers: BACKTEST_HEADERS, rows: backtest }, { lines: ['', BACKTEST_NOTE, ''] }]
        : []),
      { headers: SIMULATE_HEADERS, rows: simulateRows(data) },
      { lines: ['', ...simulateLegend(data).flatMap((l) => [l, '']), `**${data.recommendation.text}**`] },
    ],
  };
}

export async function runQueueSimulate(flags: SimulateFlags, deps: Deps): Promise<Result> {
  const htmlPath = flags.html === undefined || flags.html.trim() === '' ? undefined : checkHtmlTarget(flags.html);
  const planner = await import('../../planner/index.js');
  const data = await planner.runSimulate(flags, {
    loadQueue: (required) => loadQueue(deps, required),
    notice: (line) => deps.out.note(line, 2),
    loadHistory: (ms) => loadHistory(deps, ms),
    // A table or markdown shows the fitted inputs on stdout: no second copy on stderr.
    showsFit: ['table', 'markdown'].includes(deps.out.format()),
  });
  if (htmlPath !== undefined) {
    const rows = simulateRows(data).map((r) => r.map((c) => (typeof c === 'string' ? c : c.value)));
    const history = {
      lines: historyLines(data),
      backtest: planner.htmlTable(BACKTEST_HEADERS, backtestRows(data)),
      note: BACKTEST_NOTE,
    };
    writeFileSync(
      htmlPath,
      planner.renderHtml(
        data,
        inputsLine(data),
        planner.htmlTable(SIMULATE_HEADERS, rows),
        simulateLegend(data),
        data.backtest ? history : undefined,
      ),
    );
    deps.out.note(`wrote ${flags.html}`);
  }
  return { data, view: simulateView(data, deps.out.width), exitCode: 0 };
}

export function queueSimulateCommand(ctx: Context): Command {
  const cmd = new Command('simulate')
    .summary('predict what queue settings will do, on a simulated workload')
    .description(
      [
        'Simulate the merge queue on a virtual clock, many times, and compare settings side by side before ' +
          "changing them. The baseline row is the configured queue's current settings (read with getQueue), " +
          'or the service defaults when no queue is configured (or with --baseline defaults); each --compare ' +
          'is the baseline with the given settings changed (names of `mq queue update` flags or API fields; ' +
          'batch=N means batching on with batching-min-size N).',
        '',
        'Reported per row, as the mean and a 95% interval over --runs runs: merges per hour, time to merge ' +
          '(submission to merge) p50 and p95, CI runs and test minutes per merged PR, mean queue depth, and ' +
          'PRs failed per day (really breaking / good PRs failed by flakes). The best value of each column ' +
          'among the rows that keep up is marked with * (when two or more keep up); on a terminal too narrow ' +
          'for the settings labels the rows are numbered, with the settings in a legend under the table; and ' +
          'one line recommends a row and names its trade-off between velocity, cost and reliability.',
        '',
        SIMULATE_LIMITS,
      ].join('\n'),
    )
    .option('--arrivals <rate>', 'PR submissions per hour (20/h) or per day (150/d), Poisson')
    .option('--test-time <duration>', 'mean duration of one test run (30m)')
    .option('--test-time-spread <pct>', 'coefficient of variation of the test time (default 0%)')
    .option('--failure-rate <pct>', 'share of PRs that really break the build (5%)')
    .option('--flake-rate <pct>', 'chance that a run fails spuriously (default 0%)')
    .option(
      '--from-history <window>',
      "fit the workload to the last <window> of the queue's history (at most 45d) and backtest it; " +
        'replaces the workload flags',
    )
    .option('--duration <duration>', 'simulated time per run (default 7d; with --from-history, the window)')
    .option('--runs <n>', 'independent runs per row; the intervals are over these (default 20)')
    .option('--seed <n>', 'random seed; the same seed gives the same output (default 1)')
    .option('--compare <settings>', "a row of changed settings, e.g. 'concurrency=8,batch=4' (repeatable)", collect)
    .option('--ci-capacity <n>', 'at most n runs in flight across main and bisection (default unlimited)')
    .option('--lanes <n>', 'parallel mode: independent impacted-target lanes, one per PR at random (default 1)')
    .option(
      '--baseline <source>',
      'queue (read the configured queue) or defaults (service defaults); default: queue when configured',
    )
    .option('--jobs <n>', 'worker threads (default: one per CPU)')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .action(act(ctx, 'queue simulate', (opts: SimulateFlags) => opts, runQueueSimulate));
  withPlainHelp(cmd, [
    SIMULATE_PLAIN.estimate,
    SIMULATE_PLAIN.withinError,
    SIMULATE_PLAIN.backtest,
    SIMULATE_PLAIN.recommendation,
  ]);
  return withExamples(cmd, [
    'mq queue simulate --arrivals 20/h --test-time 30m --failure-rate 5% --flake-rate 2%',
    "mq queue simulate --arrivals 20/h --test-time 30m --failure-rate 5% --compare 'concurrency=4' " +
      "--compare 'concurrency=8,batch=4'",
    'mq queue simulate --arrivals 150/d --test-time 45m --test-time-spread 20% --failure-rate 3% ' +
      '--ci-capacity 6 --html plan.html',
  ]);
}
