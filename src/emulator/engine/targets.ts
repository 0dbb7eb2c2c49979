// Impacted targets and parallel mode's rule (queue-semantics §2.5): a PR depends on every PR ahead whose
// targets overlap, transitively. ALL overlaps any non-empty list; an empty list overlaps nothing.
// Single mode is every PR at ALL.
import type { Entry, QueueRecord, Targets, TestRun, TargetIndex } from './types.js';

const ALL: Targets = 'ALL';

export function isEmpty(t: Targets): boolean {
  return t !== 'ALL' && t.length === 0;
}

export function overlaps(a: Targets, b: Targets): boolean {
  if (isEmpty(a) || isEmpty(b)) return false;
  if (a === 'ALL' || b === 'ALL') return true;
  const [small, big] = a.length <= b.length ? [a, b] : [b, a];
  if (big.length < 8) return small.some((x) => big.includes(x));
  const set = new Set(big);
  return small.some((x) => set.has(x));
}

/** A growing set of targets (ALL absorbs everything). */
export class TargetSet {
  all = false;
  readonly names = new Set<string>();

  constructor(initial?: Targets) {
    if (initial) this.add(initial);
  }

  add(t: Targets): void {
    if (this.all) return;
    if (t === 'ALL') {
      this.all = true;
      this.names.clear();
      return;
    }
    for (const x of t) this.names.add(x);
  }

  get empty(): boolean {
    return !this.all && this.names.size === 0;
  }

  overlaps(t: Targets): boolean {
    if (isEmpty(t) || this.empty) return false;
    if (this.all || t === 'ALL') return true;
    return t.some((x) => this.names.has(x));
  }

  toTargets(): Targets {
    return this.all ? ALL : [...this.names];
  }
}

/** The targets an entry is scheduled with: ALL in single mode (one lane). */
export function targetsOf(q: QueueRecord, e: Entry): Targets {
  return q.config.mode === 'parallel' ? (e.targets ?? []) : ALL;
}

/** A started entry's targets are its group's (a group is in or out of a base as a unit); PENDING: its own. */
export function groupTargetsOf(q: QueueRecord, e: Entry, runs: Record<string, TestRun>): Targets {
  if (q.config.mode !== 'parallel') return ALL;
  if (e.state !== 'pending' && e.runId !== null) {
    const t = runs[e.runId]?.targets;
    if (t) return t;
  }
  return e.targets ?? [];
}

// ---- the waiting-region index ------------------------------------------------------------------

export function indexAdd(ix: TargetIndex, t: Targets | null, delta: 1 | -1): void {
  if (t === null) return;
  if (t === 'ALL') {
    ix.all += delta;
    ix.nonEmpty += delta;
    return;
  }
  if (t.length === 0) return;
  ix.nonEmpty += delta;
  for (const x of new Set(t)) {
    const n = (ix.targets[x] ?? 0) + delta;
    if (n <= 0) delete ix.targets[x];
    else ix.targets[x] = n;
  }
}

/** Whether any waiting entry overlaps `t`. */
export function indexOverlaps(ix: TargetIndex, t: TargetSet): boolean {
  if (t.empty) return false;
  if (t.all) return ix.nonEmpty > 0;
  if (ix.all > 0) return true;
  for (const x of t.names) if ((ix.targets[x] ?? 0) > 0) return true;
  return false;
}
