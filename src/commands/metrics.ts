import { Command } from 'commander';
import { envValue, parseRepo } from '../config/resolve.js';
import type { Context, Deps } from '../context.js';
import { UsageError } from '../errors.js';
import { asSent, type Block, type Result } from '../output/present.js';
import { own, paints, v, type Format } from '../output/render.js';
import { metricsFields, metricsRows, queueTitle } from '../views/metrics.js';
import { act, withExamples } from './shared.js';

export interface MetricsOptions {
  allRepos?: boolean;
}

export interface MetricsOptions {
  allRepos?: boolean;
}

/**
 * The query: `repo` and `repoHost` together, from --repo or MQ_REPO, or neither (every repository).
 * A repo written without a host takes the host of the profile's repo; without one, it is refused
 * rather than guessed, since the service needs the host.
 */
export function metricsQuery(deps: Pick<Deps, 'options' | 'env' | 'profile'>, opts: MetricsOptions): { repo?: string; repoHost?: string } {
  if (opts.allRepos) return {};
  const flag = deps.options.repo;
  const text = flag ?? envValue(deps.env, 'MQ_REPO');
  if (text === undefined) return {};
  const source = flag !== undefined ? '--repo' : 'MQ_REPO';
  const repo = parseRepo(text, source);
  const explicitHost =
    text
      .trim()
      .replace(/\.git$/, '')
      .split('/').length === 3;
  if (explicitHost) return { repo: `${repo.owner}/${repo.name}`, repoHost: repo.host };
  const { name, data } = deps.profile();
  const profileRepo = data.repo?.trim().split('/');
  if (profileRepo && profileRepo.length === 3 && profileRepo[0]) return { repo: `${repo.owner}/${repo.name}`, repoHost: profileRepo[0].toLowerCase() };
  throw new UsageError(
    `${source}: "${text}" has no host part, and metrics needs one (repoHost); profile "${name.value}" has no repo with a host to take it from`,
    {
      hints: [
        `write the host: ${source === '--repo' ? '--repo ' : 'MQ_REPO='}github.com/${repo.owner}/${repo.name}`,
        'or drop --repo (and MQ_REPO) to get the metrics of every repository',
      ],
    },
  );
}

/** Piped without a format chosen, metrics pass through raw (for a scraper or a file). */
const PIPED: Format = 'raw';

export async function runMetrics(opts: MetricsOptions, deps: Deps): Promise<Result> {
  const query = metricsQuery(deps, opts);
  const client = await deps.client();
  const { body } = await client.getMergeQueueMetrics(query);
  const sent = asSent(body);
  if (deps.out.format(PIPED) === 'raw') return { view: sent, exitCode: 0 };
  const [{ parseExposition }, { summarizeMergeQueueMetrics }] = await Promise.all([import('../api/prometheus.js'), import('../api/merge-queue-metrics.js')]);
  let queues: ReturnType<typeof summarizeMergeQueueMetrics>;
  let families: ReturnType<typeof parseExposition>;
  try {
    families = parseExposition(body);
    queues = summarizeMergeQueueMetrics(families);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    deps.out.note([own(paints.yellow, 'mq: warning:'), ' the metrics could not be parsed (', v(why), '); showing them as the service sent them']);
    return { data: { ...query, parsed: false, error: why, raw: body }, view: sent, exitCode: 0 };
  }
  if (queues.length === 0 && deps.out.format(PIPED) !== 'json') {
    deps.out.note(
      `no merge queue series in the metrics (${families.length} metric famil${families.length === 1 ? 'y' : 'ies'}); showing them as the service sent them`,
    );
    return { view: sent, exitCode: 0 };
  }
  const perQueue = queues.flatMap((q, i): Block[] => [...(i > 0 ? [{ lines: [''] }] : []), { fields: metricsFields(q), title: queueTitle(q) }]);
  return {
    data: { ...query, parsed: true, queues },
    view: { plain: [{ headers: [], rows: queues.flatMap(metricsRows) }], table: perQueue, markdown: perQueue },
    exitCode: 0,
  };
}
export function metricsCommand(ctx: Context): Command {
  const cmd = new Command('metrics')
    .summary('show the merge queue metrics (Prometheus)')
    .description(
      [
        "Read the service's Prometheus metrics. Piped, or with -o raw, the exposition text is passed through unchanged (for a scraper or a file). On a terminal, or with --json, -o table, -o plain or -o markdown, it is parsed and shown per queue: PRs in the queue, testing and awaiting mergeability, PRs that left in the last hour by conclusion, restarts, and for the wait, test and time-in-queue histograms their count and p50/p90 estimated from the buckets. -o plain prints one `repo<TAB>branch<TAB>queue_type<TAB>metric<TAB>value` line per metric (durations in seconds). An exposition that does not parse is shown as sent, with a warning.",
        '',
        "With --repo (or MQ_REPO), only that repository is asked for, as repo=owner/name and repoHost=host. Write the host (github.com/owner/name); a repo without one takes the host of the profile's repo, and is refused (exit 2) when the profile has none. Without --repo and MQ_REPO, or with --all-repos, every repository of the organization.",
      ].join('\n'),
    )
    .option('--all-repos', 'every repository, even when --repo or MQ_REPO is set')
    .action(act(ctx, 'metrics', (f: MetricsOptions): MetricsOptions => ({ allRepos: f.allRepos }), runMetrics, PIPED));
  return withExamples(cmd, [
    'mq metrics --repo github.com/acme/widgets',
    'mq metrics --all-repos > metrics.prom',
    "mq metrics -o plain | awk -F'\\t' '$4 == \"depth\"'",
  ]);
}
