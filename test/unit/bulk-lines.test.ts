/**
 * Bulk lines (src/commands/bulk.ts): in the order the PRs were given, once each, and the lines
 * ready in one turn of the event loop in one write (a write a line was most of what printing a
 * 1,000-PR run cost).
 */
import { describe, expect, it } from 'vitest';
import { runOverPrs } from '../../src/commands/bulk.js';
import { MqError } from '../../src/errors.js';
import { Presenter } from '../../src/output/present.js';
import { memoryIO } from '../helpers/memory-io.js';

function presenter() {
  const io = memoryIO();
  return { io, out: new Presenter(io, () => ({})) };
}

const OPTIONS = { parallel: 8, action: 'submit', bulk: true };

describe('bulk lines', () => {
  it('answers that land in one turn go out in one write, in the given order', async () => {
    const { io, out } = presenter();
    const prs = Array.from({ length: 200 }, (_, i) => 200 - i);
    const r = await runOverPrs(
      { out },
      prs,
      OPTIONS,
      async () => ({}),
      () => 'submitted',
    );
    expect(r.exitCode).toBe(0);
    // Every op answers at once: one write for the 200 lines, one for the summary.
    expect(io.errWrites).toHaveLength(2);
    expect(io.errWrites[0]?.split('\n').slice(0, 3)).toEqual([
      '✓ #200 submitted',
      '✓ #199 submitted',
      '✓ #198 submitted',
    ]);
    expect(io.errWrites[0]?.trimEnd().split('\n')).toHaveLength(200);
    expect(io.errWrites[1]).toBe('200 of 200 succeeded\n');
  });

  it('answers in different turns are written as they come, each after the ones before it', async () => {
    const { io, out } = presenter();
    // #1 answers last: nothing can be written until it has, then everything at once.
    const delays: Record<number, number> = { 1: 30, 2: 0, 3: 10 };
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let firstDone: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    const r = await runOverPrs(
      { out },
      [1, 2, 3, 4],
      OPTIONS,
      async (pr) => {
        // #4 answers in a turn of its own after #1, however loaded the machine is.
        if (pr === 4) await first.then(() => wait(20));
        else await wait(delays[pr] as number);
        if (pr === 1) setTimeout(firstDone, 0);
        if (pr === 3) throw new MqError(3, 'submit PR #3', 'PR #3 was not found');
        return {};
      },
      () => 'ok',
    );
    expect(r.exitCode).toBe(3);
    // A failure names the PR once, in the ✓ lines' shape (the error's `what` names it again).
    expect(io.errWrites).toEqual([
      '✓ #1 ok\n✓ #2 ok\n✗ #3 submit failed: PR #3 was not found\n',
      '✓ #4 ok\n',
      '3 of 4 succeeded, 1 failed\n',
    ]);
  });
});
