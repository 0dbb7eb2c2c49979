/** The built `mq` against the built `mq emulator start`: a real server, real queue semantics. */
import { it as base, describe, expect, it } from 'vitest';
import { APIS, startEmulatorProcess, useEmulatorProcess } from '../helpers/emulator-process.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

// One emulator per API, the two suites side by side (each suite's tests in order).
describe.each(APIS)('mq against the emulator (manual clock) on %s', { concurrent: true }, (api) => {
  const it = base.sequential;
  const emu = useEmulatorProcess(['--clock', 'manual', '--seed', '7'], api);
  const mq = (...args: string[]) => runCli(args, { env: emu.env });

  it('prints the banner a shell can eval', async () => {
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(emu.v2Key).toMatch(/^trunk_v2_\w+$/);
  });

  it('creates a queue; creating it again is exit 5 naming the branch', async () => {
    expect((await mq('queue', 'create', '--concurrency', '2')).exitCode).toBe(0);
    const again = await mq('queue', 'create');
    expect(again.exitCode).toBe(5);
    expect(again.stderr).toContain('main');
  });

  // v2's list reads omit readiness.hasImpactedTargets: several PRs' --json carries null there.
  it(`a breaking PR fails, the PRs behind it restart and merge, in order${api === 'v2' ? ' (hasImpactedTargets null)' : ''}`, async () => {
    const bad = await emu.control('POST', '/_emulator/pullRequests', {
      repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
      number: 12,
      breaksBuild: true,
      title: 'Break the build',
    });
    expect(bad.status).toBe(200);
    const submit = await mq('submit', '11', '12', '13', '--json');
    expect(submit.exitCode).toBe(0);
    // PRs are admitted and start testing once time moves.
    await emu.advance(1);
    const show = JSON.parse((await mq('queue', 'show', '--json')).stdout);
    expect(show.enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([11, 12, 13]);
    expect(show.enqueuedPullRequests.filter((p: { state: string }) => p.state === 'testing')).toHaveLength(2);
    // Let all runs finish.
    for (let i = 0; i < 6; i++) await emu.advance(10);
    const doc = JSON.parse((await mq('status', '11', '12', '13', '--json')).stdout);
    expect(doc.pullRequests.map((p: { state: string }) => p.state)).toEqual(['merged', 'failed', 'merged']);
    const has = doc.pullRequests.map(
      (p: { readiness: { hasImpactedTargets: unknown } }) => p.readiness.hasImpactedTargets,
    );
    expect(has).toEqual(api === 'v1' ? [false, false, false] : [null, null, null]);
  });

  it('mq wait reports a merged PR with exit 0 and a failed one with exit 9', async () => {
    expect((await mq('wait', '11', '--interval', '100ms', '--timeout', '5s')).exitCode).toBe(0);
    expect((await mq('wait', '12', '--interval', '100ms', '--timeout', '5s')).exitCode).toBe(9);
  });

  it(`status of a PR never submitted is exit 3 (${api}'s wording: ${api === 'v1' ? "the service's 404" : 'not in the queue'})`, async () => {
    const r = await mq('status', '999', '--debug');
    expect(r.exitCode).toBe(3);
    // It speaks the API under test.
    expect(r.stderr).toContain(`/${api}/`);
    expect(r.stderr).not.toContain(`/${api === 'v1' ? 'v2' : 'v1'}/`);
    expect(r.stderr).toContain(
      api === 'v1' ? 'pull request #999 has never been submitted' : 'PR #999 is not in the merge queue for main',
    );
  });

  it(`a branch without a queue is exit 3 naming it (${api}'s wording: ${api === 'v1' ? "the service's 404" : "mq's own, with a hint"})`, async () => {
    const r = await mq('status', '5', '--branch', 'nope');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(
      api === 'v1' ? 'no merge queue exists for branch "nope"' : 'there is no merge queue for nope\nhint: ',
    );
  });

  it('cancel leaves the PR cancelled; cancelling again is exit 0, "already cancelled"; a PR never submitted is exit 3', async () => {
    await mq('submit', '21');
    const r = await mq('cancel', '21', '--json');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).state).toBe('cancelled');
    const again = await mq('cancel', '21');
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('✓ PR #21 was already cancelled');
    expect((await mq('cancel', '2121')).exitCode).toBe(3);
  });

  it('a draining queue: submit warns; queue show lists the not-ready PRs and why, never "No PRs" before a refused delete', async () => {
    const b = (...args: string[]) => mq(...args, '--branch', 'rel');
    expect((await b('queue', 'create', '--mode', 'parallel')).exitCode).toBe(0);
    // #61 targets another base branch; #62 has no impacted targets yet (parallel mode needs them).
    await emu.control('POST', '/_emulator/pullRequests', {
      repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
      number: 61,
      baseBranch: 'dev',
    });
    expect((await b('queue', 'drain')).exitCode).toBe(0);
    const submit = await b('submit', '61', '62');
    expect(submit.exitCode).toBe(0);
    expect(submit.stderr).toContain('queued, but the queue is');
    const table = await b('queue', 'show', '-o', 'table');
    expect(table.stdout).not.toContain('No PRs in the queue.');
    expect(table.stdout).toContain('Not ready (2)');
    expect(table.stdout).toMatch(/#61 .*base branch mismatch \(dev, not rel\); impacted targets missing/);
    expect(table.stdout).toMatch(/#62 .*impacted targets missing/);
    const del = await b('queue', 'delete', '--yes');
    expect(del.exitCode).toBe(5);
  });

  it('pause stops new tests; resume lets them run', async () => {
    expect((await mq('queue', 'pause', '--reason', 'CI incident')).exitCode).toBe(0);
    await mq('submit', '31');
    await emu.advance(5);
    expect(JSON.parse((await mq('status', '31', '--json')).stdout).state).toBe('not_ready');
    expect((await mq('queue', 'resume')).exitCode).toBe(0);
    await emu.advance(1);
    expect(JSON.parse((await mq('status', '31', '--json')).stdout).state).toBe('testing');
  });

  it('metrics pass through as Prometheus text when piped', async () => {
    const r = await mq('metrics');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('# TYPE mq_depth_current gauge');
    expect(r.stdout).toMatch(/mq_pr_conclusions_1h_total\{[^}]*conclusion="merged"[^}]*\} 2/);
  });

  it('a wrong token is exit 4', async () => {
    const r = await runCli(['status', '11'], { env: { ...emu.env, MQ_TOKEN: 'tok_wrong_wrong' } });
    expect(r.exitCode).toBe(4);
  });

  it('a non-empty queue cannot be deleted (exit 5 with the count)', async () => {
    const r = await mq('queue', 'delete', '--yes');
    expect(r.exitCode).toBe(5);
  });

  // Last: the clock moves on for as long as it waits.
  it('submit --wait: submitted, then waited for while the clock moves, exit 0 and one JSON document', async () => {
    const run = mq('submit', '15', '--wait', '--interval', '100ms', '--timeout', '15s', '--json');
    let done = false;
    void run.finally(() => {
      done = true;
    });
    while (!done) {
      await emu.advance(5);
      await new Promise((r) => setTimeout(r, 150));
    }
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('✓ PR #15 merged');
    expect(JSON.parse(r.stdout)).toMatchObject({ pr: 15, ok: true, state: 'merged' });
  });
});

describe('emulator lifecycle through the binary', () => {
  it.concurrent.each(APIS)('state in --data-dir survives a restart (%s)', async (api) => {
    const dir = tempDir('mq-emu-data-');
    const first = await startEmulatorProcess(['--clock', 'manual', '--data-dir', dir], undefined, api);
    expect((await runCli(['queue', 'create'], { env: first.env })).exitCode).toBe(0);
    expect((await runCli(['submit', '5'], { env: first.env })).exitCode).toBe(0);
    const stopped = await first.stop('SIGTERM');
    expect(stopped.exitCode).toBe(0);
    const second = await startEmulatorProcess(['--clock', 'manual', '--data-dir', dir], undefined, api);
    const r = await runCli(['status', '5', '--json'], { env: second.env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).prNumber).toBe(5);
    expect((await second.stop()).exitCode).toBe(0);
  });

  it('refuses a non-loopback host unless --host is explicit', async () => {
    const r = await runCli(['emulator', 'start', '--port', '0', '--host', 'not a host']);
    expect(r.exitCode).not.toBe(0);
  });
});
