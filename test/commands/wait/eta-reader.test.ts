/** `mq wait`'s estimate reads: one per ESTIMATE_EVERY polls; none after the service says it serves none. */
import { describe, expect, it } from 'vitest';

import type { MergeQueueService } from '../../../src/api/service.js';
import { ESTIMATE_EVERY, etaReader } from '../../../src/commands/wait-eta.js';
import { testDeps } from '../../helpers/deps.js';

const target = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

function client(served: boolean) {
  let reads = 0;
  const c = {
    serviceNow: (local: () => number) => local(),
    getEstimate: async () => {
      reads++;
      return served ? { status: 'available', kind: 'merge', computedAt: 0, estimatedAt: 60_000 + reads } : undefined;
    },
  };
  return { c: c as unknown as MergeQueueService, reads: () => reads };
}

describe('etaReader (service estimates)', () => {
  it(`reads once per ${ESTIMATE_EVERY} polls and keeps the latest in between`, async () => {
    const { deps } = testDeps();
    const { c, reads } = client(true);
    const next = etaReader(deps, c, target, 42, 'service');
    const seen = [];
    for (let i = 0; i < 2 * ESTIMATE_EVERY + 1; i++) seen.push((await next())?.p50);
    expect(reads()).toBe(3);
    expect(seen).toEqual([...Array(ESTIMATE_EVERY).fill(60_001), ...Array(ESTIMATE_EVERY).fill(60_002), 60_003]);
  });

  it('stops reading where no estimate is served', async () => {
    const { deps } = testDeps();
    const { c, reads } = client(false);
    const next = etaReader(deps, c, target, 42, 'service');
    for (let i = 0; i < 3 * ESTIMATE_EVERY; i++) expect(await next()).toBeNull();
    expect(reads()).toBe(1);
  });
});
