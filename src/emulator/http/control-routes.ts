/**
 * The control API under `/_emulator` (same token): script the fake code host and the simulated
 * CI, move a manual clock, list and finish test runs, list webhook deliveries, reset. Answers are
 * JSON so tests can read what they changed.
 */
import { HttpError, OK } from './respond.js';
import { route, type Route } from './route.js';
import * as s from './schemas.js';
import { iso, wireRun } from './wire.js';

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, `malformed test run id in the path: ${s}`);
  }
}

export const controlRoutes: Route[] = [
  route('POST', '/_emulator/pullRequests', s.fakePrRequest, true, (c, b) => ({
    json: c.engine.upsertFakePr(b, c.now),
  })),
  route('GET', '/_emulator/clock', undefined, false, (c) => ({
    json: { clock: c.clock.kind, speed: c.clock.speed, now: iso(c.engine.advance(c.now)) },
  })),
  route('POST', '/_emulator/clock/advance', s.advanceRequest, true, (c, b) => {
    if (c.clock.kind !== 'manual') {
      throw new HttpError(400, 'the emulator runs on the real clock; start it with --clock manual to advance time by hand');
    }
    const now = c.engine.advance(c.engine.now + Math.round(b.minutes * 60_000));
    return { json: { now: iso(now) } };
  }),
  route('GET', '/_emulator/testRuns', undefined, false, (c) => {
    const q = c.url.searchParams;
    const filter: Record<string, string> = {};
    for (const k of ['host', 'owner', 'name', 'branch'] as const) {
      const v = q.get(k);
      if (v !== null && v !== '') filter[k] = v;
    }
    c.engine.advance(c.now);
    return { json: { testRuns: c.engine.listRuns(filter).map(wireRun) } };
  }),
  route('POST', /^\/_emulator\/testRuns\/([^/]+)\/complete$/, s.completeRunRequest, true, (c, b) => ({
    json: wireRun(c.engine.completeRun(safeDecode(c.params[0] ?? ''), b.result, c.now)),
  })),
  route('GET', '/_emulator/webhookDeliveries', undefined, false, (c) => ({
    json: { deliveries: c.webhooks?.list() ?? [] },
  })),
  route('POST', '/_emulator/reset', undefined, true, (c) => {
    c.engine.reset(c.now);
    return OK;
  }),
];
