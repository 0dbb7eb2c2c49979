/** `mq queue graph`: which PRs build on which in a parallel queue (v2's `/graph`). */
import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import type { Result } from '../../output/present.js';
import { GRAPH_PLAIN, graphBlocks, graphPlain, toDot, toMermaid } from '../../views/order.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { choiceOption, identity } from './common.js';

const GRAPH_FORMATS = ['table', 'dot', 'mermaid'] as const;

export interface GraphOptions {
  format: (typeof GRAPH_FORMATS)[number];
  impactedTargets: boolean;
}

export async function runQueueGraph(opts: GraphOptions, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const graph = await client.getGraph({ ...target, impactedTargets: opts.impactedTargets });
  if (opts.format === 'dot') return { text: toDot(graph), exitCode: 0 };
  if (opts.format === 'mermaid') return { text: toMermaid(graph), exitCode: 0 };
  const blocks = graphBlocks(graph);
  return {
    data: { ...identity(target), ...graph },
    view: { table: blocks, markdown: blocks, plain: graphPlain(graph) },
    exitCode: 0,
  };
}

export function queueGraphCommand(ctx: Context): Command {
  const cmd = new Command('graph')
    .summary('show which PRs build on which in a parallel queue')
    .description(
      "Show a parallel queue's dependency graph: each PR with its state, priority, run and the PRs it " +
        'builds on (their impacted targets overlap). --format dot or mermaid prints the graph for Graphviz ' +
        'or a Markdown page (a PR comment, a job summary). Needs the v2 API, which serves the graph.',
    )
    .addOption(choiceOption('--format <format>', 'table (default), dot or mermaid', GRAPH_FORMATS).default('table'))
    .option('--impacted-targets', 'include each PR’s impacted targets and each edge’s common ones (JSON)')
    .action(
      act(
        ctx,
        'queue graph',
        (o: { format: GraphOptions['format']; impactedTargets?: boolean }): GraphOptions => ({
          format: o.format,
          impactedTargets: o.impactedTargets === true,
        }),
        runQueueGraph,
      ),
    );
  withPlainHelp(cmd, [GRAPH_PLAIN]);
  return withExamples(cmd, [
    'mq queue graph',
    'mq queue graph --format dot | dot -Tsvg > graph.svg',
    'mq queue graph --format mermaid >> "$GITHUB_STEP_SUMMARY"',
  ]);
}
