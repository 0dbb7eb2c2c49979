// `npm run bench`: every benchmark script in turn (each its own process, its output shown as it
// comes), then one table of every figure against its target from the scripts' `RESULT {json}`
// lines (bench/lib.mjs printResult). QUICK=1 runs fewer iterations. Not part of `npm test`.
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

/** The scripts, and the figures each must report (a missing one shows as not measured). */
const SCRIPTS = [
  ['startup.mjs', ['`mq --version` vs `node -e 0`', '`mq --help` vs `node -e 0`', '`mq queue --help` vs `node -e 0`']],
  [
    'status.mjs',
    ['`mq status 1` (emulator) vs `node -e 0`', '`mq status 1` (emulator, v2, warm id cache) vs `node -e 0`'],
  ],
  ['bulk.mjs', ['`mq submit -` 1,000 PRs vs a bare undici script (8 in flight)']],
  ['payload.mjs', ['`mq targets --file` 18.8 MiB vs `curl --data-binary`', '`mq targets --file` 18.8 MiB: peak RSS']],
  ['emulator-load.mjs', ['emulator getSubmittedPullRequest vs bare `node:http` (32 connections)']],
  ['emulator-v2-load.mjs', ['emulator v2 GET /v2/pull-requests/{id} vs bare `node:http` (32 connections)']],
  ['requests.mjs', ['`mq status 1` v2 vs v1 (20 ms per request, warm id cache)']],
  ['engine.mjs', []],
];

const only = process.argv.slice(2);
const quick = process.env.QUICK === '1';

function runScript(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [new URL(file, import.meta.url).pathname], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const results = [];
    let buf = '';
    const take = (line) => {
      if (line.startsWith('RESULT ')) {
        try {
          results.push(JSON.parse(line.slice(7)));
        } catch {
          console.log(`  (unreadable result line from ${file}: ${line.slice(0, 120)})`);
        }
      } else console.log(line);
    };
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) take(l);
    });
    child.on('close', (code) => {
      if (buf) take(buf);
      resolve({ code, results });
    });
  });
}

function verdict(ratio, target) {
  const m = /^(<=|>=|<|>)\s*([\d.]+)$/.exec(target ?? '');
  if (!m || typeof ratio !== 'number' || !Number.isFinite(ratio)) return 'unknown';
  const t = Number(m[2]);
  const ok = m[1] === '<=' ? ratio <= t : m[1] === '>=' ? ratio >= t : m[1] === '<' ? ratio < t : ratio > t;
  return ok ? 'met' : 'MISSED';
}

console.log(
  `mq benchmarks · ${new Date().toISOString()} · node ${process.version} · ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · load ${loadavg()[0].toFixed(1)}${quick ? ' · QUICK' : ''}\n`,
);
const rows = [];
let failed = 0;
for (const [file, figures] of SCRIPTS) {
  if (only.length > 0 && !only.some((o) => file.startsWith(o))) continue;
  console.log(`== ${file}`);
  const { code, results } = await runScript(file);
  if (code !== 0) {
    failed++;
    console.log(`  ${file} exited ${code}`);
  }
  for (const f of figures)
    if (!results.some((r) => r.figure === f))
      rows.push({ figure: f, mq: '—', reference: '—', ratio: NaN, target: '', note: 'not measured' });
  rows.push(...results);
  console.log();
}

const cell = (s) => String(s).replace(/\|/g, '\\|');
console.log(
  `summary (load average ${loadavg()[0].toFixed(1)} at the end${quick ? '; QUICK=1: few iterations, indicative only' : ''})\n`,
);
console.log('| figure | mq | reference | ratio | target | |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const ratio = Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : '—';
  console.log(
    `| ${cell(r.figure)} | ${cell(r.mq)} | ${cell(r.reference)} | ${ratio} | ${cell(r.target)} | ${r.note ?? verdict(r.ratio, r.target)} |`,
  );
}
if (failed > 0) {
  console.log(`\n${failed} benchmark script(s) failed`);
  process.exitCode = 1;
}
