/** `mq status` reading one PR's record from the recording fake: JSON, piped fields, markdown, bad answers. */
import { describe, expect, it } from 'vitest';
import { runMq } from '../../helpers/in-process.js';
import { PR_RECORD, usePrServer } from '../../helpers/pr-server.js';

const { fake, env } = usePrServer();

describe('mq status', () => {
  it('prints one JSON document with the state and keeps unknown fields', async () => {
    const r = await runMq(['status', '42', '--json'], { env: env() });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.state).toBe('testing');
    expect(doc.prNumber).toBe(42);
    expect(doc.someFutureField).toEqual({ kept: true });
  });

  it('reads enums case-insensitively', async () => {
    fake.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: { ...PR_RECORD, state: 'PENDING_FAILURE', priorityName: 'HIGH' },
    });
    const r = await runMq(['status', '42', '--json'], { env: env() });
    expect(JSON.parse(r.stdout).state).toBe('pending_failure');
  });

  it('prints tab-separated fields when piped', async () => {
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain('state\ttesting');
    expect(lines).toContain('pr\t42');
    expect(lines).toContain('priority\thigh');
    expect(lines).toContain('priority_value\t10');
    expect(lines).toContain('submitted\ttrue');
    expect(lines).toContain('ready\ttrue');
    expect(lines).toContain('title\tAdd the widget cache');
    expect(lines).toContain('author\toctocat');
    expect(lines).toContain(`sha\t${PR_RECORD.prSha}`);
    expect(lines).toContain('base_branch\tmain');
    expect(lines.some((l) => /^in_state_seconds\t\d+$/.test(l))).toBe(true);
  });

  it('renders markdown for step summaries', async () => {
    const r = await runMq(['status', '42', '-o', 'markdown'], { env: env() });
    expect(r.stdout).toContain('| State | testing |');
    expect(r.stdout).toContain('| Field | Value |');
  });

  it('tolerates nulls and missing optional fields', async () => {
    fake.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: { state: 'pending', stateChangedAt: null, readiness: null, prNumber: 42, verifiedByTestRun: null },
    });
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('state\tpending');
  });

  it('a body that is not JSON is the server fault: exit 1', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: '<html>hello</html>' });
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the service sent something unexpected: not JSON');
  });

  it('a field of the wrong type is the server fault: exit 1', async () => {
    fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 42 } });
    const r = await runMq(['status', '42'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('state');
  });
});
