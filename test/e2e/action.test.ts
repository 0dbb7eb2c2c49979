/**
 * The GitHub Action as the runner runs it: `node action/dist/index.js` (the committed bundle) with
 * INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_EVENT_PATH, against an emulator on
 * a manual clock: a PR that merges, one that fails, one still pending at the timeout, and mistakes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { MergeQueueClient } from '../../src/lib/client.js';
import { startEmulator, type EmulatorFixture } from '../../src/lib/emulator.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ACTION = join(ROOT, 'action/dist/index.js');
const repo = { host: 'github.com', owner: 'acme', name: 'app' };
const TOKEN = 'tok_action_secret_5f2b9c';

let emu: EmulatorFixture;
let client: MergeQueueClient;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({ clock: 'manual', token: TOKEN, seed: 7 });
  client = new MergeQueueClient({ apiUrl: emu.url, token: emu.token });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-action-'));
  await emu.reset();
  await client.createQueue({ repo, targetBranch: 'main' });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  child: ResultPromise<{ env: Record<string, string>; extendEnv: false; reject: false }>;
  outputs(): Record<string, string>;
  summary(): string;
}

/** Starts the action for a `pull_request` event of PR `pr`, with the runner's defaults for unset inputs. */
function runAction(pr: number, inputs: Record<string, string> = {}, env: Record<string, string> = {}): Run {
  const event = join(dir, 'event.json');
  writeFileSync(
    event,
    JSON.stringify({ number: pr, pull_request: { number: pr, base: { ref: 'main' }, head: { sha: 'f'.repeat(40) } } }),
  );
  const output = join(dir, 'output');
  const summary = join(dir, 'summary.md');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const all: Record<string, string> = {
    token: TOKEN,
    'api-url': emu.url,
    'no-batch': 'false',
    wait: 'true',
    timeout: '1m',
    interval: '100ms',
    'impacts-all': 'false',
    ...inputs,
  };
  const child = execa(process.execPath, [ACTION], {
    env: {
      PATH: process.env.PATH ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/app',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REF: `refs/pull/${pr}/merge`,
      GITHUB_EVENT_PATH: event,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      ...Object.fromEntries(Object.entries(all).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
      ...env,
    },
    extendEnv: false,
    reject: false,
  });
  return {
    child,
    outputs: () => parseOutputs(readFileSync(output, 'utf8')),
    summary: () => readFileSync(summary, 'utf8'),
  };
}

/** Reads `name<<DELIM\nvalue\nDELIM\n` records as the runner does. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!m) continue;
    const [, name, delim] = m as unknown as [string, string, string];
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] ?? '');
    out[name] = value.join('\n');
  }
  return out;
}

/** Waits until the action has logged that PR `pr` is being tested (its first poll saw it). */
async function untilTesting(run: Run, pr: number): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (new RegExp(`^PR #${pr}: testing$`, 'm').test(seen)) {
        run.child.stdout?.off('data', onData);
        resolve();
      }
    };
    run.child.stdout?.on('data', onData);
    void run.child.then((r) => reject(new Error(`the action ended first (exit ${r.exitCode}): ${r.stdout}`)));
  });
}

/** Waits until the action has logged a line matching `re`. */
async function untilLogged(run: Run, re: RegExp): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (re.test(seen)) {
        run.child.stdout?.off('data', onData);
        resolve();
      }
    };
    run.child.stdout?.on('data', onData);
    void run.child.then((r) => reject(new Error(`the action ended first (exit ${r.exitCode}): ${r.stdout}`)));
  });
}

/** The token may appear only inside the ::add-mask:: command that hides it. */
function expectTokenOnlyMasked(stdout: string): void {
  expect(stdout).toContain(`::add-mask::${TOKEN}\n`);
  expect(stdout.replace(`::add-mask::${TOKEN}\n`, '')).not.toContain(TOKEN);
}

describe('the action against the emulator', () => {
  it('submits the workflow PR, waits while it is tested, and reports the merge', async () => {
    const run = runAction(7);
    await untilTesting(run, 7);
    const runId = (await emu.listRuns()).find((r) => r.prNumbers.includes(7))?.id;
    await emu.advance(10);
    const result = await run.child;
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(run.outputs()).toEqual({
      state: 'merged',
      'exit-code': '0',
      'time-in-queue': '600',
      'test-run': runId,
      'failing-checks': '[]',
      position: '',
    });
    expectTokenOnlyMasked(result.stdout);
    expect(result.stdout).toMatch(/^::group::Submit PR #7 to the merge queue of main$/m);
    expect(result.stdout).toMatch(/^PR #7: testing → merged \(after 10m in testing\)$/m);
    expect(result.stdout.match(/^::group::/gm)).toHaveLength(2);
    expect(result.stdout.match(/^::endgroup::/gm)).toHaveLength(2);
    expect(result.stdout).not.toContain('::error');
    const summary = run.summary();
    expect(summary).toContain('### ✅ PR #7 merged');
    expect(summary).toContain('| Time in queue | 10m |');
    expect(summary).toContain("#### The PR's trip through the queue");
    expect(summary).toMatch(new RegExp(`^\\| \\S+ \\| testing \\| .*${runId}.* \\|$`, 'm'));
    expect(summary).toMatch(new RegExp(`^\\| \\S+ \\| merged \\| .*${runId}.* \\|$`, 'm'));
    expect(await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 7 } })).toMatchObject({
      state: 'merged',
    });
  });

  it('fails the step with an annotation and exit 9 when the PR fails in the queue', async () => {
    await emu.createPullRequest({ repo, number: 8, outcomes: ['fail'] });
    const run = runAction(8, { priority: 'high', 'no-batch': 'true' });
    await untilTesting(run, 8);
    await emu.advance(10);
    const result = await run.child;
    expect(result.exitCode).toBe(9);
    const outputs = run.outputs();
    expect(outputs).toMatchObject({ state: 'failed', 'exit-code': '9', 'time-in-queue': '600' });
    const failedRun = (await emu.listRuns()).find((r) => r.prNumbers.includes(8));
    expect(outputs['test-run']).toBe(failedRun?.id);
    expect(JSON.parse(outputs['failing-checks'] ?? '')).toEqual([
      { name: 'ci', url: `https://ci.emulator.invalid/runs/${failedRun?.id}`, conclusion: 'failure' },
    ]);
    expect(result.stdout).toMatch(
      /^::error title=mq%3A PR left the queue without merging::PR #8 failed in the merge queue/m,
    );
    const summary = run.summary();
    expect(summary).toContain('### ❌ PR #8 failed in the merge queue');
    expect(summary).toContain("#### The PR's trip through the queue");
    expect(summary).toMatch(new RegExp(`^\\| \\S+ \\| failed \\| .*${failedRun?.id}.* \\|$`, 'm'));
    expect(summary).toContain(`- [ci](https://ci.emulator.invalid/runs/${failedRun?.id}): failure`);
    expectTokenOnlyMasked(result.stdout);
    const pr = await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 8 } });
    expect(pr).toMatchObject({ priorityName: 'high', noBatch: true });
  });

  it('requeue: a run that timed out is resubmitted once, then the PR merges; outputs and summary say so', async () => {
    await client.updateQueue({ repo, targetBranch: 'main', testingTimeoutMinutes: 5 });
    await emu.createPullRequest({ repo, number: 10, outcomes: ['hang', 'pass'], testMinutes: 2 });
    const run = runAction(10, { requeue: '1', priority: 'low' });
    await untilTesting(run, 10);
    const timedOut = (await emu.listRuns()).find((r) => r.prNumbers.includes(10))?.id;
    await emu.advance(5);
    // The resubmit, then the new wait's first poll seeing it tested again.
    await untilLogged(
      run,
      /^↻ PR #10 requeued \(1 of 1\): an infrastructure failure: the test run timed out.*\nPR #10: failed → testing$/m,
    );
    await emu.advance(2);
    const result = await run.child;
    expect(result.exitCode).toBe(0);
    const outputs = run.outputs();
    expect(outputs.state).toBe('merged');
    expect(JSON.parse(outputs.requeues ?? '')).toEqual([
      {
        attempt: 1,
        runId: timedOut,
        kind: 'infrastructure',
        reason: 'the test run timed out (TEST_RUN_TIMEOUT)',
        at: expect.any(String),
      },
    ]);
    expect(run.summary()).toContain(
      `#### Requeues\n\n| # | Failed run | Kind | Why |\n| --- | --- | --- | --- |\n` +
        `| 1 | ${timedOut} | infrastructure | the test run timed out (TEST_RUN_TIMEOUT) |\n`,
    );
    const pr = await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 10 } });
    expect(pr).toMatchObject({ priorityName: 'low' });
  });

  it('fails with exit 8 when the PR is still pending at the timeout, and leaves it queued', async () => {
    const run = runAction(9, { timeout: '1s', interval: '200ms' });
    const result = await run.child;
    expect(result.exitCode).toBe(8);
    expect(run.outputs()).toMatchObject({
      state: 'testing',
      'exit-code': '8',
      'test-run': '',
      'failing-checks': '[]',
      position: '1',
    });
    expect(result.stdout).toMatch(
      /^::error title=mq%3A still in the queue::PR #9 is still testing after \d+s \(timeout 1s\); it stays in the queue$/m,
    );
    expect(run.summary()).toContain('### ⏳ PR #9 still testing at the timeout');
    expect(run.summary()).toMatch(/\| Position \| 1st of \d+ \(approximate: derived from v1's queue record\) \|/);
    expect(run.summary()).toContain('| Waiting because | being tested |');
    expect((await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 9 } })).state).toBe(
      'testing',
    );
  });

  it('uploads impacted targets for the head SHA before submitting; wait: false ends after the submit', async () => {
    const file = join(dir, 'targets.txt');
    writeFileSync(file, '//svc/api\n# comment\n//svc/web\n');
    // The targets belong to the PR's head SHA, which the event names.
    await emu.createPullRequest({ repo, number: 10, sha: 'f'.repeat(40) });
    const run = runAction(10, { wait: 'false', 'impacted-targets-file': file });
    const result = await run.child;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`set impacted targets of PR #10 at ${'f'.repeat(12)}: 2 targets`);
    expect(run.outputs()).toMatchObject({
      state: 'testing',
      'exit-code': '0',
      'time-in-queue': '',
      position: expect.stringMatching(/^[1-9]\d*$/),
    });
    const [runInfo] = (await emu.listRuns()).filter((r) => r.prNumbers.includes(10));
    const details = await client.getMergeQueueTestingDetails({
      repo,
      targetBranch: 'main',
      testRunId: runInfo?.id ?? '',
    });
    expect(details.impactedTargetsForTestedPrs).toEqual(['//svc/api', '//svc/web']);
  });

  it('a cancelled job (SIGINT from the runner) stops the wait: exit 130, an annotation, the PR left queued', async () => {
    const run = runAction(13, { timeout: '1h' });
    await untilTesting(run, 13);
    run.child.kill('SIGINT');
    const result = await run.child;
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toMatch(/^::error title=mq%3A cancelled::/m);
    expect(run.outputs()).toMatchObject({ 'exit-code': '130' });
    expect((await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 13 } })).state).toBe(
      'testing',
    );
  });

  it('reports the service refusing the token as exit 4, without printing the token', async () => {
    const run = runAction(11, { token: 'wrong-token-value-123' });
    const result = await run.child;
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toMatch(/^::error title=mq%3A submit PR #11::submit PR #11: the service answered HTTP 401/m);
    expect(result.stdout.replace('::add-mask::wrong-token-value-123\n', '')).not.toContain('wrong-token-value-123');
    expect(run.outputs()).toMatchObject({ 'exit-code': '4', state: '' });
  });
});

describe('the README workflow', () => {
  /** The `with:` inputs of the README's example step, as the runner would pass them. */
  function readmeInputs(expressions: Record<string, string>): Record<string, string> {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## GitHub Action\n'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = yaml.split('\n');
    const start = lines.findIndex((l) => /^ +with:$/.test(l));
    const indent = (lines[start + 1] ?? '').search(/\S/);
    const inputs: Record<string, string> = {};
    for (let i = start + 1; i < lines.length && (lines[i] ?? '').search(/\S/) === indent; i++) {
      const [, key, value] = /^ *([\w-]+): ?(.*)$/.exec(lines[i] ?? '') ?? [];
      if (!key) break;
      if (value === '|') {
        const block: string[] = [];
        while ((lines[i + 1] ?? '').search(/\S/) > indent) block.push((lines[++i] ?? '').trim());
        inputs[key] = `${block.join('\n')}\n`;
      } else {
        inputs[key] = (value ?? '').replace(
          /\$\{\{ *([^}]+?) *\}\}/g,
          (_, expr: string) => expressions[expr] ?? `unknown expression ${expr}`,
        );
      }
    }
    return inputs;
  }

  it('runs the example step from README: targets uploaded, PR submitted with its priority, merged', async () => {
    const inputs = readmeInputs({ 'secrets.MQ_TOKEN': TOKEN, 'vars.MQ_API_URL': emu.url });
    expect(Object.keys(inputs)).toEqual(['token', 'api-url', 'priority', 'timeout', 'impacted-targets']);
    await emu.createPullRequest({ repo, number: 12, sha: 'f'.repeat(40) });
    const run = runAction(12, { ...inputs, interval: '100ms' });
    await untilTesting(run, 12);
    const [testRun] = await emu.listRuns();
    const details = await client.getMergeQueueTestingDetails({
      repo,
      targetBranch: 'main',
      testRunId: testRun?.id ?? '',
    });
    expect(details.impactedTargetsForTestedPrs).toEqual(['//svc/api', '//svc/web']);
    await emu.advance(10);
    const result = await run.child;
    expect(result.exitCode).toBe(0);
    expect(run.outputs()).toMatchObject({ state: 'merged', 'exit-code': '0' });
    expect(
      (await client.getSubmittedPullRequest({ repo, targetBranch: 'main', pr: { number: 12 } })).priorityName,
    ).toBe('high');
  });
});

describe('bad inputs, refused before anything is sent', () => {
  it('no token: exit 7 with an annotation naming the input', async () => {
    const result = await runAction(1, { token: '' }).child;
    expect(result.exitCode).toBe(7);
    expect(result.stdout).toMatch(/^::error title=mq%3A bad input::input token: required/m);
  });

  it('a bad timeout, a bad boolean, two kinds of targets: exit 2', async () => {
    const cases: Array<Record<string, string>> = [
      { timeout: 'soon' },
      { wait: 'yes' },
      { 'impacts-all': 'true', 'impacted-targets': '//a' },
    ];
    for (const inputs of cases) {
      const result = await runAction(1, inputs).child;
      expect(result.exitCode, JSON.stringify(inputs)).toBe(2);
      expect(result.stdout).toMatch(/^::error title=mq%3A bad input::/m);
    }
  });

  it('no PR outside a pull_request run: exit 2', async () => {
    const result = await runAction(1, { branch: 'main' }, { GITHUB_REF: 'refs/heads/main', GITHUB_EVENT_PATH: '' })
      .child;
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toMatch(/^::error title=mq%3A bad input::input pr: required/m);
  });
});

describe('the committed bundle', () => {
  it('is what `npm run build:action` builds from the sources now (rebuild and commit action/dist when this fails)', async () => {
    const { build } = await import('esbuild');
    const mod = (await import(join(ROOT, 'scripts/build-action.mjs'))) as {
      actionBuildOptions(outdir?: string): Record<string, unknown>;
    };
    const result = await build({ ...mod.actionBuildOptions(join(tmpdir(), 'mq-action-check')), write: false });
    const fresh = result.outputFiles?.find((f) => f.path.endsWith('index.js'));
    expect(fresh, 'the build produced index.js').toBeDefined();
    const committed = readFileSync(ACTION);
    expect(
      Buffer.compare(Buffer.from(fresh?.contents ?? []), committed) === 0,
      'action/dist/index.js is stale: run `npm run build:action` and commit it',
    ).toBe(true);
  });

  it('is built for node24, the Node action.yml runs it on', async () => {
    const mod = (await import(join(ROOT, 'scripts/build-action.mjs'))) as { actionBuildOptions(): { target: string } };
    expect(mod.actionBuildOptions().target).toBe('node24');
  });

  it('action.yml runs the bundle on node24 and declares every input and output the action reads and writes', () => {
    const yml = readFileSync(join(ROOT, 'action/action.yml'), 'utf8');
    expect(yml).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/index\.js$/m);
    for (const input of [
      'token',
      'api-url',
      'repo',
      'branch',
      'pr',
      'priority',
      'no-batch',
      'wait',
      'timeout',
      'interval',
      'impacted-targets',
      'impacted-targets-file',
      'impacts-all',
      'sha',
      'forked-workflow-run-id',
    ]) {
      expect(yml, input).toMatch(new RegExp(`^ {2}${input}:$`, 'm'));
    }
    for (const output of ['state', 'exit-code', 'time-in-queue', 'test-run', 'failing-checks', 'position'])
      expect(yml, output).toMatch(new RegExp(`^ {2}${output}:$`, 'm'));
    // Not required: a fork PR's run has no secrets and may upload impacted targets without one.
    expect(yml).toMatch(/^ {2}token:\n(?: {4}.*\n)*? {4}required: false$/m);
  });
});
