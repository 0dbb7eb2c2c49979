// `mq status 42 --eta`: the service's estimate where it serves one, else mq's simulation of the live queue
// with its error measured by a small backtest on the queue's recent merges (cached a few hours per queue).
// Loaded only with --eta: it loads the planner.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MergeQueueService } from '../api/service.js';
import { idCacheDir } from '../api/v2/ids.js';
import { checkedDir } from '../boot/cache-files.js';
import type { Target } from '../context.js';
import type { QueueOrder } from '../domain/order.js';
import type { EtaMeasured, EtaView } from '../views/eta.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The backtest: at most this many merges of the last day, fitted on the day before each. */
const MEASURE_MAX_PRS = 40;
const MEASURE_RUNS = 50;
/** Fewer merges measured than this: too little history to say. */
const MEASURE_MIN_PRS = 5;
const CACHE_MS = 4 * HOUR;

export interface StatusEtaOptions {
  runs?: number;
  seed?: number;
}

/** Where the ETA is for: the queue, the API origin and the environment (the cache directory). */
export interface EtaPlace {
  target: Target;
  origin: string;
  env: NodeJS.ProcessEnv;
}

/** The ETA of one PR; `order` is the one status already read (null when unknown). */
export async function statusEta(
  place: EtaPlace,
  client: MergeQueueService,
  pr: number,
  order: QueueOrder | null,
  now: number,
  opts: StatusEtaOptions = {},
): Promise<EtaView> {
  const { target } = place;
  const service = await client.getEstimate({
    repo: target.repo,
    targetBranch: target.targetBranch,
    pr: { number: pr },
  });
  const planner = await import('../planner/index.js');
  if (service?.status === 'available' && service.kind === 'merge' && typeof service.estimatedAt === 'number') {
    const e = planner.chooseEta(service, () => ({ status: 'unavailable', source: 'service', reason: '' }));
    if (e.status === 'available') return { source: 'service', p50: e.p50, p90: e.p90, failProbability: null };
  }
  if (order === null) return { unavailable: "the queue's order could not be read" };
  const queue = await client.getQueue(target);
  const { fetchWindow } = await import('../stats/lazy.js');
  const history = { since: now - 2 * DAY, until: now };
  const data = await fetchWindow(client, target, history, undefined, queue);
  if (data.noTestingHistory !== null)
    return { unavailable: `the service serves no testing history (HTTP ${data.noTestingHistory}) to fit from` };
  const recent = { since: now - DAY, until: now };
  const profile = planner.fitEtaProfile(recent, data.prs, data.attempts);
  const e = planner.estimateMergeTime({ pr, now, order, queue, profile }, opts);
  if (e.status !== 'available' || e.source !== 'simulation')
    return { unavailable: e.status === 'unavailable' ? e.reason : '' };
  const key = `${place.origin} ${target.repo.host}/${target.repo.owner}/${target.repo.name} ${target.targetBranch}`;
  let measured = readMeasured(place, key, now);
  if (measured === undefined) {
    const check = planner.runEtaCheck(
      {
        window: recent,
        historyStart: history.since,
        prs: data.prs,
        attempts: data.attempts,
        queue,
        runs: MEASURE_RUNS,
        seed: opts.seed,
        maxPrs: MEASURE_MAX_PRS,
      },
      [1],
    );
    const row = check.rows[0];
    measured =
      row && row.count >= MEASURE_MIN_PRS && row.withinP90 !== null && row.medianRelError !== null
        ? { withinP90: row.withinP90, medianErrorShare: row.medianRelError, prs: row.count }
        : null;
    writeMeasured(place, key, now, measured);
  }
  return { source: 'simulation', p50: e.p50, p90: e.p90, failProbability: e.failProbability, measured };
}

/** The cache file of one API origin and queue, in a checked directory; null without one. */
function cachePath(place: EtaPlace, key: string): string | null {
  const ids = idCacheDir(place.env, place.env.HOME);
  const dir = ids === undefined ? null : checkedDir(join(dirname(ids), 'eta'));
  return dir === null ? null : join(dir.path, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
}

const share = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 100;

/** undefined: nothing fresh cached. */
function readMeasured(place: EtaPlace, key: string, now: number): EtaMeasured | null | undefined {
  const path = cachePath(place, key);
  if (path === null) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 4096 || (st.mode & 0o077) !== 0) return undefined;
    const c = JSON.parse(readFileSync(fd, 'utf8')) as { at?: unknown; measured?: Partial<EtaMeasured> | null };
    if (typeof c.at !== 'number' || c.at > now || now - c.at > CACHE_MS) return undefined;
    const m = c.measured;
    if (m === null) return null;
    if (!m || !share(m.withinP90) || !share(m.medianErrorShare) || !Number.isInteger(m.prs)) return undefined;
    return { withinP90: m.withinP90 as number, medianErrorShare: m.medianErrorShare as number, prs: m.prs as number };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeMeasured(place: EtaPlace, key: string, now: number, measured: EtaMeasured | null): void {
  const path = cachePath(place, key);
  if (path === null) return;
  try {
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, JSON.stringify({ at: now, measured }), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch {
    // a cache: a failed write costs a backtest next time
  }
}
