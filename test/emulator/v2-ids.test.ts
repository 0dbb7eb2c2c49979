/** v2 ids are derived from what the engine state keeps, so they are stable and need no migration. */
import { expect, it } from 'vitest';

import { QueueEngine, createState } from '../../src/emulator/engine/index.js';
import { findPullRequest, findQueue, pullRequestId, queueId, repositoryId } from '../../src/emulator/http/v2/ids.js';
import { queue, repo } from './http-helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('derives UUIDs for repositories and PRs and a short id for queues, the same every time', () => {
  expect(repositoryId(repo)).toMatch(UUID);
  expect(repositoryId({ ...repo })).toBe(repositoryId(repo));
  expect(repositoryId({ ...repo, name: 'other' })).not.toBe(repositoryId(repo));
  expect(pullRequestId(repo, 1)).toMatch(UUID);
  expect(pullRequestId(repo, 1)).not.toBe(pullRequestId(repo, 2));
  expect(queueId({ key: 'k', createdAt: 5 })).toMatch(/^[A-Za-z0-9]{8}$/);
  expect(queueId({ key: 'k', createdAt: 6 })).not.toBe(queueId({ key: 'k', createdAt: 5 }));
});

it('finds queues and PRs by id; a queue made again gets a new id', () => {
  const engine = new QueueEngine(createState(3, 1_000));
  engine.createQueue(queue, 1_000);
  engine.submit({ ...queue, pr: { number: 7 } }, 1_000);
  const q = Object.values(engine.state.queues)[0]!;
  expect(findQueue(engine.state, queueId(q))).toBe(q);
  expect(findPullRequest(engine.state, pullRequestId(repo, 7))).toEqual({ q, number: 7 });
  expect(findPullRequest(engine.state, pullRequestId(repo, 8))).toBeUndefined();
  const first = queueId(q);
  engine.cancel({ ...queue, pr: { number: 7 } }, 2_000);
  engine.deleteQueue(queue, 2_000);
  engine.createQueue(queue, 3_000);
  expect(queueId(Object.values(engine.state.queues)[0]!)).not.toBe(first);
});
