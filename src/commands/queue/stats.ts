import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import type { Block, Result } from '../../output/present.js';
import { own, paints } from '../../output/render.js';
import { ExitCode, UsageError } from '../../errors.js';
import { parseThreshold } from '../../stats/fail-if.js';
import type { Progress, WindowData } from '../../stats/fetch.js';
import { MAX_WINDOW_DAYS, resolveWindow, windowFlags } from '../../stats/window.js';
import { STATS_PLAIN } from '../../views/stats.js';
import { act, collect, withExamples, withPlainHelp } from '../shared.js';
import { queueName } from './common.js';

export interface StatsOptions {
  since?: string;
  until?: string;
  failIf?: string[];
  html?: string;
}

export async function runQueueStats(opts: StatsOptions, deps: Deps): Promise<Result> {
  // Everything the user typed is checked before anything is sent.
  const thresholds = (opts.failIf ?? []).map(parseThreshold);
  const flags = windowFlags(opts.since ?? '24h', opts.until);
  const target = deps.target();
  const client = await deps.client();
  const queue = await client.getQueue(target);
  // Durations count back from the service's clock (its Date header), so the window is right against an emulator.
  const now = client.serviceNow(() => deps.clock.now());
  const { since, until } = resolveWindow(flags.since, flags.until, now);
  const {
    computeStats,
    crossedLines,
    evaluateThresholds,
    fetchWindow,
    groupedStatsFields,
    htmlReport,
    statsFields,
    terminalCharts,
    withoutTestingHistory,
  } = await import('../../stats/lazy.js');
  const showProgress = deps.io.stderrIsTTY;
  let lastDrawn = 0;
  const progress = (p: Progress) => {
    const t = Date.now();
    if (t - lastDrawn < 100) return;
    lastDrawn = t;
    deps.io.err(
      `\r\u001b[Kreading history: ${p.attempts}${p.attemptsTotal === null ? '' : `/${p.attemptsTotal}`} ` +
        `test results, ${p.prs} PRs`,
    );
  };
  let data: WindowData;
  try {
    data = await fetchWindow(client, target, { since, until }, showProgress ? progress : undefined, queue);
  } finally {
    if (showProgress && lastDrawn > 0) deps.io.err('\r\u001b[K');
  }
  const computed = computeStats({
    window: { since, until },
    prs: data.prs,
    attempts: data.attempts,
    settings: data.settings,
  });
  const { series } = computed;
  const stats = data.noTestingHistory === null ? computed.stats : withoutTestingHistory(computed.stats);
  const crossed = evaluateThresholds(stats, thresholds);
  const notes: string[] = [];
  if (data.noTestingHistory !== null) {
    notes.push(
      `mq: warning: the service does not offer testing history (listMergeQueueTestingResults answered ` +
        `HTTP ${data.noTestingHistory}): ` +
        'PRs, merges per hour and time to merge are shown; waiting, testing, runs, test minutes, flaky ' +
        'share and the ceiling are not',
    );
  }
  const groups = groupedStatsFields(stats);
  if (opts.html !== undefined) {
    const page = htmlReport(
      stats,
      series,
      { queue: queueName(target), generatedAt: new Date(now).toISOString() },
      groups.map((g) => ({ title: g.title, figures: g.fields.map((f): [string, string] => [f.label, f.value]) })),
    );
    try {
      writeFileSync(opts.html, page);
    } catch (err) {
      throw new UsageError(
        `--html: cannot write ${JSON.stringify(opts.html)}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    notes.push(`wrote ${opts.html}`);
  }
  for (const line of crossedLines(crossed)) notes.push(`mq: ${line}`);
  const width = Math.min(Number(deps.env.COLUMNS) || (deps.io.stdoutIsTTY ? process.stdout.columns : 0) || 80, 120);
  const charts = terminalCharts(stats, series, width);
  // One label column for every group: the groups' figures indented under their titles.
  const labelWidth = Math.max(
    ...groups.flatMap((g) => g.fields.map((f) => f.label.length + (g.title === null ? 0 : 2))),
  );
  const table: Block[] = groups.flatMap((g): Block[] => [
    ...(g.title === null ? [] : [{ lines: ['', own(paints.bold, g.title)] }]),
    { fields: g.fields.map((f) => ({ ...f, label: `${g.title === null ? '' : '  '}${f.label}`.padEnd(labelWidth) })) },
  ]);
  const markdown: Block[] = groups.flatMap((g, i): Block[] => [
    ...(i === 0 ? [] : [{ text: '\n' }]),
    { fields: g.fields, title: g.title ?? `Merge queue statistics: ${queueName(target)}` },
  ]);
  return {
    data: stats,
    exitCode: crossed.length > 0 ? ExitCode.threshold : ExitCode.ok,
    view: {
      table: [...table, { text: `\n${charts.join('\n')}\n` }],
      plain: [{ fields: statsFields(stats, false) }],
      markdown: [...markdown, { text: `\n\`\`\`text\n${charts.join('\n')}\n\`\`\`\n` }],
    },
    notes: { table: notes, plain: notes, markdown: notes, json: notes, raw: notes },
  };
}

export function queueStatsCommand(ctx: Context): Command {
  const cmd = new Command('stats')
    .summary("the queue's health over a window: time to merge, throughput, CI cost, flakiness")
    .description(
      `Statistics of the PRs that left the queue in a window (default: the last 24 hours; at ` +
        `most ${MAX_WINDOW_DAYS} days, what the service keeps) and their test runs: PRs merged, failed and ` +
        `cancelled; merges per hour against the ceiling of the current settings (concurrency x batch size x ` +
        `60 / median test minutes); time to merge p50/p90/p95, split into waiting and testing; test runs ` +
        `(every run that ended in the window, cancelled ones too; simulate --from-history fits on the ` +
        `finished ones), failed and bisection runs, runs and test minutes per merged PR; and the flaky share ` +
        `(PRs whose failed run was followed by a pass without a new commit). Durations count back from the ` +
        `service's clock. JSON durations are seconds. On a terminal, charts of merges per hour (on a UTC time ` +
        `axis, the ceiling dashed) and of the time-to-merge distribution follow; the table, markdown and HTML ` +
        `group the figures into throughput, time to merge, CI cost and reliability. --fail-if exits 11 when a ` +
        `figure crosses its limit. From a service without listMergeQueueTestingResults (testing history), a ` +
        `warning says so and the figures that come from test runs are null.`,
    )
    .option('--since <when>', 'start of the window: a duration back (24h, 7d) or an ISO 8601 time', undefined)
    .option('--until <when>', 'end of the window: a duration back or an ISO 8601 time (default: now)')
    .option(
      '--fail-if <figure>',
      "exit 11 when a figure crosses a limit, e.g. 'p95>2h', 'flakyShare>10%', 'mergedPerHour<2' (repeatable)",
      collect,
    )
    .option('--html <file>', 'also write a self-contained HTML report with the charts as SVG')
    .action(act(ctx, 'queue stats', (opts: StatsOptions): StatsOptions => opts, runQueueStats));
  withPlainHelp(cmd, [STATS_PLAIN]);
  return withExamples(cmd, [
    'mq queue stats',
    'mq queue stats --since 7d --html queue-report.html',
    "mq queue stats --since 24h --fail-if 'p95>2h' --fail-if 'flakyShare>10%'",
    'mq queue stats --since 7d -o markdown >> "$GITHUB_STEP_SUMMARY"',
  ]);
}
