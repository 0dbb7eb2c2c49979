// `mq wait`'s ETA on its progress lines: the service's estimate (v2, where served) read once per
// ESTIMATE_EVERY polls, or with --eta mq's simulation (src/commands/status-eta.ts) at most every few minutes.
import type { MergeQueueService } from '../api/service.js';
import type { Deps, Target } from '../context.js';
import { ExitCode, MqError } from '../errors.js';

/** Polls per estimate read. */
export const ESTIMATE_EVERY = 4;
const SIMULATE_EVERY_MS = 5 * 60_000;

export type WaitEta = 'service' | 'simulation';
type Interval = { p50: number; p90: number | null };

/** Called once per poll of a live PR: the latest interval, or null (none served: nothing shown). */
export function etaReader(deps: Deps, client: MergeQueueService, target: Target, pr: number, mode: WaitEta) {
  let polls = 0;
  let off = false;
  let simulatedAt = Number.NEGATIVE_INFINITY;
  let latest: Interval | null = null;
  const req = { repo: target.repo, targetBranch: target.targetBranch, pr: { number: pr } };
  const read = async (now: number): Promise<Interval | null> => {
    if (mode === 'simulation') {
      const { statusEta } = await import('./status-eta.js');
      const order = await client.getOrder(target).catch(() => null);
      const place = { target, origin: deps.connection().apiUrl.value, env: deps.env };
      const e = await statusEta(place, client, pr, order, now);
      return 'unavailable' in e ? null : e;
    }
    const e = await client.getEstimate(req);
    if (e === undefined) off = true;
    return e?.status === 'available' && e.kind === 'merge' && typeof e.estimatedAt === 'number'
      ? { p50: e.estimatedAt, p90: null }
      : null;
  };
  return async (): Promise<Interval | null> => {
    const k = polls++;
    if (off) return null;
    const now = client.serviceNow(() => deps.clock.now());
    const due = mode === 'simulation' ? now - simulatedAt >= SIMULATE_EVERY_MS : k % ESTIMATE_EVERY === 0;
    if (!due) return latest;
    if (mode === 'simulation') simulatedAt = now;
    try {
      latest = await read(now);
    } catch (err) {
      // The ETA is an extra: only a refused token or Ctrl-C ends the wait.
      if (err instanceof MqError && (err.exitCode === ExitCode.auth || err.exitCode === ExitCode.interrupted))
        throw err;
    }
    return latest;
  };
}
