import { describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { ExitCode, MqError } from '../../src/errors.js';
import { poll } from '../../src/util/poll.js';
import { stringIO } from '../helpers/in-process.js';

function ctxWith(signal?: AbortSignal) {
  const io = stringIO();
  return { io, ctx: new Context({ env: {}, io, cwd: '/', signal }) };
}

describe('poll', () => {
  it('hands values over until one ends the loop', async () => {
    const { ctx } = ctxWith();
    const seen: number[] = [];
    let n = 0;
    const r = await poll(ctx, { intervalMs: 1, what: 'x', read: async () => ++n, onValue: (v) => (seen.push(v), v === 3) });
    expect(r).toBe('done');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('reports a transient failure, backs off, and goes on', async () => {
    const { ctx, io } = ctxWith();
    const times: number[] = [];
    let n = 0;
    const r = await poll(ctx, {
      intervalMs: 20,
      what: 'reading the thing',
      read: async () => {
        times.push(Date.now());
        if (++n <= 2) throw new MqError(ExitCode.unavailable, 'read', 'HTTP 503');
        return n;
      },
      onValue: () => true,
    });
    expect(r).toBe('done');
    expect(io.stderr.join('')).toContain('reading the thing failed (HTTP 503); retrying');
    // Each failure doubles the interval: 40 ms after the first, 80 ms after the second.
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(70);
  });

  it('stops with timeout at the deadline; other errors pass through', async () => {
    const { ctx } = ctxWith();
    expect(await poll(ctx, { intervalMs: 10, deadline: Date.now() + 50, what: 'x', read: async () => 0, onValue: () => false })).toBe('timeout');
    await expect(poll(ctx, { intervalMs: 10, what: 'x', read: async () => Promise.reject(new MqError(ExitCode.auth, 'read', '401')), onValue: () => true })).rejects.toMatchObject({ exitCode: 4 });
  });

  it('Ctrl-C ends a sleep as interrupted', async () => {
    const ac = new AbortController();
    const { ctx } = ctxWith(ac.signal);
    setTimeout(() => ac.abort(), 30);
    await expect(poll(ctx, { intervalMs: 10_000, what: 'x', read: async () => 0, onValue: () => false })).rejects.toMatchObject({ exitCode: 130 });
  });
});
