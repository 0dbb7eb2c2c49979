/** The client's own spacing of `GET /v2/pull-requests*` under Trunk's 5 per second per key. */
import { expect, it } from 'vitest';
import { Pace } from '../../src/api/v2/pace.js';

it('the sixth read in a second waits for the first to leave the window', async () => {
  let now = 10_000;
  const waits: number[] = [];
  const pace = new Pace(
    5,
    () => now,
    async (ms) => {
      waits.push(ms);
      now += ms;
    },
  );
  const starts: number[] = [];
  for (let i = 0; i < 12; i++) {
    await pace.turn();
    starts.push(now);
    now += 10;
  }
  expect(waits).toEqual([950, 950]);
  for (let i = 5; i < starts.length; i++)
    expect((starts[i] as number) - (starts[i - 5] as number)).toBeGreaterThanOrEqual(1000);
});
