/**
 * Changing a live queue entry over v2: `reprioritize` and PATCH `queue-entry`. Both are v1's
 * resubmit of a live PR (it keeps its entry; priority and batching are rewritten), journaled as v1's.
 */
import { z } from 'zod';

import { requirePermission } from './auth.js';
import { parse, prAnswer, prOf, ref, at, type V2Context, type V2Route } from './context.js';
import { V2Error } from './errors.js';

// Trunk takes priorityValue up to 32767; the engine's priorities are v1's 0..255.
const priorityFields = {
  priorityValue: z.optional(z.int().gte(0).lte(255)),
  priorityName: z.optional(z.enum(['urgent', 'high', 'medium', 'low'])),
};
const reprioritizeBody = z.strictObject(priorityFields);
const patchBody = z.strictObject({
  ...priorityFields,
  direct: z.optional(z.boolean()),
  allowBatching: z.optional(z.boolean()),
});

function priorityOf(b: { priorityValue?: number; priorityName?: string }): number | string | undefined {
  if (b.priorityValue !== undefined && b.priorityName !== undefined)
    throw new V2Error('VALIDATION_FAILED', 'priorityValue, priorityName: send one, not both');
  return b.priorityValue ?? b.priorityName;
}

async function resubmit(c: V2Context, priority: number | string | undefined, allowBatching?: boolean) {
  const { q, number } = prOf(c);
  if (!q.entries[String(number)]?.live)
    throw new V2Error('PR_NOT_IN_ACTIVE_STATE', `pull request #${number} is not queued`);
  await c.change('/v1/submitPullRequest', {
    ...ref(q),
    pr: { number },
    ...(priority !== undefined ? { priority } : {}),
    ...(allowBatching !== undefined ? { noBatch: !allowBatching } : {}),
  });
  return { json: prAnswer(c, q, number) };
}

export const entryRoutes: V2Route[] = [
  {
    method: 'POST',
    path: at('pull-requests/{id}/reprioritize'),
    body: true,
    handle(c) {
      requirePermission(c.key, 'priority', 'set a priority');
      const priority = priorityOf(parse(reprioritizeBody, c.body));
      if (priority === undefined)
        throw new V2Error('VALIDATION_FAILED', 'priorityValue, priorityName: send exactly one');
      return resubmit(c, priority);
    },
  },
  {
    method: 'PATCH',
    path: at('pull-requests/{id}/queue-entry'),
    body: true,
    handle(c) {
      const b = parse(patchBody, c.body);
      const priority = priorityOf(b);
      if (priority === undefined && b.direct === undefined && b.allowBatching === undefined)
        throw new V2Error(
          'VALIDATION_FAILED',
          'send at least one of priorityValue, priorityName, direct, allowBatching',
        );
      if (priority !== undefined) requirePermission(c.key, 'priority', 'set a priority');
      if (b.allowBatching !== undefined) requirePermission(c.key, 'skipBatching', 'change batching');
      // Accepted as on submit; the emulator does not model direct-to-queue.
      if (b.direct !== undefined) requirePermission(c.key, 'direct', 'send a pull request direct to the queue');
      return resubmit(c, priority, b.allowBatching);
    },
  },
];
