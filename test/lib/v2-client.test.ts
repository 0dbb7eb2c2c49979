/**
 * The library on v2 (issue 30.3): `new MergeQueueClient({ token })` with a v2 key speaks v2 (Bearer,
 * the URL's origin), answers submit and status as the v1 client does, and keeps ids per client.
 */
import { describe, expect, it } from 'vitest';
import { MergeQueueClient, MergeQueueError } from '../../src/lib/index.js';
import { queue, TOKEN, useEmulator } from '../emulator/http-helpers.js';
import { thrown } from '../helpers/thrown.js';

const KEY = 'trunk_v2_lib0123456789abcdef';
const { emu } = useEmulator({
  rateLimits: false,
  apiKeys: [{ name: 'ci', key: KEY, permissions: ['merge', 'priority', 'skipBatching', 'direct', 'settings'] }],
});

function counted(options: ConstructorParameters<typeof MergeQueueClient>[0]) {
  const sent: string[] = [];
  const debug = (line: string) => {
    const m = /^> (\w+) (\S+)/.exec(line);
    if (m) sent.push(`${m[1]} ${new URL(m[2] as string).pathname}`);
  };
  return { sent, client: new MergeQueueClient({ ...options, debug }) };
}

describe('MergeQueueClient with a v2 API key', () => {
  it('submits and reads a PR on v2 as v1 does: the same record, the same request count with warm ids', async () => {
    const v1 = counted({ apiUrl: emu.url, token: TOKEN });
    await v1.client.createQueue({ ...queue, concurrency: 1 });
    // The emulator's v1 URL: auto sees the key and speaks v2 to its origin.
    const v2 = counted({ apiUrl: emu.url, token: KEY });
    expect([v1.client.api, v2.client.api]).toEqual(['v1', 'v2']);
    await v2.client.submitPullRequest({ ...queue, pr: { number: 7 }, priority: 'high' });
    await v1.client.submitPullRequest({ ...queue, pr: { number: 8 } });
    v1.sent.length = 0;
    v2.sent.length = 0;
    for (const n of [7, 8]) {
      const [a, b] = await Promise.all([
        v1.client.getSubmittedPullRequest({ ...queue, pr: { number: n } }),
        v2.client.getSubmittedPullRequest({ ...queue, pr: { number: n } }),
      ]);
      expect(b).toEqual(a);
    }
    expect(v2.sent.every((r) => r.startsWith('GET /v2/'))).toBe(true);
    // Ids are kept by the client: a read now costs one request on both.
    v1.sent.length = 0;
    v2.sent.length = 0;
    await v2.client.getSubmittedPullRequest({ ...queue, pr: { number: 8 } });
    await v1.client.getSubmittedPullRequest({ ...queue, pr: { number: 8 } });
    expect([v1.sent.length, v2.sent.length]).toEqual([1, 1]);
  });

  it('setImpactedTargets on v2: the upload carries ids (PUT /v2/impacted-targets); ALL is impactsAllTargets', async () => {
    await new MergeQueueClient({ apiUrl: emu.url, token: TOKEN }).createQueue(queue);
    const { sent, client } = counted({ apiUrl: emu.url, token: KEY });
    const pr = { number: 9, sha: 'b'.repeat(40) };
    await client.setImpactedTargets({ ...queue, pr, impactedTargets: ['//svc/api'] });
    await client.setImpactedTargets({ ...queue, pr, impactedTargets: 'ALL' });
    expect(sent.filter((r) => r.startsWith('PUT'))).toEqual(['PUT /v2/impacted-targets', 'PUT /v2/impacted-targets']);
  });

  it('without apiUrl a v2 key goes to https://api.trunk.io; a v1 token still needs apiUrl; a v2 key never to v1', () => {
    const c = new MergeQueueClient({ token: KEY });
    expect([c.api, c.apiUrl]).toEqual(['v2', 'https://api.trunk.io']);
    expect(() => new MergeQueueClient({ token: TOKEN })).toThrow(/apiUrl: required/);
    const err = thrown(() => new MergeQueueClient({ token: KEY, apiUrl: emu.url, api: 'v1' }));
    expect(err).toBeInstanceOf(MergeQueueError);
    expect(err).toMatchObject({ exitCode: 7 });
    expect(String((err as Error).message)).toContain('option api: v1, but the token is a v2 API key');
    expect(String((err as Error).message)).not.toContain(KEY);
    expect(() => new MergeQueueClient({ token: KEY, api: 'v3' as 'v2' })).toThrow(/api: expected v1, v2 or auto/);
  });
});
