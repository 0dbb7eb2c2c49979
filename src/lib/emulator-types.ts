// Public types of the emulator fixture, written out to keep the .d.ts small; the checks at the bottom
// fail the build if the engine's wire shapes drift from them.
import type { FakePrInput, FakePrView } from '../emulator/engine/index.js';
import type { WireRun } from '../emulator/http/wire-runs.js';
import type { WebhookTarget } from '../emulator/webhooks.js';
import type { RepoRef } from './types.js';

export interface StartEmulatorOptions {
  /** 'manual' (default): time stands still until `advance(minutes)`. 'real': runs finish on their own. */
  clock?: 'manual' | 'real';
  /** Engine minutes per wall minute on the real clock (default 1). */
  speed?: number;
  /** The token to accept (default: a random one). */
  token?: string;
  /** The v2 API key to accept, with every permission (default: a random `trunk_v2_…` one). */
  apiKey?: string;
  /** v2 rate limits, as the service applies them (default true). */
  rateLimits?: boolean;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Seed of the ids and SHAs the emulator makes up, for repeatable runs. */
  seed?: number;
  /** The emulator's time at start (default: now). */
  startTime?: Date | string;
  /** Keep the state in this directory (default: memory only). */
  dataDir?: string;
  /** Webhook receivers, each with its `whsec_…` signing secret. */
  webhooks?: EmulatorWebhookTarget[];
  /** Receives the emulator's log lines (default: none). */
  log?: (line: string) => void;
}

export interface EmulatorWebhookTarget {
  url: string;
  /** `whsec_` + base64 key. */
  secret: string;
}

export type RunOutcome = 'pass' | 'fail' | 'hang';

export interface FakePullRequestInput {
  repo: RepoRef;
  number: number;
  title?: string;
  author?: string;
  sha?: string;
  /** Its head branch (default `pr-<number>`): v2 resolves a PR by it. */
  branch?: string;
  /** The branch the PR targets (default: the queue's branch when first submitted). */
  baseBranch?: string;
  /** False keeps it not_ready (not mergeable on the code host). */
  mergeable?: boolean;
  /** Every run containing this PR fails. */
  breaksBuild?: boolean;
  /** What its next runs do, in order: 'pass', 'fail' or 'hang' (never finishes). */
  outcomes?: RunOutcome[];
  /** Length of its test runs in emulator minutes (default 10). */
  testMinutes?: number;
  /** Based on the tip of its base branch (needed for direct merge). */
  upToDate?: boolean;
}

export interface FakePullRequest {
  repo: RepoRef;
  number: number;
  title: string;
  author: string;
  sha: string;
  /** Present when set through `createPullRequest`. */
  branch?: string;
  baseBranch: string | null;
  mergeable: boolean;
  breaksBuild: boolean;
  outcomes: RunOutcome[];
  testMinutes: number;
  upToDate: boolean;
}

export interface EmulatorRun {
  id: string;
  /** The PRs this run tests. */
  prNumbers: number[];
  /** The PRs ahead of them that the run's base includes. */
  basePrNumbers: number[];
  status: 'in_progress' | 'succeeded' | 'failed' | 'cancelled';
  createdAt: string;
  completedAt: string | null;
  isBisection: boolean;
  testBranch: string;
  repo: RepoRef;
  branch: string;
}

// ---- drift checks (compile time only) ------------------------------------------------------------
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameRun: Same<Pick<WireRun, keyof EmulatorRun>, EmulatorRun> = true;
const sameFakePr: Same<Pick<FakePrView, keyof FakePullRequest>, FakePullRequest> = true;
const inputFits: [FakePullRequestInput] extends [FakePrInput] ? true : false = true;
const webhookFits: [EmulatorWebhookTarget] extends [WebhookTarget] ? true : false = true;
void [sameRun, sameFakePr, inputFits, webhookFits];
