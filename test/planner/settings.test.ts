/** --compare parsing and the baseline read from a queue. */
import { describe, expect, it } from 'vitest';
import { parseCompare, settingsFromQueue } from '../../src/planner/settings.js';

describe('parseCompare', () => {
  it('takes queue update flag names and API field names', () => {
    expect(parseCompare('concurrency=8, batching-min-size=3')).toEqual({ concurrency: 8, batchingMinSize: 3 });
    expect(parseCompare('canOptimisticallyMerge=true,pendingFailureDepth=2')).toEqual({
      canOptimisticallyMerge: true,
      pendingFailureDepth: 2,
    });
    expect(parseCompare('optimistic-merge=off,mode=parallel')).toEqual({
      canOptimisticallyMerge: false,
      mode: 'parallel',
    });
    expect(parseCompare('optimization=bisection_skip_redundant_tests')).toEqual({
      optimizationMode: 'bisection_skip_redundant_tests',
    });
  });

  it('batch=N turns batching on with batchingMinSize N; batch=on/off only toggles it', () => {
    expect(parseCompare('batch=4')).toEqual({ batch: true, batchingMinSize: 4 });
    expect(parseCompare('batch=on')).toEqual({ batch: true });
    expect(parseCompare('batch=off')).toEqual({ batch: false });
  });

  it('refuses unknown names, bad values and settings the model does not simulate, naming the rule', () => {
    expect(() => parseCompare('concurency=4')).toThrow(/--compare: unknown setting "concurency"/);
    expect(() => parseCompare('concurrency=-1')).toThrow(/concurrency=-1: must be an integer from 1/);
    expect(() => parseCompare('pending-failure-depth=x')).toThrow(/must be an integer from 0/);
    expect(() => parseCompare('mode=graph')).toThrow(/expected one of single, parallel/);
    expect(() => parseCompare('direct-merge=always')).toThrow(/direct-merge is not simulated/);
    expect(() => parseCompare('concurrency=4,,batch=2')).toThrow(/empty setting/);
  });
});

describe('settingsFromQueue', () => {
  it('reads the simulated settings and treats a bisection concurrency equal to concurrency as shared', () => {
    const s = settingsFromQueue({
      concurrency: 5,
      bisectionConcurrency: 5,
      mode: 'PARALLEL',
      batch: true,
      batchingMinSize: 3,
      batchingMaxWaitTimeMinutes: 2,
      pendingFailureDepth: 1,
      canOptimisticallyMerge: true,
      testingTimeoutMinutes: 90,
    });
    expect(s).toEqual({
      mode: 'parallel',
      concurrency: 5,
      bisectionConcurrency: null,
      batch: true,
      batchingMinSize: 3,
      batchingMaxWaitTimeMinutes: 2,
      pendingFailureDepth: 1,
      canOptimisticallyMerge: true,
      optimizationMode: 'off',
      testingTimeoutMinutes: 90,
    });
    expect(settingsFromQueue({ concurrency: 5, bisectionConcurrency: 12 }).bisectionConcurrency).toBe(12);
  });
});
