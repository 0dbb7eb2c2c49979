// `mq status 42 --eta`: the ETA row of the in-the-queue block, its plain line and its JSON.
import { type PlainColumns, plainColumns } from '../output/plain.js';
import type { Field, Row } from '../output/render.js';
import { formatDuration } from '../util/duration.js';

/** mq's own estimator backtested on this queue's recent merges. */
export interface EtaMeasured {
  withinP90: number;
  medianErrorShare: number;
  prs: number;
}

export type EtaView =
  | {
      source: 'service' | 'simulation';
      p50: number;
      p90: number | null;
      failProbability: number | null;
      /** null: too little history to measure; undefined: not measured (the service's estimate). */
      measured?: EtaMeasured | null;
    }
  | { unavailable: string };

export const ETA_PLAIN: PlainColumns = plainColumns(
  'with --eta, after the position line: the source (service or simulation; empty when unavailable), p50 and ' +
    'p90 merge times (ISO), the chance it fails instead, the share of recent merges within the p90, the median ' +
    'error as a share of time in queue and how many merges those were measured on, or why there is no ETA',
  ['source', 'p50', 'p90', 'fail_probability', 'within_p90', 'median_error_share', 'measured_prs', 'unavailable'],
  'eta',
);

const iso = (t: number | null) => (t === null ? '' : new Date(t).toISOString());
const pct = (x: number) => `${Math.round(x * 100)}%`;
const clock = (t: number) => `${new Date(t).toISOString().slice(11, 16)} UTC`;
const inTime = (t: number, now: number) => (t <= now ? 'now' : `in ${formatDuration(t - now)}`);

/** On a terminal: "in 25m – 40m (14:05 – 14:20 UTC)"; `now` is the service's clock. */
export function etaInterval(e: { p50: number; p90: number | null }, now: number): string {
  if (e.p90 === null || e.p90 === e.p50) return `${inTime(e.p50, now)} (${clock(e.p50)})`;
  return `${inTime(e.p50, now)} – ${inTime(e.p90, now).replace(/^in /, '')} (${clock(e.p50)} – ${clock(e.p90)})`;
}

function measuredText(m: EtaMeasured | null | undefined): string | null {
  if (m === undefined) return null;
  if (m === null) return 'error not measured: too few recent merges on this queue';
  return `${pct(m.withinP90)} of ${m.prs} recent merges within p90, median error ${pct(m.medianErrorShare)}`;
}

export function etaField(e: EtaView, now: number): Field {
  if ('unavailable' in e) return { key: 'eta', label: 'ETA', value: `unavailable: ${e.unavailable}` };
  const parts = [e.source === 'service' ? "service's estimate" : "mq's simulation"];
  if (e.failProbability !== null) parts.push(`${pct(e.failProbability)} chance it fails instead`);
  const m = measuredText(e.measured);
  if (m !== null) parts.push(m);
  return { key: 'eta', label: 'ETA', value: `${etaInterval(e, now)}; ${parts.join('; ')}` };
}

export function etaPlainRow(e: EtaView): Row {
  if ('unavailable' in e)
    return ETA_PLAIN.row({
      source: '',
      p50: '',
      p90: '',
      fail_probability: '',
      within_p90: '',
      median_error_share: '',
      measured_prs: '',
      unavailable: e.unavailable,
    });
  const m = e.measured ?? null;
  return ETA_PLAIN.row({
    source: e.source,
    p50: iso(e.p50),
    p90: iso(e.p90),
    fail_probability: e.failProbability === null ? '' : String(e.failProbability),
    within_p90: m ? String(m.withinP90) : '',
    median_error_share: m ? String(m.medianErrorShare) : '',
    measured_prs: m ? String(m.prs) : '',
    unavailable: '',
  });
}

export function etaJson(e: EtaView): Record<string, unknown> {
  if ('unavailable' in e) return { unavailable: e.unavailable };
  return {
    source: e.source,
    p50: iso(e.p50),
    p90: e.p90 === null ? null : iso(e.p90),
    failProbability: e.failProbability,
    measured: e.measured ?? null,
  };
}
