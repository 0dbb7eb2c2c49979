import { Command } from 'commander';
import { envValue, parseRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { asSent, type Block, type Result } from '../output/present.js';
import { own, paints, v, type Format } from '../output/render.js';
import { METRICS_PLAIN, metricsFields, metricsRows, queueTitle, tidyQueue } from '../views/metrics.js';
import { act, withExamples, withPlainHelp } from './shared.js';

export interface MetricsOptions {
  allRepos?: boolean;
}

/** `repo` and `repoHost` from --repo or MQ_REPO (host defaults to github.com), or neither (all repositories). */
export function metricsQuery(
  deps: Pick<Deps, 'options' | 'env'>,
  opts: MetricsOptions,
): { repo?: string; repoHost?: string } {
  if (opts.allRepos) return {};
  const flag = deps.options.repo;
  const text = flag ?? envValue(deps.env, 'MQ_REPO');
  if (text === undefined) return {};
  const repo = parseRepo(text, flag !== undefined ? '--repo' : 'MQ_REPO');
  return { repo: `${repo.owner}/${repo.name}`, repoHost: repo.host };
}

/** Piped without a format chosen, metrics pass through raw (for a scraper or a file). */
const PIPED: Format = 'raw';

export async function runMetrics(opts: MetricsOptions, deps: Deps): Promise<Result> {
  const query = metricsQuery(deps, opts);
  const client = await deps.client();
  const { body } = await client.getMergeQueueMetrics(query);
  const sent = asSent(body);
  if (deps.out.format(PIPED) === 'raw') return { view: sent, exitCode: 0 };
  const [{ parseExposition }, { summarizeMergeQueueMetrics }] = await Promise.all([
    import('../api/prometheus.js'),
    import('../api/merge-queue-metrics.js'),
  ]);
  let queues: ReturnType<typeof summarizeMergeQueueMetrics>;
  let families: ReturnType<typeof parseExposition>;
  try {
    families = parseExposition(body);
    queues = summarizeMergeQueueMetrics(families);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    deps.out.note([
      own(paints.yellow, 'mq: warning:'),
      ' the metrics could not be parsed (',
      v(why),
      '); showing them as the service sent them',
    ]);
    return {
      data: { repo: query.repo ?? null, repoHost: query.repoHost ?? null, parsed: false, error: why, raw: body },
      view: sent,
      exitCode: 0,
    };
  }
  if (queues.length === 0 && deps.out.format(PIPED) !== 'json') {
    deps.out.note(
      `no merge queue series in the metrics (${families.length} metric ` +
        `famil${families.length === 1 ? 'y' : 'ies'}); showing them as the service sent them`,
    );
    return { view: sent, exitCode: 0 };
  }
  const perQueue = queues.flatMap((q, i): Block[] => [
    ...(i > 0 ? [{ lines: [''] }] : []),
    { fields: metricsFields(q), title: queueTitle(q) },
  ]);
  // The series name the repository as owner/name; its host is the one asked for (unknown for every repository).
  const repoHost = query.repoHost ?? null;
  return {
    data: {
      repo: query.repo ?? null,
      repoHost,
      parsed: true,
      queues: queues.map((q) => ({ repoHost, ...tidyQueue(q) })),
    },
    view: {
      plain: [{ headers: [], rows: queues.flatMap((q) => metricsRows(q, repoHost)) }],
      table: perQueue,
      markdown: perQueue,
    },
    exitCode: 0,
  };
}
export function metricsCommand(ctx: Context): Command {
  const cmd = new Command('metrics')
    .summary('show the merge queue metrics (Prometheus)')
    .description(
      [
        "Read the service's Prometheus metrics. Piped, or with -o raw, the exposition text is passed " +
          'through unchanged (for a scraper or a file). On a terminal, or with --json, -o table, -o plain or ' +
          '-o markdown, it is parsed and shown per queue: PRs in the queue, testing and awaiting ' +
          'mergeability, PRs that left in the last hour by conclusion, restarts, and for the wait, test and ' +
          'time-in-queue histograms their count and p50/p90 estimated from the buckets (under 20 PRs, by ' +
          'nearest rank, never past the largest). -o plain prints one line per metric (columns below; ' +
          'durations in seconds). Numbers are rounded to at most 3 decimals (no float noise), in JSON too. An ' +
          'exposition that does not parse is shown as sent, with a warning.',
        '',
        'With --repo (or MQ_REPO), only that repository is asked for, as repo=owner/name and ' +
          'repoHost=host; a repo written without a host is on github.com, as for every other command. The ' +
          'host is carried in the output (repoHost in JSON, the repo_host column piped). Without --repo and ' +
          'MQ_REPO, or with --all-repos, every repository of the organization (the series do not name a host: ' +
          'repoHost is null and repo_host empty).',
      ].join('\n'),
    )
    .option('--all-repos', 'every repository, even when --repo or MQ_REPO is set')
    .action(act(ctx, 'metrics', (f: MetricsOptions): MetricsOptions => ({ allRepos: f.allRepos }), runMetrics, PIPED));
  withPlainHelp(cmd, [METRICS_PLAIN], '  Piped without -o, the exposition text is passed through as sent instead.');
  return withExamples(cmd, [
    'mq metrics --repo acme/widgets',
    'mq metrics --all-repos > metrics.prom',
    "mq metrics -o plain | awk -F'\\t' '$5 == \"depth\"'",
  ]);
}
