// Setting names --compare accepts (updateQueue fields and `mq queue update` flags, plus `batch=N`) and the baseline.
import type { QueueInfo } from '../domain/types.js';
import { MAX_U32, OPTIMIZATION_MODES, QUEUE_MODES } from '../domain/vocabulary.js';
import { UsageError } from '../errors.js';
import type { SimSettings } from './model.js';

type Kind = { type: 'int'; min: number; max?: number } | { type: 'bool' } | { type: 'enum'; values: readonly string[] };

interface SettingDef {
  field: keyof SimSettings;
  flag: string;
  kind: Kind;
}

// Caps on runs in flight and batch size: the engine keeps each run's base, so memory grows with the square.
export const MAX_IN_FLIGHT = 500;

const DEFS: SettingDef[] = [
  { field: 'concurrency', flag: 'concurrency', kind: { type: 'int', min: 1, max: MAX_IN_FLIGHT } },
  { field: 'bisectionConcurrency', flag: 'bisection-concurrency', kind: { type: 'int', min: 1, max: MAX_IN_FLIGHT } },
  { field: 'testingTimeoutMinutes', flag: 'testing-timeout', kind: { type: 'int', min: 1 } },
  { field: 'pendingFailureDepth', flag: 'pending-failure-depth', kind: { type: 'int', min: 0 } },
  { field: 'batchingMaxWaitTimeMinutes', flag: 'batching-max-wait', kind: { type: 'int', min: 0 } },
  { field: 'batchingMinSize', flag: 'batching-min-size', kind: { type: 'int', min: 1, max: MAX_IN_FLIGHT } },
  { field: 'canOptimisticallyMerge', flag: 'optimistic-merge', kind: { type: 'bool' } },
  { field: 'batch', flag: 'batch', kind: { type: 'bool' } },
  { field: 'mode', flag: 'mode', kind: { type: 'enum', values: QUEUE_MODES } },
  { field: 'optimizationMode', flag: 'optimization', kind: { type: 'enum', values: OPTIMIZATION_MODES } },
];

/** Settings of `queue update` that do not change when or how runs happen in the model. */
const NOT_MODELLED = new Map<string, string>([
  ['directMergeMode', 'direct merges need PRs up to date with the branch, which the model does not track'],
  ['direct-merge', 'direct merges need PRs up to date with the branch, which the model does not track'],
  ...[
    'mergeMethod',
    'merge-method',
    'commentsEnabled',
    'comments',
    'commandsEnabled',
    'commands',
    'statusCheckEnabled',
    'status-check',
    'createPrsForTestingBranches',
    'testing-branch-prs',
    'requiredStatuses',
    'required-status',
  ].map((n) => [n, 'it does not change when or how the queue tests and merges'] as [string, string]),
]);

const BY_NAME = new Map<string, SettingDef>();
for (const d of DEFS) {
  BY_NAME.set(d.field.toLowerCase(), d);
  BY_NAME.set(d.flag, d);
}

export const SETTING_NAMES: readonly string[] = [...DEFS.map((d) => d.flag), 'batch=N'];

const CAP_HINT =
  `the planner simulates at most ${MAX_IN_FLIGHT} runs in flight and ${MAX_IN_FLIGHT} PRs per batch: its ` +
  `memory grows with the square of the PRs in flight`;

const TRUE = ['true', 'on', 'yes', '1'];
const FALSE = ['false', 'off', 'no', '0'];

function bad(why: string, hint?: string): UsageError {
  return new UsageError(`--compare: ${why}`, {
    hints: [
      ...(hint ? [hint] : []),
      `settings: ${DEFS.map((d) => d.flag).join(', ')} (or their API names), batch=N for batching on with ` +
        `batchingMinSize N`,
      "for example: --compare 'concurrency=8,batch=4'",
    ],
  });
}

/** Parses `concurrency=8,batch=4` into settings changes; throws a usage error naming the rule. */
export function parseCompare(text: string): Partial<SimSettings> {
  const out: Record<string, unknown> = {};
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === ''))
    throw bad(`${JSON.stringify(text)} has an empty setting; expected name=value[,name=value…]`);
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw bad(`${JSON.stringify(part)} is not name=value`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    const key = name.replace(/^--/, '');
    const why = NOT_MODELLED.get(key);
    if (why) throw bad(`${name} is not simulated: ${why}`);
    const def = BY_NAME.get(key.toLowerCase()) ?? BY_NAME.get(key);
    if (!def) throw bad(`unknown setting ${JSON.stringify(name)}`);
    const lower = value.toLowerCase();
    if (def.field === 'batch' && /^\d+$/.test(value)) {
      const n = Number(value);
      if (n < 1 || n > MAX_IN_FLIGHT)
        throw bad(`batch=${value}: the batch size must be an integer from 1 to ${MAX_IN_FLIGHT}`, CAP_HINT);
      out.batch = true;
      out.batchingMinSize = n;
      continue;
    }
    if (def.kind.type === 'int') {
      const max = def.kind.max ?? MAX_U32;
      if (!/^\d+$/.test(value) || Number(value) < def.kind.min || Number(value) > max) {
        throw bad(
          `${name}=${value}: must be an integer from ${def.kind.min} to ${max}`,
          max < MAX_U32 && /^\d+$/.test(value) ? CAP_HINT : undefined,
        );
      }
      out[def.field] = Number(value);
    } else if (def.kind.type === 'bool') {
      if (TRUE.includes(lower)) out[def.field] = true;
      else if (FALSE.includes(lower)) out[def.field] = false;
      else throw bad(`${name}=${value}: expected true or false${def.field === 'batch' ? ', or a batch size' : ''}`);
    } else {
      const hit = def.kind.values.find((v) => v === lower);
      if (!hit) throw bad(`${name}=${value}: expected one of ${def.kind.values.join(', ')}`);
      out[def.field] = hit;
    }
  }
  return out as Partial<SimSettings>;
}

/** A canonical label for a settings change: `concurrency=8,batch=4` as typed, normalised. */
export function compareLabel(text: string): string {
  return text
    .split(',')
    .map((p) => p.trim().replace(/\s*=\s*/, '='))
    .join(',');
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/**
 * Simulation settings from a queue; a bisectionConcurrency equal to concurrency reads as "not configured"
 * (so a compared concurrency keeps sharing); values past the caps are lowered, noted in `clamped`.
 */
export function settingsFromQueue(q: QueueInfo, clamped: string[] = []): SimSettings {
  const cap = (field: string, v: number | undefined): number | undefined => {
    if (v === undefined || v <= MAX_IN_FLIGHT) return v;
    clamped.push(`the queue's ${field} ${v} is more than the planner simulates; simulated as ${MAX_IN_FLIGHT}`);
    return MAX_IN_FLIGHT;
  };
  const concurrency = Math.max(1, Math.floor(cap('concurrency', num(q.concurrency)) ?? 1));
  // Compared before the cap: a shared value stays shared.
  const shared = num(q.bisectionConcurrency) === num(q.concurrency);
  const bis = shared ? concurrency : cap('bisectionConcurrency', num(q.bisectionConcurrency));
  const mode = String(q.mode ?? 'single').toLowerCase() === 'parallel' ? 'parallel' : 'single';
  const opt =
    String(q.optimizationMode ?? 'off').toLowerCase() === 'bisection_skip_redundant_tests'
      ? 'bisection_skip_redundant_tests'
      : 'off';
  return {
    mode,
    concurrency,
    bisectionConcurrency: bis === undefined || bis === concurrency || bis < 1 ? null : Math.floor(bis),
    batch: bool(q.batch) ?? false,
    batchingMinSize: Math.max(1, Math.floor(cap('batchingMinSize', num(q.batchingMinSize)) ?? 4)),
    batchingMaxWaitTimeMinutes: Math.max(0, Math.floor(num(q.batchingMaxWaitTimeMinutes) ?? 5)),
    pendingFailureDepth: Math.max(0, Math.floor(num(q.pendingFailureDepth) ?? 0)),
    canOptimisticallyMerge: bool(q.canOptimisticallyMerge) ?? false,
    optimizationMode: opt,
    testingTimeoutMinutes: Math.max(1, Math.floor(num(q.testingTimeoutMinutes) ?? 300)),
  };
}

/** The settings that differ from `base`, as a compact label (`concurrency=8,batch=on`). */
export function describeChanges(base: SimSettings, s: SimSettings): string {
  const parts: string[] = [];
  for (const d of DEFS) {
    if (base[d.field] !== s[d.field]) parts.push(`${d.flag}=${String(s[d.field] ?? 'shared')}`);
  }
  return parts.join(',');
}
