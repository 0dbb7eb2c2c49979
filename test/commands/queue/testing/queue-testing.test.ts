import { beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../../../helpers/fake-server.js';
import { baseEnv } from '../../../helpers/run-cli.js';
import { runMq } from '../../../helpers/in-process.js';

const TARGET = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const RUN = '5df78918-0d4c-4a55-9a0e-1e1b4f2b8c31';

const DETAILS = {
  requiredStatuses: ['ci/build', 'lint'],
  requiredStatusesSource: 'merge_instance',
  testBranch: `trunk-merge/pr-1815/${RUN}`,
  testBranchSha: '9f2c4e1d7b3a6c5e8f0a1b2c3d4e5f6a7b8c9d0e',
  createdAt: '2026-11-22T09:00:00.000Z',
  status: 'IN_PROGRESS',
  checkSuites: [
    {
      checkRuns: [
        { name: 'ci/build', url: 'https://ci.example.com/runs/1', status: 'COMPLETED', conclusion: 'SUCCESS' },
        { name: 'ci/test', url: 'https://ci.example.com/runs/2', status: 'IN_PROGRESS' },
      ],
    },
  ],
  statusChecks: [{ context: 'lint', url: 'https://lint.example.com/3', state: 'FAILURE' }],
  testedPullRequests: [
    { prNumber: 1815, prUrl: 'https://github.com/acme/widgets/pull/1815', title: 'Faster widget cache' },
    { prNumber: 1816, prUrl: 'https://github.com/acme/widgets/pull/1816', title: 'Fix typo' },
  ],
  dependentPrs: [1810],
};

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getMergeQueueTestingDetails', { status: 200, body: DETAILS });
});
const env = () => baseEnv(fake.url);

describe('mq queue testing', () => {
  for (const arg of [RUN, `trunk-merge/pr-1815/${RUN}`, `refs/heads/trunk-merge/pr-1815/${RUN}`]) {
    it(`asks for the test run id given ${arg.slice(0, 30)}…`, async () => {
      const r = await runMq(['queue', 'testing', arg], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(fake.requests[0]?.path).toBe('/getMergeQueueTestingDetails');
      expect(fake.requests[0]?.body).toEqual({ ...TARGET, testRunId: RUN });
    });
  }

  it('keeps a -bisection suffix', async () => {
    await runMq(['queue', 'testing', `${RUN}-bisection`], { env: env() });
    expect(fake.requests[0]?.body).toEqual({ ...TARGET, testRunId: `${RUN}-bisection` });
  });

  it('piped: key<TAB>value lines, then one line per tested PR and per check', async () => {
    const r = await runMq(['queue', 'testing', RUN], { env: env() });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('status\tin_progress');
    expect(lines).toContain(`test_branch\ttrunk-merge/pr-1815/${RUN}`);
    expect(lines).toContain('test_branch_sha\t9f2c4e1d7b3a6c5e8f0a1b2c3d4e5f6a7b8c9d0e');
    expect(lines).toContain('required_statuses\tci/build,lint');
    expect(lines).toContain('required_statuses_source\tmerge_instance');
    expect(lines).toContain('dependent_prs\t1810');
    expect(lines).toContain('pr\t1815\tFaster widget cache\thttps://github.com/acme/widgets/pull/1815');
    expect(lines).toContain('check\tci/build\tsuccess\ttrue\thttps://ci.example.com/runs/1\tcheck_run');
    expect(lines).toContain('check\tci/test\tin_progress\tfalse\thttps://ci.example.com/runs/2\tcheck_run');
    expect(lines).toContain('check\tlint\tfailure\ttrue\thttps://lint.example.com/3\tstatus');
  });

  it('as a table: status, tested PRs and checks with URLs', async () => {
    const r = await runMq(['queue', 'testing', RUN, '-o', 'table'], { env: env() });
    expect(r.stdout).toMatch(/Status\s+in_progress/);
    expect(r.stdout).toMatch(/Required from\s+the queue settings/);
    expect(r.stdout).toMatch(/#1816\s.*Fix typo/);
    expect(r.stdout).toMatch(/lint\s.*status\s.*failure\s.*yes\s.*https:\/\/lint\.example\.com\/3/);
    expect(r.stdout).toMatch(/ci\/build\s.*check run\s.*success/);
    expect(r.stdout).not.toContain('Count');
  });

  it('identical checks show once with a count; a check run and a status of one name stay apart; JSON and plain keep all', async () => {
    const run = { name: 'unit', url: 'https://ci.example.com/u', status: 'COMPLETED', conclusion: 'SUCCESS' };
    const status = { context: 'unit', url: 'https://ci.example.com/u', state: 'SUCCESS' };
    fake.on('POST /getMergeQueueTestingDetails', {
      status: 200,
      body: {
        ...DETAILS,
        checkSuites: [{ checkRuns: [...Array.from({ length: 76 }, () => run), { ...run, conclusion: 'FAILURE' }] }],
        statusChecks: Array.from({ length: 76 }, () => status),
      },
    });
    for (const output of ['table', 'markdown']) {
      const r = await runMq(['queue', 'testing', RUN, '-o', output], { env: { ...env(), COLUMNS: '160' } });
      expect(r.exitCode).toBe(0);
      const rows = r.stdout.split('\n').filter((l) => /\bunit\b/.test(l));
      expect(rows, output).toHaveLength(3);
      expect(rows[0]).toMatch(/unit\s*│?\|?\s*check run\s.*success\s.*\b76\b.*https:\/\/ci\.example\.com\/u/);
      expect(rows[1]).toMatch(/unit\s*│?\|?\s*check run\s.*failure\s.*\b1\b/);
      expect(rows[2]).toMatch(/unit\s*│?\|?\s*status\s.*success\s.*\b76\b/);
      expect(r.stdout).toMatch(/Count/);
    }
    const plain = await runMq(['queue', 'testing', RUN], { env: env() });
    const checks = plain.stdout.split('\n').filter((l) => l.startsWith('check\t'));
    expect(checks).toHaveLength(153);
    expect(checks.filter((l) => l.endsWith('\tstatus'))).toHaveLength(76);
    const doc = JSON.parse((await runMq(['queue', 'testing', RUN, '--json'], { env: env() })).stdout);
    expect(doc.checkSuites[0].checkRuns).toHaveLength(77);
    expect(doc.statusChecks).toHaveLength(76);
  });

  it('shows only http(s) links: a javascript: or file: URL from the service is left out', async () => {
    fake.on('POST /getMergeQueueTestingDetails', {
      status: 200,
      body: {
        ...DETAILS,
        checkSuites: [
          {
            checkRuns: [
              {
                name: 'ci/build',
                url: 'javascript:alert(document.cookie)',
                status: 'COMPLETED',
                conclusion: 'SUCCESS',
              },
            ],
          },
        ],
        statusChecks: [{ context: 'lint', url: 'file:///etc/passwd', state: 'FAILURE' }],
        testedPullRequests: [{ prNumber: 1815, prUrl: 'JavaScript:alert(1)', title: 'Faster widget cache' }],
      },
    });
    for (const output of ['plain', 'table', 'markdown']) {
      const r = await runMq(['queue', 'testing', RUN, '-o', output], { env: env() });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('ci/build');
      expect(r.stdout.toLowerCase()).not.toContain('javascript:');
      expect(r.stdout).not.toContain('file:');
    }
    const plain = await runMq(['queue', 'testing', RUN], { env: env() });
    expect(plain.stdout.trimEnd().split('\n')).toContain('check\tci/build\tsuccess\ttrue\t\tcheck_run');
  });

  it('--json prints the record', async () => {
    const r = await runMq(['queue', 'testing', RUN, '--json'], { env: env() });
    const doc = JSON.parse(r.stdout);
    expect(doc.testedPullRequests).toHaveLength(2);
    expect(doc.status).toBe('in_progress');
  });

  for (const bad of ['not-a-uuid', 'trunk-merge/pr-x/abc', `trunk-temp/pr-1815/${RUN}`, '5df78918']) {
    it(`refuses ${bad}: exit 2, nothing sent`, async () => {
      const r = await runMq(['queue', 'testing', bad], { env: env() });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('is neither a test run id (a UUID) nor a test branch trunk-merge/pr-<N>/<uuid>');
      expect(fake.requests).toHaveLength(0);
    });
  }
});
