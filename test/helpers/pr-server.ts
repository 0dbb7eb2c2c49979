/** The recording fake scripted for the PR commands: PR #42's record, and OK to each PR write. */
import { beforeEach } from 'vitest';
import { type FakeServer, useFakeServer } from './fake-server.js';
import { baseEnv } from './run-cli.js';

export const PR_RECORD = {
  id: '36883b5b-bbae-4841-b239-a554d73e6f30',
  state: 'testing',
  stateChangedAt: '2026-11-22T10:00:00.000Z',
  priorityValue: 10,
  priorityName: 'high',
  usedDefaultPriorityName: 'medium',
  skipTheLine: false,
  forceEnqueued: false,
  isCurrentlySubmittedToQueue: true,
  readiness: {
    hasImpactedTargets: false,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'mergeable',
  },
  prNumber: 42,
  prTitle: 'Add the widget cache',
  prSha: '6b91931aedddd30582f9a457ddf459c5d3a97d1d',
  prBaseBranch: 'main',
  prAuthor: 'octocat',
  someFutureField: { kept: true },
};

/** useFakeServer() with those routes scripted again before each test; `env()` points the CLI at it. */
export function usePrServer(): { fake: FakeServer; env: () => ReturnType<typeof baseEnv> } {
  const fake = useFakeServer();
  beforeEach(() => {
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: PR_RECORD });
    for (const route of ['submitPullRequest', 'cancelPullRequest', 'restartTestsOnPullRequest', 'setImpactedTargets'])
      fake.on(`POST /${route}`, { status: 200, body: 'OK' });
  });
  return { fake, env: () => baseEnv(fake.url) };
}
