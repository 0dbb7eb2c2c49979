import { describe, expect, it } from 'vitest';
import { ExitCode, MqError } from '../../src/errors.js';
import { MIN_POLL_MS, poll } from '../../src/util/poll.js';
import { virtualClock } from '../helpers/clock.js';

const unavailable = () => new MqError(ExitCode.unavailable, 'read', 'HTTP 503');

function deps(signal = new AbortController().signal) {
  return { clock: virtualClock(), signal };
}

describe('poll (virtual time)', () => {
  it('hands values over until one ends the loop, sleeping the interval between reads', async () => {
    const d = deps();
    const seen: number[] = [];
    let n = 0;
    const r = await poll(d, {
      intervalMs: 1000,
      what: 'x',
      read: async () => ++n,
      onValue: (v) => (seen.push(v), v === 3),
    });
    expect(r).toBe('done');
    expect(seen).toEqual([1, 2, 3]);
    expect(d.clock.sleeps).toEqual([1000, 1000]);
  });

  it('reports a transient failure, doubles the interval, and goes on', async () => {
    const d = deps();
    const blips: string[] = [];
    let n = 0;
    const r = await poll(d, {
      intervalMs: 20,
      what: 'reading the thing',
      read: async () => {
        if (++n <= 2) throw unavailable();
        return n;
      },
      onValue: () => true,
      onBlip: (m) => blips.push(m),
    });
    expect(r).toBe('done');
    expect(blips).toEqual([
      'reading the thing failed (HTTP 503); retrying',
      'reading the thing failed (HTTP 503); retrying',
    ]);
    expect(d.clock.sleeps).toEqual([40, 80]);
  });

  it('every read gets the deadline and the signal as call options', async () => {
    const d = deps();
    const deadline = d.clock.now() + 10_000;
    const calls: unknown[] = [];
    await poll(d, {
      intervalMs: 1000,
      deadline,
      what: 'x',
      read: async (call) => (calls.push(call), 0),
      onValue: () => true,
    });
    expect(calls).toEqual([{ deadline, signal: d.signal }]);
  });

  it('stops with timeout at the deadline, and never sends a poll with less than MIN_POLL_MS left', async () => {
    const d = deps();
    const start = d.clock.now();
    const deadline = start + 1000;
    const sentAt: number[] = [];
    const r = await poll(d, {
      intervalMs: 300,
      deadline,
      what: 'x',
      read: async () => (sentAt.push(d.clock.now()), 0),
      onValue: () => false,
    });
    expect(r).toBe('timeout');
    for (const t of sentAt) expect(deadline - t).toBeGreaterThanOrEqual(MIN_POLL_MS);
    // It waits out the deadline rather than stopping early.
    expect(d.clock.now()).toBe(deadline);
  });

  it('a wait that never reached the service ends with its last failure (exit 6), not timeout', async () => {
    const d = deps();
    const blips: string[] = [];
    let reads = 0;
    const read = async () => {
      reads++;
      throw unavailable();
    };
    const run = poll(d, {
      intervalMs: 100,
      deadline: d.clock.now() + 1000,
      what: 'x',
      read,
      onValue: () => false,
      onBlip: (m) => blips.push(m),
    });
    await expect(run).rejects.toMatchObject({
      exitCode: ExitCode.unavailable,
      hints: [expect.stringContaining('no poll reached the service')],
    });
    // No "retrying" after the last try.
    expect(reads).toBeGreaterThan(1);
    expect(blips).toHaveLength(reads - 1);
  });

  it('a wait that reached the service once ends with timeout even when later polls fail', async () => {
    const d = deps();
    let n = 0;
    const r = await poll(d, {
      intervalMs: 100,
      deadline: d.clock.now() + 1000,
      what: 'x',
      read: async () => {
        if (n++ > 0) throw unavailable();
        return 0;
      },
      onValue: () => false,
    });
    expect(r).toBe('timeout');
  });

  it('other errors pass through', async () => {
    await expect(
      poll(deps(), {
        intervalMs: 10,
        what: 'x',
        read: async () => Promise.reject(new MqError(ExitCode.auth, 'read', '401')),
        onValue: () => true,
      }),
    ).rejects.toMatchObject({ exitCode: 4 });
  });

  it('Ctrl-C ends a sleep as interrupted', async () => {
    const ac = new AbortController();
    const d = deps(ac.signal);
    let n = 0;
    await expect(
      poll(d, {
        intervalMs: 10_000,
        what: 'x',
        read: async () => {
          if (++n === 2) ac.abort();
          return 0;
        },
        onValue: () => false,
      }),
    ).rejects.toMatchObject({ exitCode: 130 });
  });
});
