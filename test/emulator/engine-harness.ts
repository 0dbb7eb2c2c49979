/**
 * A virtual-clock harness for engine scenarios: minutes from t=0, the queue-semantics §4.0 default
 * config (concurrency 10, PFD 0, optimistic merging off, 60 min timeout), and helpers to read the
 * states, the merge order and the runs.
 */
import type { PrState } from '../../src/domain/vocabulary.js';
import {
  QueueEngine,
  createState,
  type BatchEffect,
  type PrStateEffect,
  type QueueUpdate,
} from '../../src/emulator/engine/index.js';

export const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);
export const repo = { host: 'github.com', owner: 'acme', name: 'app' };
export const targetBranch = 'main';
const q = { repo, targetBranch };

export interface FakeOpts {
  breaksBuild?: boolean;
  outcomes?: Array<'pass' | 'fail' | 'hang'>;
  testMinutes?: number;
  mergeable?: boolean;
  upToDate?: boolean;
  sha?: string;
}

export class Scenario {
  readonly engine: QueueEngine;
  readonly effects: PrStateEffect[] = [];
  readonly batchEffects: BatchEffect[] = [];
  minute = 0;

  constructor(config: QueueUpdate = {}) {
    this.engine = new QueueEngine(createState(42, T0), {
      onEffect: (e) => (e.type === 'pr_state' ? this.effects.push(e) : this.batchEffects.push(e)),
    });
    this.engine.createQueue({ ...q, concurrency: 10 }, this.t);
    this.engine.updateQueue({ ...q, testingTimeoutMinutes: 60, pendingFailureDepth: 0, ...config }, this.t);
  }

  get t(): number {
    return T0 + this.minute * 60_000;
  }

  at(minute: number): this {
    this.minute = minute;
    this.engine.advance(this.t);
    return this;
  }

  pr(n: number, opts: FakeOpts = {}): this {
    this.engine.upsertFakePr({ repo, number: n, ...opts }, this.t);
    return this;
  }

  submit(n: number, priority?: string | number): this {
    this.engine.submit({ ...q, pr: { number: n }, ...(priority !== undefined ? { priority } : {}) }, this.t);
    return this;
  }

  cancel(n: number): this {
    this.engine.cancel({ ...q, pr: { number: n } }, this.t);
    return this;
  }

  restart(n: number): this {
    this.engine.restart({ ...q, pr: { number: n } }, this.t);
    return this;
  }

  /** Uploads impacted targets for the PR's current head SHA. */
  targets(n: number, impactedTargets: string[] | 'ALL'): this {
    const sha = this.engine.state.fakePrs[`${repo.host}/${repo.owner}/${repo.name}#${n}`]?.sha;
    if (sha === undefined) throw new Error(`no fake PR ${n}`);
    this.engine.setImpactedTargets({ ...q, pr: { number: n, sha }, impactedTargets }, this.t);
    return this;
  }

  submitWith(n: number, extra: { priority?: string | number; noBatch?: boolean }): this {
    this.engine.submit({ ...q, pr: { number: n }, ...extra }, this.t);
    return this;
  }

  update(u: QueueUpdate): this {
    this.engine.updateQueue({ ...q, ...u }, this.t);
    return this;
  }

  state(n: number): PrState {
    return this.engine.getSubmittedPullRequest({ ...q, pr: { number: n } }, this.t).state as PrState;
  }

  states(...ns: number[]): Record<number, PrState> {
    return Object.fromEntries(ns.map((n) => [n, this.state(n)]));
  }

  /** PR numbers in the order they merged. */
  merged(): number[] {
    return this.effects.filter((e) => e.to === 'merged').map((e) => e.prNumber);
  }

  runs() {
    return this.engine.listRuns({ branch: targetBranch });
  }

  /** Runs as `PR[base…]` strings, e.g. "3[1,2]", in creation order. */
  runShapes(): string[] {
    return this.runs().map((r) => `${r.prNumbers.join('+')}[${r.basePrNumbers.join(',')}]`);
  }

  /** The states a PR went through, from the effects. */
  path(n: number): string[] {
    return this.effects.filter((e) => e.prNumber === n).map((e) => e.to);
  }

  metrics() {
    const m = this.engine.metrics(this.t)[0];
    if (!m) throw new Error('no queue');
    return m;
  }

  queueOrder(): number[] {
    return this.engine.getQueue(q, this.t).entries.map((e) => e.prNumber);
  }
}
