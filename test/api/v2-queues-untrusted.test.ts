/**
 * The queue side of the v2 wire against a recording fake and on made-up answers: odd answers are
 * carried or refused, never a crash or a loop; the mapping of what the emulator does not send.
 */
import { expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { V2Client } from '../../src/api/v2/client.js';
import { memoryIdStore } from '../../src/api/v2/ids.js';
import { testingDetails } from '../../src/api/v2/queue-wire.js';
import { ExitCode, MqError } from '../../src/errors.js';
import { useFakeServer } from '../helpers/fake-server.js';

const fake = useFakeServer();
const target = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

const http = () =>
  new HttpClient({
    baseUrl: fake.url.replace(/\/v1$/, ''),
    api: 'v2',
    token: 'trunk_v2_k',
    userAgent: 't',
    timeoutMs: 5000,
  });

function client() {
  const ids = memoryIdStore();
  ids.set('repo github.com/acme/app', 'R1');
  ids.set('queue R1 main', 'Q1');
  return new V2Client(http(), ids);
}

const pr = (n: number, state: string) => ({
  id: `P${n}`,
  number: n,
  title: `t${n}`,
  queueEntry: { id: `E${n}`, state },
});

function script(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  fake.on('GET /v2/merge-queues/Q1', {
    status: 200,
    body: { id: 'Q1', targetBranch: 'main', state: 'running', mode: 'queue', config, ...extra },
  });
  fake.on('GET /v2/merge-queues/Q1/order', {
    status: 200,
    body: {
      batches: [],
      pending: [{ pullRequest: { number: 2 } }, { pullRequest: { number: 1 } }],
      awaitingAdmission: [],
    },
  });
}

it('unknown enum values are shown as sent, in mq spelling', async () => {
  script({ mergeMethod: 'fastForward', concurrency: 3 }, { state: 'frozenSolid', mode: 'hybridMode' });
  fake.on('GET /v2/merge-queues/Q1/pull-requests', {
    status: 200,
    body: { data: [pr(1, 'pending'), pr(2, 'waitingForGodot')], hasMore: false },
  });
  const q = await client().getQueue(target);
  expect(q).toMatchObject({ state: 'frozen_solid', mode: 'hybrid_mode', mergeMethod: 'fast_forward', concurrency: 3 });
  expect(q.enqueuedPullRequests?.map((e) => [e.prNumber, e.state])).toEqual([
    [2, 'waiting_for_godot'],
    [1, 'pending'],
  ]);
});

it("a value of the wrong type is the service's fault (exit 1), named", async () => {
  script({ concurrency: 'lots' });
  fake.on('GET /v2/merge-queues/Q1/pull-requests', { status: 200, body: { data: [], hasMore: false } });
  const err = await client()
    .getQueue(target)
    .catch((e) => e);
  expect(err).toBeInstanceOf(MqError);
  expect(err.exitCode).toBe(ExitCode.unexpected);
  expect(err.message).toContain('concurrency');
});

it('a PR list that never ends is read until a cursor repeats', async () => {
  script({});
  fake.on('GET /v2/merge-queues/Q1/pull-requests', {
    status: 200,
    body: { data: [pr(1, 'pending')], hasMore: true, nextCursor: 'same' },
  });
  const q = await client().getQueue(target);
  expect(q.enqueuedPullRequests?.map((e) => e.prNumber)).toEqual([1]);
  expect(fake.requests.filter((r) => r.path === '/v2/merge-queues/Q1/pull-requests')).toHaveLength(2);
});

it('a dry run of create for a repository the service does not know describes its request', async () => {
  fake.on('GET /v2/repositories', { status: 200, body: { data: [], hasMore: false } });
  const described: string[] = [];
  const dry = new V2Client(http(), memoryIdStore(), { dryRun: (d) => described.push(`${d.method} ${d.body}`) });
  await dry.createQueue({ ...target, targetBranch: 'new' });
  expect(described).toEqual(['POST {"repositoryId":"REPOSITORY_ID","targetBranch":"new"}']);
  const real = new V2Client(http(), memoryIdStore());
  const err = await real.createQueue({ ...target, targetBranch: 'new' }).catch((e) => e);
  expect(err.exitCode).toBe(ExitCode.notFound);
});

it('checks go back to check runs and commit statuses, target sets to lists', () => {
  const d = testingDetails({
    status: 'failed',
    requiredStatusesSource: 'repoProviderBranchProtection',
    checks: [
      {
        kind: 'checkRun',
        name: 'build',
        url: 'u1',
        status: 'completed',
        conclusion: 'failure',
        providerStatus: 'COMPLETED',
        providerConclusion: 'FAILURE',
      },
      { kind: 'checkRun', name: 'lint', url: null, status: 'inProgress', conclusion: 'neutral' },
      {
        kind: 'statusCheck',
        name: 'ci/legacy',
        url: 'u2',
        status: 'completed',
        conclusion: 'failure',
        providerConclusion: 'ERROR',
      },
    ],
    testedPullRequests: [{ number: 4, url: 'https://github.com/acme/app/pull/4', title: 'four' }],
    dependentPullRequests: [{ number: 2 }, { number: 3 }],
    impactedTargets: {
      all: { impactsAllTargets: true, impactedTargets: [] },
      testedPullRequestsOnly: { impactsAllTargets: false, impactedTargets: ['//a'] },
    },
  });
  expect(d).toMatchObject({
    status: 'failed',
    requiredStatusesSource: 'repo_provider_branch_protection',
    checkSuites: [
      {
        checkRuns: [
          { name: 'build', url: 'u1', status: 'COMPLETED', conclusion: 'FAILURE' },
          { name: 'lint', url: null, status: 'IN_PROGRESS' },
        ],
      },
    ],
    statusChecks: [{ context: 'ci/legacy', url: 'u2', state: 'ERROR' }],
    testedPullRequests: [{ prNumber: 4, prUrl: 'https://github.com/acme/app/pull/4', title: 'four' }],
    impactedTargets: ['ALL'],
    impactedTargetsForTestedPrs: ['//a'],
    dependentPrs: [2, 3],
  });
  expect(testingDetails({}).requiredStatusesSource).toBe('trunk_config');
});
