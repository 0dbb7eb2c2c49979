/** A PR's place and waiting reason from an order, for the cases the emulator tests do not reach. */
import { describe, expect, it } from 'vitest';

import type { QueueOrder } from '../../src/domain/order.js';
import { positionOf } from '../../src/stats/position.js';
import { ordinal, placeText } from '../../src/views/position.js';

const order = (over: Partial<QueueOrder> = {}): QueueOrder => ({
  queueState: 'running',
  mode: 'single',
  batchingEnabled: false,
  batches: [{ runId: 'run-1', state: 'tests_passed', isBisection: false, prs: [{ number: 1, title: null }] }],
  pending: [],
  awaitingAdmission: [{ number: 9, title: null }],
  awaitingAdmissionTotal: 1,
  approximate: false,
  ...over,
});

describe('positionOf', () => {
  it('a PR whose tests passed merges next; in a paused queue it does not merge', () => {
    expect(positionOf(order(), 1, { state: 'tests_passed' }).waitingBecause).toEqual({
      code: 'tests_passed',
      words: 'its tests passed; it merges next',
    });
    expect(positionOf(order({ queueState: 'paused' }), 1).waitingBecause?.code).toBe('queue_paused');
  });

  it('awaiting admission: its readiness first, then a queue that admits no one', () => {
    const draining = order({ queueState: 'draining' });
    expect(positionOf(draining, 9, { state: 'not_ready' })).toMatchObject({
      position: null,
      of: 1,
      waitingBecause: { code: 'queue_draining', words: 'the queue is draining: it admits no PRs' },
    });
    const branch = positionOf(draining, 9, { state: 'not_ready', readiness: { doesBaseBranchMatch: false } });
    expect(branch.waitingBecause?.code).toBe('base_branch_mismatch');
    expect(positionOf(order(), 9, { state: 'not_ready' }).waitingBecause?.code).toBe('awaiting_admission');
  });

  it('service text in the words is bounded and made single-line', () => {
    const runId = `r\u001b[31m${'x'.repeat(500)}`;
    const o = order({ batches: [{ runId, state: 'testing', isBisection: true, prs: [{ number: 1, title: null }] }] });
    const words = positionOf(o, 1).waitingBecause?.words ?? '';
    expect(words).not.toContain('\u001b');
    expect(words.length).toBeLessThan(120);
    expect(words).toMatch(/\(a bisection\)$/);
  });
});

describe('the words of a place', () => {
  it('ordinals, and the approximate label of v1', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '101st',
      '111th',
    ]);
    const p = positionOf(order({ approximate: true }), 1);
    expect(placeText(p)).toBe("1st of 1 (approximate: derived from v1's queue record)");
    expect(placeText(positionOf(order(), 9, { state: 'not_ready' }))).toBe(
      'not admitted yet (1 under test or waiting)',
    );
  });
});
