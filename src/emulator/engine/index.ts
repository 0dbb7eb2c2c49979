// The merge-queue engine (pure: state + time in, state + effects out). D1..D16 and its own
// choices, where the sources are silent or disagree: DECISIONS.md.
export { QueueEngine, type EngineOptions, type PrRef, type QueueRef } from './engine.js';
export { EngineError, type EngineErrorKind } from './errors.js';
export { createState, validateState } from './state.js';
export { overlaps, targetsOf } from './targets.js';
export { resolvePriority, type QueueUpdate } from './config.js';
export { ESTIMATE_HORIZON_MS, type EstimateUnavailable, type EstimateView } from './estimate.js';
export type { FakePrInput, FakePrView } from './fake-prs.js';
export type { Readiness } from './lifecycle.js';
export type { QueueMetricsSnapshot } from './metrics.js';
export type { ListQuery } from './pr-ops.js';
export { MAX_BATCH_LOOKUP, MAX_WINDOW_DAYS, type TestingResultsQuery } from './history.js';
export * from './types.js';
export type {
  EntryView,
  PullRequestView,
  QueueView,
  QueueWithEntriesView,
  RunDetailsView,
  RunView,
  TestingResultView,
  TimelineItemView,
} from './views.js';
