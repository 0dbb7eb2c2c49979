// .ci/node-runs.mjs: one vitest run per Node version, summed into CI's last line. A fake npx hands out
// a wrapper "Node 24" (the real node, marked) and fails or lies for others; a fake vitest says where
// it ran and writes the report its environment asks for.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../.ci/node-runs.mjs');
const dir = mkdtempSync(join(tmpdir(), 'mq-ci-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const n24 = join(dir, 'n24');
mkdirSync(n24);
const script = (file: string, text: string) => {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
};
script(join(n24, 'node'), `#!/bin/sh\nMQ_FAKE_NODE=24 exec "${process.execPath}" "$@"\n`);
script(
  join(dir, 'npx'),
  `#!/bin/sh
case "$2" in
  node@24) printf 'v24.1.0\\n%s\\n' "${join(n24, 'node')}" ;;
  node@23) printf 'v18.0.0\\n/usr/bin/node\\n' ;;
  *) echo 'npm error request to https://registry.npmjs.org/node failed' >&2; exit 1 ;;
esac
`,
);
// FAKE_<node>: "passed failed exitCode", or "none exitCode" for no report.
writeFileSync(
  join(dir, 'vitest.mjs'),
  `import { writeFileSync } from 'node:fs';
const node = process.env.MQ_FAKE_NODE ?? 'current';
console.log('ran on ' + node + ', PATH starts ' + process.env.PATH.split(':')[0]);
const [a, b, code] = (process.env['FAKE_' + node] ?? '2 0 0').split(' ');
const out = process.argv.find((x) => x.startsWith('--outputFile=')).slice(13);
if (a !== 'none') {
  const [p, f] = [Number(a), Number(b)];
  const report = { numPassedTests: p, numFailedTests: f, numPendingTests: 1, numTotalTests: p + f + 1 };
  writeFileSync(out, JSON.stringify(report));
}
process.exitCode = Number(code ?? b);
`,
);

function ciRun(args: string[], more: Record<string, string> = {}) {
  const env = { ...more, MQ_CI_RESULTS: join(dir, 'results') };
  const r = spawnSync(process.execPath, [SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MQ_CI_NPX: join(dir, 'npx'), MQ_CI_VITEST: join(dir, 'vitest.mjs'), ...env },
  });
  const lines = r.stdout.trim().split('\n');
  return { out: r.stdout, err: r.stderr, last: lines[lines.length - 1], status: r.status };
}

describe('.ci/node-runs.mjs', () => {
  it('runs the suite on each version, the other Node first on PATH, and sums the runs', () => {
    const r = ciRun(['0', 'current', '24']);
    expect(r.out).toContain('ran on current');
    expect(r.out).toContain(`ran on 24, PATH starts ${n24}\n`);
    expect(r.out).toMatch(/^Node v24\.1\.0: 2 passed, 0 failed, 1 skipped in \dm\d\ds$/m);
    expect(r.last).toBe('tests: 4 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  // [case, arguments, environment, passed and failed in the last line, a line of the output]
  const FAILS: [string, string, Record<string, string>, string, RegExp][] = [
    ['npm cannot download a version', '0 current 22', {}, '2 1', /^Node 22: not run, 1 failed \(npx -y node@22 fail/m],
    ['another major than asked for', '0 23 current', {}, '2 1', /gave "v18\.0\.0 .*", not Node 23/],
    ['failed guards and tests', '2 current 24', { FAKE_24: '1 1 1' }, '3 3', /^Node v24\S+: 1 passed, 1 failed/m],
    ['a run with no report', '0 current 24', { FAKE_24: 'none 0' }, '2 1', /^Node v24\S+: 0 passed, 1 failed/m],
    ['a failed run, no failed test', '0 current', { FAKE_current: '2 0 1' }, '2 1', /: 2 passed, 1 failed/],
    ['no version at all', '0', {}, '0 1', /^tests: 0 passed, 1 failed$/m],
  ];
  it.each(FAILS)('%s fails CI', (_, args, env, counts, line) => {
    const r = ciRun(args.split(' '), env);
    const [passed, failed] = counts.split(' ');
    expect(r.last).toBe(`tests: ${passed} passed, ${failed} failed`);
    expect(r.out).toMatch(line);
    expect(r.status).toBe(1);
  });
});
