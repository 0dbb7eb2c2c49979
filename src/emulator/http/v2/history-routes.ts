/**
 * A queue's finished testing over v2: newest first (v1 pages oldest first, so pages are cut from
 * the end), within `since`..`until` (at most 45 days); `until` defaults to the first page's time and
 * stays fixed for the pages after it (the cursor carries it).
 */
import { EngineError } from '../../engine/index.js';
import { at, queueOf, ref, type V2Route } from './context.js';
import { fromEngine, V2Error } from './errors.js';
import { queueId } from './ids.js';
import { pageAnswer, readPage } from './paging.js';
import { v2TestingResult } from './wire.js';

function instant(raw: string, name: string): number {
  const t = /^\d{4}-\d\d-\d\dT/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(t)) throw new V2Error('VALIDATION_FAILED', `${name}: expected an ISO-8601 date-time`);
  return t;
}

export const historyRoutes: V2Route[] = [
  {
    method: 'GET',
    path: at('merge-queues/{id}/testing-results'),
    handle(c) {
      const q = queueOf(c);
      const sp = c.url.searchParams;
      const rawSince = sp.get('since');
      if (rawSince === null) throw new V2Error('VALIDATION_FAILED', 'since: required');
      const rawUntil = sp.get('until');
      const since = instant(rawSince, 'since');
      const req = readPage(c.url, `testing-results ${queueId(q)}`, `${rawSince}\0${rawUntil ?? ''}`);
      const until = rawUntil !== null ? instant(rawUntil, 'until') : (req.fixed ?? c.now);
      try {
        const window = { ...ref(q), since, until };
        const { total } = c.engine.listTestingResults({ ...window, offset: 0, take: 1 }, c.now);
        const end = total - req.start;
        const start = Math.max(0, end - req.limit);
        const rows =
          end > 0
            ? c.engine.listTestingResults({ ...window, offset: start, take: end - start }, c.now).results.reverse()
            : [];
        return {
          json: pageAnswer(
            req,
            total,
            rows.map((t) => v2TestingResult(q, t)),
            rawUntil === null ? until : undefined,
          ),
        };
      } catch (err) {
        throw err instanceof EngineError ? fromEngine(err) : err;
      }
    },
  },
];
