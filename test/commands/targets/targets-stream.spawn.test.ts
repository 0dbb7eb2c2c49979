/**
 * `mq targets --file` streams its body (issue 18): a ~19 MiB file, read and sent in pieces,
 * reaches the emulator target for target, characters that need escaping included; the JSON form
 * too; and a broken file is still refused before anything is sent. On v1 and v2 (one emulator each,
 * side by side).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it as base, beforeAll, describe, expect } from 'vitest';
import { APIS, useEmulatorProcess } from '../../helpers/emulator-process.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

/** The ~19 MiB targets file (made once, read by both APIs' tests) and the targets it holds. */
const bigFile = (() => {
  let made: { targets: string[]; file: string } | undefined;
  return () => {
    if (made) return made;
    const odd = ['//é/ü:ß', '//emoji:🎯', '//quote:"q"', '//back\\slash', '//tab\there'];
    const targets: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 19 * 1024 * 1024; i++) {
      const t =
        i % 1000 === 0
          ? `${odd[(i / 1000) % odd.length]}/${i}`
          : `//services/team-${i % 97}/package-${i}/src/main:target_${i}`;
      targets.push(t);
      bytes += Buffer.byteLength(t) + 1;
    }
    const dir = tempDir('mq-targets-stream-');
    const file = join(dir, 'targets.txt');
    // Comments, blank lines, CRLF and indentation are dropped as before.
    writeFileSync(file, `# generated\r\n\n${targets.map((t, i) => (i % 7 === 0 ? `  ${t}\r` : t)).join('\n')}\n`);
    made = { targets, file };
    return made;
  };
})();

describe.each(APIS)('mq targets --file against the emulator on %s', { concurrent: true }, (api) => {
  const it = base.sequential;
  const emu = useEmulatorProcess(['--clock', 'manual'], api);
  beforeAll(async () => {
    expect((await emu.control('POST', '/v1/createQueue', QUEUE)).status).toBe(200);
    // Each test's PR gets a run of its own.
    expect((await emu.control('POST', '/v1/updateQueue', { ...QUEUE, concurrency: 5 })).status).toBe(200);
  });

  /** The targets the emulator holds for PR `n`, read through the testing details of its run. */
  async function storedTargets(n: number): Promise<string[]> {
    expect((await emu.control('POST', '/v1/submitPullRequest', { ...QUEUE, pr: { number: n } })).status).toBe(200);
    await emu.advance(1);
    const runs = (await emu.control('GET', '/_emulator/testRuns')).json as {
      testRuns: Array<{ id: string; prNumbers: number[] }>;
    };
    const run = runs.testRuns.find((r) => r.prNumbers.includes(n));
    expect(run).toBeDefined();
    const details = await emu.control('POST', '/v1/getMergeQueueTestingDetails', { ...QUEUE, testRunId: run?.id });
    expect(details.status).toBe(200);
    return (details.json as { impactedTargetsForTestedPrs: string[] }).impactedTargetsForTestedPrs;
  }

  // v2 takes at most 100,000 targets per upload: there the same file is refused before it is sent.
  it(`a 19 MiB file ${api === 'v1' ? 'arrives target for target' : 'is refused on v2 (over 100,000 targets), nothing sent'}`, async () => {
    const sha = 'c'.repeat(40);
    expect((await emu.control('POST', '/_emulator/pullRequests', { repo: REPO, number: 7, sha })).status).toBe(200);
    const { targets, file } = bigFile();
    const r = await runCli(['targets', '7', '--sha', sha, '--file', file, '--json'], {
      env: emu.env,
      timeoutMs: 60_000,
    });
    if (api === 'v2') {
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`the target list has ${targets.length} targets; this API accepts at most 100000`);
      expect(await storedTargets(7)).toBeUndefined();
      return;
    }
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ pr: 7, ok: true, targets: targets.length });
    const stored = await storedTargets(7);
    expect(stored.length).toBe(targets.length);
    // One comparison, not 240,000 (a failure message would be unreadable).
    expect(stored.join('\n') === targets.join('\n')).toBe(true);
  }, 120_000);

  it('a JSON array file arrives as written', async () => {
    const sha = 'd'.repeat(40);
    expect((await emu.control('POST', '/_emulator/pullRequests', { repo: REPO, number: 8, sha })).status).toBe(200);
    const targets = Array.from({ length: 5000 }, (_, i) => `//json/\u00e9\\"${i}`);
    const file = join(tempDir('mq-targets-stream-'), 'targets.json');
    writeFileSync(file, JSON.stringify(targets, null, 2));
    const r = await runCli(['targets', '8', '--sha', sha, '--file', file], { env: emu.env });
    expect(r.exitCode).toBe(0);
    expect(await storedTargets(8)).toEqual(targets);
  });

  it('a broken JSON file past the first chunks is refused before anything is sent', async () => {
    const sha = 'e'.repeat(40);
    expect((await emu.control('POST', '/_emulator/pullRequests', { repo: REPO, number: 9, sha })).status).toBe(200);
    const good = Array.from({ length: 20_000 }, (_, i) => JSON.stringify(`//ok/${i}`));
    const file = join(tempDir('mq-targets-stream-'), 'targets.json');
    writeFileSync(file, `[${good.join(',')}, 42]`);
    const r = await runCli(['targets', '9', '--sha', sha, '--file', file], { env: emu.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('must be a JSON array of non-empty strings');
    const pr = await emu.control('POST', '/v1/submitPullRequest', { ...QUEUE, pr: { number: 9 } });
    expect(pr.status).toBe(200);
    const record = await emu.control('POST', '/v1/getSubmittedPullRequest', { ...QUEUE, pr: { number: 9 } });
    expect((record.json as { readiness: { hasImpactedTargets: boolean } }).readiness.hasImpactedTargets).toBe(false);
  });
});
