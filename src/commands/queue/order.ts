/** `mq queue order`: the dispatch order as the service predicts it (v2), or as v1's record implies it. */
import { Command } from 'commander';
import type { Context, Deps } from '../../context.js';
import type { Result } from '../../output/present.js';
import { ORDER_PLAIN, orderBlocks, orderPlain } from '../../views/order.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { identity } from './common.js';

export async function runQueueOrder(_opts: object, deps: Deps): Promise<Result> {
  const target = deps.target();
  const client = await deps.client();
  const order = await client.getOrder(target);
  const note = order.approximate
    ? ['mq: note: the v1 API does not serve the dispatch order; this is the order its queue record implies']
    : [];
  return {
    data: { ...identity(target), ...order },
    view: { table: orderBlocks(order), markdown: orderBlocks(order), plain: orderPlain(order) },
    exitCode: 0,
    notes: { plain: note, json: note },
  };
}

export function queueOrderCommand(ctx: Context): Command {
  const cmd = new Command('order')
    .summary('show the dispatch order: runs under test, waiting PRs and what holds them')
    .description(
      'Show the order in which the queue will consider its PRs, as the service predicts it: the batches ' +
        'under test (with their runs), then the PRs waiting, each with its predicted batch (PRs with the ' +
        'same number are expected to start together), the PRs directly ahead of it and the failing PRs ' +
        'holding it, then the PRs not yet admitted (with how many when the list is cut). The v2 API serves ' +
        'the order; on v1 it is derived from the queue record and marked approximate.',
    )
    .action(act(ctx, 'queue order', () => ({}), runQueueOrder));
  withPlainHelp(cmd, [ORDER_PLAIN]);
  return withExamples(cmd, ['mq queue order', 'mq queue order --json | jq ".pending[] | select(.heldBy != [])"']);
}
