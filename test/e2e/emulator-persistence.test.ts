/**
 * `--data-dir`: state survives a restart, every acknowledged mutation is on disk before its answer
 * (so a kill -9 at any moment keeps it), and a corrupt state file is refused, named and left alone.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeEach, expect, it } from 'vitest';

import { startEmulator } from '../../src/emulator/index.js';
import { loadState } from '../../src/emulator/store.js';
import { Client, TOKEN, queue, startTestEmulator } from '../emulator/http-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mq-emu-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('restores queues, PRs, runs and the clock from the data dir', async () => {
  const first = await startTestEmulator({ dataDir: dir });
  await first.client.post('createQueue', { ...queue, concurrency: 2 });
  await first.client.post('submitPullRequest', { ...queue, pr: { number: 1 } });
  await first.client.post('submitPullRequest', { ...queue, pr: { number: 2 } });
  await first.client.advance(10);
  await first.client.post('submitPullRequest', { ...queue, pr: { number: 3 } });
  const before = await first.client.pr(3);
  await first.emu.close();

  const second = await startTestEmulator({ dataDir: dir });
  try {
    const c = second.client;
    expect([(await c.pr(1)).state, (await c.pr(2)).state]).toEqual(['merged', 'merged']);
    expect(await c.pr(3)).toEqual(before);
    // The run in flight keeps going from where the clock stopped.
    await c.advance(10);
    expect((await c.pr(3)).state).toBe('merged');
    expect(await c.runs()).toHaveLength(3);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  } finally {
    await second.emu.close();
  }
});

it('has each mutation on disk before it is acknowledged', async () => {
  const { emu, client } = await startTestEmulator({ dataDir: dir });
  try {
    await client.post('createQueue', queue);
    await Promise.all([1, 2, 3, 4, 5].map((n) => client.post('submitPullRequest', { ...queue, pr: { number: n } })));
    // Read the file while the emulator is still running: no close(), no final save.
    const onDisk = await loadState(dir);
    const entries = Object.values(onDisk!.queues)[0]!.entries;
    expect(Object.keys(entries).sort()).toEqual(['1', '2', '3', '4', '5']);
  } finally {
    await emu.close();
  }
});

it('refuses a corrupt state file, naming it, and does not overwrite it', async () => {
  const file = join(dir, 'state.json');
  await writeFile(file, '{"state": {"format": "mq-emulator-engine", "vers');
  await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(
    `emulator state file ${file} is corrupt`,
  );
  await writeFile(file, JSON.stringify({ state: { hello: 'world' } }));
  await expect(startEmulator({ dataDir: dir, port: 0, token: TOKEN })).rejects.toThrow(file);
  expect(await readFile(file, 'utf8')).toBe(JSON.stringify({ state: { hello: 'world' } }));
});

it('keeps every acknowledged mutation through kill -9 in the middle of a burst', async () => {
  // A real separate process is the only honest crash: bundle the emulator and run it in a child.
  const bundle = join(dir, 'emulator.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/emulator/index.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    external: ['prom-client'],
    logLevel: 'silent',
  });
  const data = join(dir, 'data');
  const script = `import { startEmulator } from ${JSON.stringify(bundle)};
const emu = await startEmulator({ dataDir: ${JSON.stringify(data)}, port: 0, token: ${JSON.stringify(TOKEN)}, clock: 'manual' });
process.stdout.write(emu.url + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (d: string) => resolve(d.trim()));
    child.once('exit', (code) => reject(new Error(`emulator child exited early (${code})`)));
  });
  const client = new Client({ url, token: TOKEN });
  expect((await client.post('createQueue', { ...queue, concurrency: 3 })).status).toBe(200);

  const acknowledged: number[] = [];
  let stop = false;
  const worker = async (start: number) => {
    for (let n = start; !stop; n += 4) {
      try {
        const a = await client.post('submitPullRequest', { ...queue, pr: { number: n } });
        if (a.status === 200) acknowledged.push(n);
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const workers = [1, 2, 3, 4].map(worker);
  while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5));
  child.kill('SIGKILL');
  stop = true;
  await Promise.all(workers);
  await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));

  const state = await loadState(data);
  const entries = Object.values(state!.queues)[0]!.entries;
  for (const n of acknowledged) expect(entries[String(n)], `PR ${n} was acknowledged`).toBeDefined();
}, 30_000);
