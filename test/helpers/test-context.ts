/**
 * A Context for in-process tests: string streams, chosen TTY flags, scripted prompt answers and a
 * fixed clock. Also builders for realistic service records used by the queue tests.
 */
import { Context } from '../../src/context.js';
import { fixedClock } from './clock.js';
import { type MemoryIO, memoryIO } from './memory-io.js';
import { tempDir, TOKEN } from './run-cli.js';

export type TestIO = MemoryIO;

export interface TestContextOptions {
  apiUrl?: string;
  env?: Record<string, string | undefined>;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  /** Answers given to prompts, in order; a prompt with no answer left fails the test. */
  answers?: string[];
  now?: number;
}

export const FIXED_NOW = Date.parse('2026-11-22T12:00:00.000Z');

export function testContext(opts: TestContextOptions = {}): { ctx: Context; io: TestIO } {
  const io: TestIO = memoryIO({
    stdoutIsTTY: opts.stdoutIsTTY,
    stderrIsTTY: opts.stderrIsTTY,
    stdinIsTTY: opts.stdinIsTTY,
    answers: opts.answers,
  });
  const env: NodeJS.ProcessEnv = {
    MQ_CONFIG_DIR: tempDir('mq-config-'),
    MQ_RETRY_BASE_MS: '5',
    ...(opts.apiUrl
      ? { MQ_API_URL: opts.apiUrl, MQ_TOKEN: TOKEN, MQ_REPO: 'github.com/acme/widgets', MQ_BRANCH: 'main' }
      : {}),
    ...opts.env,
  };
  const now = opts.now ?? FIXED_NOW;
  const ctx = new Context({ env, io, cwd: tempDir('mq-cwd-'), clock: fixedClock(now) });
  return { ctx, io };
}

// ---- builders --------------------------------------------------------------------------------

/** Minutes before FIXED_NOW, as the service writes times. */
export function minutesAgo(m: number, now = FIXED_NOW): string {
  return new Date(now - m * 60_000).toISOString();
}

export function entry(prNumber: number, state: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `00000000-0000-4000-8000-${String(prNumber).padStart(12, '0')}`,
    state,
    stateChangedAt: minutesAgo(5),
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    prNumber,
    prTitle: `Change number ${prNumber}`,
    prSha: `${String(prNumber).padStart(4, '0')}aedddd30582f9a457ddf459c5d3a97d1d`,
    prBaseBranch: 'main',
    prAuthor: 'octocat',
    ...extra,
  };
}

/** A getQueue answer shaped like the live service's, settings overridable. */
export function queueRecord(
  overrides: Record<string, unknown> = {},
  prs: Array<Record<string, unknown>> = [],
): Record<string, unknown> {
  return {
    state: 'running',
    branch: 'main',
    concurrency: 3,
    testingTimeoutMinutes: 60,
    mode: 'single',
    canOptimisticallyMerge: true,
    pendingFailureDepth: 2,
    batch: true,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 2,
    createPrsForTestingBranches: false,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: 2,
    requiredStatuses: ['ci/build'],
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
    enqueuedPullRequests: prs,
    labelCommandsEnabled: true,
    ...overrides,
  };
}
