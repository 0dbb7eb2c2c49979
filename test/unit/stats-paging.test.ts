import { describe, expect, it } from 'vitest';
import { fetchWindow, PAGE_SIZE } from '../../src/stats/fetch.js';
import { fakeClient } from '../helpers/fake-client.js';

const target = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const window = { since: Date.parse('2026-11-20T00:00:00Z'), until: Date.parse('2026-11-21T00:00:00Z') };
const result = (i: number) => ({
  prNumber: i + 1,
  testRunId: `r-${i}`,
  createdAt: '2026-11-20T10:00:00Z',
  completedAt: '2026-11-20T10:10:00Z',
  testRunStatus: 'succeeded',
});

function client(total: number, items: number) {
  return fakeClient({
    listConcludedPullRequests: [{ pullRequests: [] }],
    listMergeQueueTestingResults: [
      (req: unknown) => {
        const { offset } = req as { offset: number };
        const n = Math.max(0, Math.min(PAGE_SIZE, items - offset));
        return { testingResults: Array.from({ length: n }, (_, i) => result(offset + i)), totalItems: total };
      },
    ],
  });
}

describe('testing results paging', () => {
  it('reads every page the total announces', async () => {
    const fake = client(250, 250);
    const data = await fetchWindow(fake.client, target, window, undefined, { state: 'running' } as never);
    expect(data.attempts).toHaveLength(250);
    expect(
      fake
        .callsOf('listMergeQueueTestingResults')
        .map((c) => (c.req as { offset: number }).offset)
        .sort((a, b) => a - b),
    ).toEqual([0, 100, 200]);
  });

  it('a total that overstates (a million results, 150 there) ends at the first empty page, not a request per announced page', async () => {
    const fake = client(1_000_000, 150);
    const data = await fetchWindow(fake.client, target, window, undefined, { state: 'running' } as never);
    expect(data.attempts).toHaveLength(150);
    // Pages 0 and 100 hold results; the four parallel readers stop at the first empty ones.
    expect(fake.callsOf('listMergeQueueTestingResults').length).toBeLessThanOrEqual(6);
  });

  it('an empty first page reads nothing more, whatever the total says', async () => {
    const fake = client(500, 0);
    await fetchWindow(fake.client, target, window, undefined, { state: 'running' } as never);
    expect(fake.callsOf('listMergeQueueTestingResults')).toHaveLength(1);
  });
});
