/**
 * The control API under `/_emulator` (same token): script the fake code host and the simulated
 * CI, move a manual clock, list and finish test runs, list webhook deliveries, switch a queue's v2
 * merge estimates, reset. Answers are JSON so tests can read what they changed.
 */
import { CLOCK_HORIZON } from '../clock.js';
import { HttpError, OK } from './respond.js';
import { route, type Route } from './route.js';
import * as s from './schemas.js';
import { iso } from './wire.js';
import { wireRun } from './wire-runs.js';

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, `malformed test run id in the path: ${s}`);
  }
}

function pageParam(url: URL, name: string, dflt: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new HttpError(400, `${name}: expected integer ${min}..${max}`);
  return n;
}

/** Runs in one answer of `GET /_emulator/testRuns` (a long-lived emulator keeps many thousands). */
export const MAX_RUNS_PAGE = 1000;

export const controlRoutes: Route[] = [
  route('POST', '/_emulator/pullRequests', s.fakePrRequest, true, (c, b) => ({
    json: c.engine.upsertFakePr(b, c.now),
  })),
  route('GET', '/_emulator/clock', undefined, false, (c) => ({
    json: { clock: c.clock.kind, speed: c.clock.speed, now: iso(c.engine.advance(c.now)) },
  })),
  route('POST', '/_emulator/clock/advance', s.advanceRequest, true, (c, b) => {
    if (c.clock.kind !== 'manual') {
      throw new HttpError(
        400,
        'the emulator runs on the real clock; start it with --clock manual to advance time by hand',
      );
    }
    const to = c.engine.now + Math.round(b.minutes * 60_000);
    if (!(to <= CLOCK_HORIZON)) {
      throw new HttpError(
        400,
        `minutes: advancing ${b.minutes} minutes would move the clock past ${iso(CLOCK_HORIZON)}, the ` +
          `latest time the emulator keeps`,
      );
    }
    const now = c.engine.advance(to);
    return { json: { now: iso(now) } };
  }),
  route('GET', '/_emulator/testRuns', undefined, false, (c) => {
    const q = c.url.searchParams;
    const filter: Record<string, string> = {};
    for (const k of ['host', 'owner', 'name', 'branch'] as const) {
      const v = q.get(k);
      if (v !== null && v !== '') filter[k] = v;
    }
    const offset = pageParam(c.url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const take = pageParam(c.url, 'take', MAX_RUNS_PAGE, 1, MAX_RUNS_PAGE);
    c.engine.advance(c.now);
    const runs = c.engine.listRuns(filter);
    return { json: { testRuns: runs.slice(offset, offset + take).map(wireRun), total: runs.length, offset } };
  }),
  route('POST', /^\/_emulator\/testRuns\/([^/]+)\/complete$/, s.completeRunRequest, true, (c, b) => ({
    json: wireRun(c.engine.completeRun(safeDecode(c.params[0] ?? ''), b.result, c.now)),
  })),
  route('POST', '/_emulator/queues/estimates', s.estimatesRequest, true, (c, b) => {
    c.engine.setEstimates(b, c.now);
    return { json: { enabled: b.enabled } };
  }),
  route('GET', '/_emulator/webhookDeliveries', undefined, false, (c) => {
    const offset = pageParam(c.url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const take = pageParam(c.url, 'take', 100, 1, 1000);
    return { json: c.webhooks?.page(offset, take) ?? { deliveries: [], total: 0, offset, dropped: {}, pending: 0 } };
  }),
  route('POST', '/_emulator/reset', undefined, true, (c) => {
    c.engine.reset(c.now);
    return OK;
  }),
];
