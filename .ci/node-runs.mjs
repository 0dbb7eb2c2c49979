// Runs the test suite once per Node version and ends with one line summing every run:
//   node .ci/node-runs.mjs GUARD_FAILURES VERSION...
// VERSION is `current` (the Node running this script) or a major version, taken from npm's `node`
// package (`npx -y node@24`). Each run's processes, spawned tests included, get that Node: vitest
// runs on it (tests spawn process.execPath) and its directory leads PATH. A version that cannot be
// had (registry unreachable, another major) is one failed test; so is a run that leaves no vitest
// JSON report, reports no tests, or exits non-zero with no failed test. Exit code 1 on any failure.
// For this script's own tests: MQ_CI_NPX (the npx to call), MQ_CI_VITEST (vitest's entry file),
// MQ_CI_RESULTS (where the reports go).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const npx = process.env.MQ_CI_NPX || 'npx';
const vitest = process.env.MQ_CI_VITEST || join(root, 'node_modules/vitest/vitest.mjs');
const results = process.env.MQ_CI_RESULTS || join(root, '.vitest-results');
const [guardArg = '0', ...versions] = process.argv.slice(2);

/** The Node binary of a version: { node, version } or { error }. */
function resolveNode(want) {
  if (want === 'current') return { node: process.execPath, version: process.version };
  if (!/^\d+$/.test(want)) return { error: `"${want}" is not a major version` };
  const r = spawnSync(npx, ['-y', `node@${want}`, '-p', 'process.version + "\\n" + process.execPath'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  const [version = '', node = ''] = (r.stdout ?? '').trim().split('\n').slice(-2);
  const how = `npx -y node@${want}`;
  if (r.status !== 0) return { error: `${how} failed (${r.error?.message ?? `exit code ${r.status ?? r.signal}`})` };
  const gave = JSON.stringify(`${version} ${node}`);
  if (!version.startsWith(`v${want}.`) || !isAbsolute(node)) return { error: `${how} gave ${gave}, not Node ${want}` };
  return { node, version };
}

/** Passed, failed and skipped tests of one run's report; a missing or empty report is a failure. */
function readReport(file, exitCode) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed = r.numPassedTests;
    failed = r.numFailedTests + (r.numRuntimeErrorTests ?? 0);
    skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    if (r.numTotalTests === 0) failed += 1;
  } catch {
    failed += 1;
  }
  // Unhandled errors fail vitest without failing a test.
  if (exitCode !== 0 && failed === 0) failed = 1;
  return { passed, failed, skipped };
}

const seconds = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

let passed = 0;
let failed = Number(guardArg) || 0;
const summary = [];
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
for (const want of versions) {
  console.log(`== tests on Node ${want}`);
  const started = Date.now();
  const found = resolveNode(want);
  if (found.error) {
    console.log(`Node ${want}: ${found.error}`);
    summary.push(`Node ${want}: not run, 1 failed (${found.error})`);
    failed += 1;
    continue;
  }
  const report = join(results, `node-${want}.json`);
  const path = [dirname(found.node), join(root, 'node_modules/.bin'), process.env.PATH ?? ''].join(delimiter);
  const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`];
  const run = spawnSync(found.node, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PATH: path },
  });
  const r = readReport(report, run.status ?? 1);
  passed += r.passed;
  failed += r.failed;
  const took = seconds(Date.now() - started);
  const line = `Node ${found.version}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped in ${took}`;
  console.log(line);
  summary.push(line);
}
if (versions.length === 0) failed += 1;
console.log(summary.join('\n'));
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
