/**
 * Issue 9 point 5, the emulator under load and faults, against the built binary in a child process:
 *  1. 50 concurrent clients × 200 mixed operations on a real-clock emulator whose runs finish
 *     during the load; afterwards every acknowledged submission is there in an allowed state,
 *     acknowledged cancels stuck, merges followed queue order, and nothing answered 5xx or dropped.
 *  2. kill -9 in the middle of such a load (twice), restart on the same --data-dir: the state file
 *     loads and every submission acknowledged before the kill is there.
 *  3. Hostile bodies (25 MiB, 100,000 levels of nesting, wrong content types, invalid UTF-8,
 *     truncated JSON, non-objects) are refused with 4xx while a normal client keeps being served,
 *     and the emulator's peak RSS stays bounded.
 * Each test prints a `[stress]` line with its figures.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';

import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { tempDir } from '../helpers/run-cli.js';
import {
  BRANCH,
  Ledger,
  QUEUE,
  REPO,
  StressClient,
  checkFinalStates,
  checkMergeOrder,
  checkQueueSnapshot,
  inParallel,
  latencySummary,
  listAll,
  procMemory,
  rng,
  runLoad,
  type LoadStats,
} from '../helpers/stress-client.js';

const TOKEN = 'tok_stress_0123456789abcdef';
const CONCURRENCY = 3;
const SHARED_POOL = 150;
const MiB = 1024 * 1024;
/** Emulated minutes per wall minute: a 1–4 minute CI run takes 20–80 ms, so PRs merge during the load. */
const SPEED = '3000';

const running: EmulatorProcess[] = [];
const clients: StressClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const e of running.splice(0))
    if (e.child.exitCode === null && e.child.signalCode === null) await e.stop('SIGTERM');
});

async function start(args: string[]): Promise<EmulatorProcess> {
  const emu = await startEmulatorProcess(['--clock', 'real', '--speed', SPEED, ...args], TOKEN);
  running.push(emu);
  return emu;
}

function clientFor(emu: EmulatorProcess, ledger: Ledger): StressClient {
  const c = new StressClient(emu.url, emu.token, ledger);
  clients.push(c);
  return c;
}

/** The queue (single mode, several runs at once) and the shared PR pool with short CI times. */
async function setUp(c: StressClient, seed: number): Promise<void> {
  const created = await c.api('createQueue', { ...QUEUE, mode: 'single', concurrency: CONCURRENCY });
  expect([created.status, created.text]).toEqual([200, 'OK']);
  const rand = rng(seed);
  const numbers = Array.from({ length: SHARED_POOL }, (_, i) => i + 1);
  await inParallel(numbers, 16, async (n) => {
    const breaks = rand() < 0.04;
    const a = await c.call('POST', '/_emulator/pullRequests', {
      repo: REPO,
      number: n,
      testMinutes: 1 + Math.floor(rand() * 4),
      breaksBuild: breaks,
    });
    expect(a.status).toBe(200);
    if (breaks) c.ledger.breakers.add(n);
  });
}

function summary(s: LoadStats): string {
  const byOp = Object.entries(s.byOp)
    .map(
      ([op, st]) =>
        `${op}{${Object.entries(st)
          .map(([k, v]) => `${k}:${v}`)
          .join(',')}}`,
    )
    .join(' ');
  return byOp;
}

describe('emulator under load and faults', () => {
  it('50 clients × 200 mixed operations: nothing acknowledged is lost, states and merge order hold, no 5xx', {
    timeout: 50_000,
  }, async () => {
    const emu = await start(['--seed', '11']);
    const ledger = new Ledger();
    const c = clientFor(emu, ledger);
    await setUp(c, 1);

    const stats = await runLoad({
      client: c,
      clients: 50,
      opsPerClient: 200,
      seed: 1,
      ownBase: 100_000,
      sharedPool: SHARED_POOL,
      concurrency: CONCURRENCY,
      deadlineMs: 35_000,
    });
    expect(stats.unexpected.slice(0, 10)).toEqual([]);
    expect(stats.violations.slice(0, 10)).toEqual([]);
    expect(stats.ops).toBe(10_000);

    // Resume (clients paused it now and then), then judge every acknowledged submission.
    const resumed = await c.api('updateQueue', { ...QUEUE, state: 'running' });
    expect(resumed.status).toBe(200);
    const final = await checkFinalStates(c, { queueRunning: true });
    expect(final.violations.slice(0, 10)).toEqual([]);
    const acked = ledger.ackedSubmits();
    expect(final.checked).toBe(acked.length);

    // The queue lists each live PR once, only PRs someone submitted, none terminal or not_ready.
    const q = await c.api('getQueue', QUEUE);
    expect(q.status).toBe(200);
    const violations: string[] = [];
    const enqueued = checkQueueSnapshot(JSON.parse(q.text), CONCURRENCY, violations);
    expect(violations).toEqual([]);
    const sent = ledger.submitted();
    expect(enqueued.filter((n) => !sent.has(n))).toEqual([]);

    // listPullRequests pages through every entry exactly once: all acknowledged PRs, no strangers.
    const all = await listAll(c);
    const listed = all.map((p) => p.prNumber);
    expect(new Set(listed).size).toBe(listed.length);
    const listedSet = new Set(listed);
    expect(acked.filter((n) => !listedSet.has(n))).toEqual([]);
    expect(listed.filter((n) => !sent.has(n))).toEqual([]);

    // Merge order follows queue order in every snapshot the clients took. A fast machine ends the
    // load before many runs finish: the resumed queue gets up to 20 s to merge enough to check.
    let merged = await listAll(c, 'merged');
    for (
      const end = Date.now() + 20_000;
      merged.length <= 10 && Date.now() < end;
      merged = await listAll(c, 'merged')
    ) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const mergedAt = new Map(merged.map((p) => [p.prNumber, Date.parse(p.stateChangedAt)]));
    const order = checkMergeOrder(stats.snapshots, ledger, mergedAt);
    expect(order.violations).toEqual([]);
    // The check had something to check.
    expect(merged.length).toBeGreaterThan(10);
    expect(order.pairs).toBeGreaterThan(50);

    // The simulated CI runs behind those merges.
    const runsAnswer = await c.call('GET', '/_emulator/testRuns');
    expect(runsAnswer.status).toBe(200);
    const runs = (JSON.parse(runsAnswer.text) as { testRuns: Array<{ status: string }> }).testRuns;
    const runStates: Record<string, number> = {};
    for (const r of runs) runStates[r.status] = (runStates[r.status] ?? 0) + 1;
    expect(runStates.succeeded ?? 0).toBeGreaterThan(10);

    // Still serving, still alive; then a clean stop.
    expect((await c.api('getQueue', QUEUE)).status).toBe(200);
    expect(emu.child.exitCode).toBeNull();
    const mem = await procMemory(emu.child.pid as number);
    const stopped = await emu.stop('SIGTERM');
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stderr).not.toMatch(/internal error|failed/);

    console.log(
      `[stress] load: clients=50 ops=${stats.ops} (+${stats.setupOps} fake-PR setups) in ${stats.wallMs} ms (${Math.round((stats.ops * 1000) / stats.wallMs)} ops/s); ` +
        `acknowledged submits=${ledger.ackedSubmitCount()} distinct PRs=${acked.length} verified=${final.checked} ` +
        `final states=${JSON.stringify(final.states)} must-be-cancelled verified=${final.cancelledChecked} ` +
        `merged=${merged.length} CI runs=${runs.length} ${JSON.stringify(runStates)} merge-order pairs=${order.pairs} snapshots=${stats.snapshots.length} ` +
        `5xx/errors=${stats.unexpected.length} emulator peak RSS=${mem?.hwmMiB.toFixed(1) ?? '?'} MiB, CPU=${mem?.cpuS.toFixed(1) ?? '?'} s`,
    );
    console.log(`[stress] load answers: ${summary(stats)}`);
    console.log(`[stress] load latency ms: ${latencySummary(stats)}`);
  });

  it('kill -9 mid-load and restart from the same --data-dir: every acknowledged submission survives', {
    timeout: 50_000,
  }, async () => {
    const dir = tempDir('mq-stress-data-');
    let emu = await start(['--seed', '12', '--data-dir', dir]);
    const ledger = new Ledger();
    await setUp(clientFor(emu, ledger), 2);

    const KILLS = 2;
    const figures: string[] = [];
    let totalOps = 0;
    let unansweredBefore = 0;
    for (let k = 0; k < KILLS; k++) {
      const c = clientFor(emu, ledger);
      const target = ledger.ackedSubmitCount() + 300;
      let killed = false;
      const victim = emu;
      const stats = await runLoad({
        client: c,
        clients: 50,
        opsPerClient: 200,
        seed: 20 + k,
        ownBase: 100_000 * (k + 2),
        sharedPool: SHARED_POOL,
        concurrency: CONCURRENCY,
        deadlineMs: 20_000,
        stop: () => killed,
        onAnswer: () => {
          if (!killed && ledger.ackedSubmitCount() >= target) {
            killed = true;
            victim.child.kill('SIGKILL');
          }
        },
      });
      totalOps += stats.ops;
      expect(killed).toBe(true);
      // Until the kill, the server answered everything properly.
      expect(stats.unexpected.slice(0, 10)).toEqual([]);
      expect(stats.violations.slice(0, 10)).toEqual([]);
      const dead = await victim.child;
      expect(dead.signal).toBe('SIGKILL');
      const unanswered = [...ledger.prs.values()].flat().filter((e) => e.status === 0).length;
      const inFlight = unanswered - unansweredBefore;
      unansweredBefore = unanswered;

      // Restart on the same directory: the state file loads (banner printed, process up).
      emu = await start(['--seed', '12', '--data-dir', dir]);
      const after = clientFor(emu, ledger);
      expect((await after.api('updateQueue', { ...QUEUE, state: 'running' })).status).toBe(200);
      const final = await checkFinalStates(after, { queueRunning: true });
      expect(final.violations.slice(0, 10)).toEqual([]);
      expect(final.checked).toBe(ledger.ackedSubmits().length);
      figures.push(
        `kill ${k + 1}: after ${stats.ops} ops, acknowledged submits (cumulative)=${ledger.ackedSubmitCount()} (distinct PRs ${final.checked}, all verified after restart), ` +
          `PR operations cut off by the kill=${inFlight}, must-be-cancelled verified=${final.cancelledChecked}`,
      );
    }
    // The restarted emulator serves a normal load without a hitch, then stops cleanly.
    const c = clientFor(emu, ledger);
    const tail = await runLoad({
      client: c,
      clients: 10,
      opsPerClient: 50,
      seed: 99,
      ownBase: 900_000,
      sharedPool: SHARED_POOL,
      concurrency: CONCURRENCY,
      deadlineMs: 10_000,
    });
    expect(tail.unexpected).toEqual([]);
    expect(tail.ops).toBe(500);
    const stopped = await emu.stop('SIGTERM');
    expect(stopped.exitCode).toBe(0);
    console.log(
      `[stress] kill -9: kills=${KILLS} restarts=${KILLS} ops before kills=${totalOps} then ${tail.ops} after; ${figures.join('; ')}`,
    );
  });

  it('hostile bodies are refused with 4xx, the server keeps serving, memory stays bounded', {
    timeout: 50_000,
  }, async () => {
    const emu = await start(['--seed', '13']);
    const ledger = new Ledger();
    const c = clientFor(emu, ledger);
    expect((await c.api('createQueue', QUEUE)).status).toBe(200);
    const { hostname, port } = new URL(emu.url);
    const pid = emu.child.pid as number;
    const before = await procMemory(pid);

    // A well-behaved client polls throughout; every one of its requests must be answered 200.
    let polling = true;
    const pollStatuses: number[] = [];
    const poller = (async () => {
      const pc = clientFor(emu, new Ledger());
      for (let i = 0; polling && i < 2_000; i++) {
        pollStatuses.push((await pc.api('getQueue', QUEUE)).status);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    let faults = 0;
    const results: string[] = [];
    const expectRefused = async (name: string, p: Promise<Raw>, status: number, message?: RegExp) => {
      const r = await p;
      faults++;
      results.push(`${name}=${r.status}`);
      expect({ name, status: r.status }).toEqual({ name, status });
      if (message) expect(r.body).toMatch(message);
      expect(r.type).toMatch(/^text\/plain/);
      // A normal request right after is served.
      expect((await c.api('getQueue', QUEUE)).status).toBe(200);
    };
    const json = { 'content-type': 'application/json' };
    const target = { hostname, port: Number(port), token: TOKEN };

    for (let round = 0; round < 3; round++) {
      await expectRefused(
        '25MiB content-length',
        upload(target, '/v1/submitPullRequest', { ...json, 'content-length': String(25 * MiB) }, 25 * MiB),
        413,
        /larger than the 20 MiB limit/,
      );
      await expectRefused(
        '25MiB chunked',
        upload(target, '/v1/submitPullRequest', { ...json, 'transfer-encoding': 'chunked' }, 25 * MiB),
        413,
        /larger than the 20 MiB limit/,
      );
    }
    // Three oversized streams at once: each is abandoned at the limit, not accumulated.
    const afterSequential = await procMemory(pid);
    const parallel = await Promise.all(
      [0, 1, 2].map(() =>
        upload(target, '/v1/setImpactedTargets', { ...json, 'transfer-encoding': 'chunked' }, 25 * MiB),
      ),
    );
    faults += parallel.length;
    expect(parallel.map((r) => r.status)).toEqual([413, 413, 413]);
    expect((await c.api('getQueue', QUEUE)).status).toBe(200);
    const afterParallel = await procMemory(pid);

    const deep = 100_000;
    await expectRefused(
      '100k [ truncated',
      post(target, '/v1/submitPullRequest', json, '['.repeat(deep)),
      400,
      /malformed JSON/,
    );
    await expectRefused(
      '100k [ ] balanced',
      post(target, '/v1/submitPullRequest', json, '['.repeat(deep) + ']'.repeat(deep)),
      400,
      /expected a JSON object/,
    );
    await expectRefused(
      '100k nested objects in repo',
      post(target, '/v1/getQueue', json, `{"targetBranch":"main","repo":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`),
      400,
      /repo\.host: required/,
    );
    await expectRefused(
      '100k { truncated',
      post(target, '/v1/getQueue', json, '{"a":'.repeat(deep)),
      400,
      /malformed JSON/,
    );

    const valid = JSON.stringify(QUEUE);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
    ]) {
      await expectRefused(
        `content-type ${type}`,
        post(target, '/v1/getQueue', { 'content-type': type }, valid),
        415,
        /content-type: application\/json/,
      );
    }
    await expectRefused(
      'content-type missing',
      post(target, '/v1/getQueue', {}, valid),
      415,
      /content-type: application\/json/,
    );
    // Parameters and case do not matter: these are JSON.
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const r = await post(target, '/v1/getQueue', { 'content-type': type }, valid);
      expect({ type, status: r.status }).toEqual({ type, status: 200 });
    }

    const utf8 = (bytes: number[]) =>
      Buffer.concat([
        Buffer.from(`{"repo":{"host":"github.com","owner":"ac`),
        Buffer.from(bytes),
        Buffer.from(`me","name":"${REPO.name}"},"targetBranch":"${BRANCH}","pr":{"number":1}}`),
      ]);
    await expectRefused(
      'invalid UTF-8 0xFF',
      post(target, '/v1/submitPullRequest', json, utf8([0xff, 0xfe])),
      400,
      /UTF-8/,
    );
    await expectRefused(
      'overlong UTF-8',
      post(target, '/v1/submitPullRequest', json, utf8([0xc0, 0xaf])),
      400,
      /UTF-8/,
    );
    await expectRefused(
      'UTF-8 surrogate',
      post(target, '/v1/submitPullRequest', json, utf8([0xed, 0xa0, 0x80])),
      400,
      /UTF-8/,
    );
    await expectRefused(
      'cut UTF-8 sequence',
      post(target, '/v1/submitPullRequest', json, utf8([0xe2, 0x82])),
      400,
      /UTF-8/,
    );

    await expectRefused(
      'truncated JSON',
      post(target, '/v1/submitPullRequest', json, '{"repo":{"host":"github.com","owner":"ac'),
      400,
      /malformed JSON/,
    );
    await expectRefused('empty body', post(target, '/v1/submitPullRequest', json, ''), 400, /expected a JSON object/);
    for (const body of ['[1,2,3]', '42', '"text"', 'null', 'true']) {
      await expectRefused(
        `top-level ${body}`,
        post(target, '/v1/submitPullRequest', json, body),
        400,
        /expected a JSON object/,
      );
    }

    polling = false;
    await poller;
    const after = await procMemory(pid);
    // Nothing hostile got in: no PR was ever submitted.
    expect((await c.api('listPullRequests', QUEUE)).text).toBe('{"pullRequests":[]}');
    expect(pollStatuses.length).toBeGreaterThan(3);
    expect(pollStatuses.filter((s) => s !== 200)).toEqual([]);
    expect(emu.child.exitCode).toBeNull();
    if (after) expect(after.hwmMiB).toBeLessThan(200);
    const stopped = await emu.stop('SIGTERM');
    expect(stopped.exitCode).toBe(0);
    console.log(
      `[stress] hostile bodies: faults injected=${faults} all refused 4xx; poller requests=${pollStatuses.length} all 200; ` +
        `emulator RSS at start=${before?.rssMiB.toFixed(1) ?? '?'} MiB; peak (VmHWM) after 6 sequential 25 MiB uploads=${afterSequential?.hwmMiB.toFixed(1) ?? '?'} MiB, ` +
        `after 3 parallel ones=${afterParallel?.hwmMiB.toFixed(1) ?? '?'} MiB, at the end=${after?.hwmMiB.toFixed(1) ?? '?'} MiB`,
    );
    console.log(`[stress] hostile answers: ${results.join(' ')}`);
  });
});

// ---- raw HTTP for bodies a normal client would never send -------------------------------------

interface Raw {
  status: number;
  body: string;
  type: string;
  written: number;
}

interface Target {
  hostname: string;
  port: number;
  token: string;
}

function post(t: Target, path: string, headers: Record<string, string>, body: string | Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: 'POST',
        path,
        headers: { 'x-api-token': t.token, 'content-length': String(Buffer.byteLength(body)), ...headers },
        timeout: 15_000,
      },
      (res) => collect(res, 0, resolve, reject),
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${path} within 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

function collect(
  res: import('node:http').IncomingMessage,
  written: number,
  resolve: (r: Raw) => void,
  reject: (e: Error) => void,
): void {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => (body += d));
  res.on('end', () =>
    resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? ''), written }),
  );
  res.on('error', reject);
}

/** Streams `total` bytes of JSON-looking filler in 1 MiB chunks, stopping once an answer arrives. */
function upload(t: Target, path: string, headers: Record<string, string>, total: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = httpRequest(
      { host: t.hostname, port: t.port, method: 'POST', path, headers: { 'x-api-token': t.token, ...headers } },
      (res) => {
        answered = true;
        collect(
          res,
          written,
          (r) => {
            req.destroy();
            resolve(r);
          },
          reject,
        );
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer to the ${total}-byte upload within 15 s`)), 15_000);
    req.on('close', () => clearTimeout(timer));
    // The server may close the connection once it has answered; a write error after that is expected.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const prefix = Buffer.from('{"impactedTargets":["');
    const chunk = Buffer.alloc(MiB, 0x61);
    req.write(prefix);
    written = prefix.length;
    const pump = () => {
      while (!answered && written < total) {
        const piece = total - written >= chunk.length ? chunk : chunk.subarray(0, total - written);
        written += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}
