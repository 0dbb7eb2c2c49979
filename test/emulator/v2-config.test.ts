/** PATCH /config (JSON Merge Patch) and /switch-modes over v2, seen through v1 too. */
import { afterEach, expect, it } from 'vitest';

import { queue } from './http-helpers.js';
import { fails, MergeQueue, ok, READER, setUp, StateChange, start, stop, v2 } from './v2-helpers.js';

afterEach(stop);

it('patches settings by their v2 names, leaves the rest, and v1 sees the change', async () => {
  const c = await start();
  const { q } = await setUp(c);
  const path = `/v2/merge-queues/${q.id}/config`;
  const patched = await ok(
    MergeQueue,
    v2(c, 'PATCH', path, {
      concurrency: 4,
      allowBatching: true,
      mergeMethod: 'mergeCommit',
      requiredStatuses: ['build'],
      enqueueingLabel: 'go',
    }),
  );
  expect(patched.config).toMatchObject({
    concurrency: 4,
    allowBatching: true,
    mergeMethod: 'mergeCommit',
    requiredStatuses: ['build'],
    enqueueingLabel: 'go',
  });
  expect(patched.config.batchingMinSize).toBe(q.config.batchingMinSize);
  const v1 = (await c.post('getQueue', queue)).json();
  expect(v1).toMatchObject({ concurrency: 4, batch: true, mergeMethod: 'merge_commit', requiredStatuses: ['build'] });
  // An empty list clears (v1 ignored one); null clears the label.
  const cleared = await ok(MergeQueue, v2(c, 'PATCH', path, { requiredStatuses: [], enqueueingLabel: null }));
  expect(cleared.config).toMatchObject({ requiredStatuses: [], enqueueingLabel: '', concurrency: 4 });
  expect(await ok(MergeQueue, v2(c, 'PATCH', path, {}))).toEqual(cleared);
  await fails(v2(c, 'PATCH', path, { concurrency: 1001 }), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'PATCH', path, { batch: true }), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'PATCH', path, { notReadyTimeoutMinutes: 90 }), 400, 'VALIDATION_FAILED');
  await fails(v2(c, 'PATCH', path, { concurrency: 2 }, READER), 403, 'INSUFFICIENT_PERMISSIONS');
});

it('switches modes; while a switch is under way config and mode writes are 409 MODE_CHANGE_IN_PROGRESS', async () => {
  const c = await start();
  const { q } = await setUp(c);
  const sw = `/v2/merge-queues/${q.id}/switch-modes`;
  expect(await ok(StateChange, v2(c, 'POST', sw, { mode: 'graph' }))).toMatchObject({
    mode: 'graph',
    state: 'running',
  });
  expect((await c.post('getQueue', queue)).json().mode).toBe('parallel');
  await ok(StateChange, v2(c, 'POST', sw, { mode: 'queue' }));
  // An admitted PR makes the next switch wait for the queue to empty.
  await c.post('submitPullRequest', { ...queue, pr: { number: 1 } });
  const switching = await ok(StateChange, v2(c, 'POST', sw, { mode: 'graph' }));
  expect(switching).toMatchObject({ state: 'switchingModes', mode: 'queue' });
  await fails(v2(c, 'POST', sw, { mode: 'queue' }), 409, 'MODE_CHANGE_IN_PROGRESS');
  await fails(v2(c, 'PATCH', `/v2/merge-queues/${q.id}/config`, { concurrency: 3 }), 409, 'MODE_CHANGE_IN_PROGRESS');
  await fails(v2(c, 'POST', sw, { mode: 'tree' }), 400, 'VALIDATION_FAILED');
  await c.advance(30);
  expect(await ok(MergeQueue, v2(c, 'GET', `/v2/merge-queues/${q.id}`))).toMatchObject({
    state: 'running',
    mode: 'graph',
  });
});
