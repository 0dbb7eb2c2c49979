/**
 * The v2 id cache (src/api/v2/ids.ts) at its edges: a queue deleted and created again (a new id; the
 * kept one answers 404 and is resolved again once), `queue delete` forgetting the id, two stores
 * writing one file, files that are torn, garbage, readable by others or a symlink, and what the
 * file holds (ids only, never the key).
 */
import { chmodSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { V2Client } from '../../src/api/v2/client.js';
import { fileIdStore } from '../../src/api/v2/ids.js';
import { type Client, queue } from '../emulator/http-helpers.js';
import { KEY, start, stop } from '../emulator/v2-helpers.js';
import { runMq } from '../helpers/in-process.js';
import { tempDir } from '../helpers/run-cli.js';

let c: Client;
/** Requests sent and answers' statuses, as `--debug` tells them. */
let log: string[];

beforeEach(async () => {
  c = await start();
  log = [];
  expect((await c.post('createQueue', queue)).status).toBe(200);
});
afterEach(stop);

function client(dir: string): V2Client {
  const http = new HttpClient({
    baseUrl: c.origin,
    api: 'v2',
    token: KEY,
    userAgent: 'mq-test',
    timeoutMs: 10_000,
    debug: (line) => {
      const m = /^(> [A-Z]+ \S+|< \d{3})/.exec(line);
      if (m) log.push((m[1] as string).replace(/^> (\w+) \S+?\/v2/, '$1 /v2'));
    },
  });
  return new V2Client(http, fileIdStore(dir, c.origin));
}

/** The one id file in `dir` (ids/ under MQ_CACHE_DIR for a command) as an object. */
function idFile(dir: string): { path: string; ids: Record<string, string> } {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  expect(names).toHaveLength(1);
  const path = join(dir, names[0] as string);
  return { path, ids: JSON.parse(readFileSync(path, 'utf8')) };
}

/** mq's environment for the v2 emulator, with its id cache in `cache`. */
const v2Env = (cache: string) => ({
  MQ_REPO: 'acme/app',
  MQ_BRANCH: 'main',
  MQ_API_URL: c.origin,
  MQ_TOKEN: KEY,
  MQ_CONFIG_DIR: tempDir('mq-v2-'),
  MQ_CACHE_DIR: cache,
});

const queueKeys = (ids: Record<string, string>) => Object.keys(ids).filter((k) => k.startsWith('queue '));

describe('a kept queue id', () => {
  it('of a queue deleted and created again answers 404 MERGE_QUEUE_NOT_FOUND and is resolved again once', async () => {
    const dir = tempDir('mq-ids-');
    expect(await client(dir).getQueueState(queue)).toBe('running');
    const [key] = queueKeys(idFile(dir).ids);
    const old = idFile(dir).ids[key as string];
    // Someone else deletes the queue and creates it again a minute later: a new id.
    expect((await c.post('deleteQueue', queue)).status).toBe(200);
    await c.advance(1);
    expect((await c.post('createQueue', queue)).status).toBe(200);
    const stale = await c.request('GET', `/v2/merge-queues/${old}`, undefined, {
      'x-api-token': '',
      authorization: `Bearer ${KEY}`,
    });
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.text).error.code).toBe('MERGE_QUEUE_NOT_FOUND');

    log = [];
    const second = client(dir);
    expect(await second.getQueueState(queue)).toBe('running');
    expect(log).toEqual([
      `GET /v2/merge-queues/${old}`,
      '< 404',
      expect.stringMatching(/^GET \/v2\/merge-queues\?repositoryId=[\w-]+&targetBranch=main$/),
      '< 200',
      expect.stringMatching(/^GET \/v2\/merge-queues\/\w+$/),
      '< 200',
    ]);
    const fresh = idFile(dir).ids[key as string];
    expect(fresh).toMatch(/^\w{8}$/);
    expect(fresh).not.toBe(old);
    // Kept: the next command reads the queue at once.
    log = [];
    await client(dir).getQueueState(queue);
    expect(log).toEqual([`GET /v2/merge-queues/${fresh}`, '< 200']);
  });

  it('is forgotten by `queue delete`; a later command on that branch is not found (exit 3)', async () => {
    const cache = tempDir('mq-cache-');
    const env = v2Env(cache);
    expect((await runMq(['queue', 'pause'], { env })).exitCode).toBe(0);
    expect(queueKeys(idFile(join(cache, 'ids')).ids)).toHaveLength(1);
    const del = await runMq(['queue', 'delete', '--yes'], { env });
    expect(del.exitCode, del.stderr).toBe(0);
    const { ids } = idFile(join(cache, 'ids'));
    expect(queueKeys(ids)).toEqual([]);
    expect(Object.keys(ids).some((k) => k.startsWith('repo '))).toBe(true);
    const after = await runMq(['queue', 'show'], { env });
    expect(after.exitCode).toBe(3);
    expect(after.stderr).toBe(
      'mq: find the queue for main: there is no merge queue for main\n' +
        'hint: list the queues with `mq queue show -B BRANCH`, or create one with `mq queue create`\n',
    );
  });
});

describe('a cold cache', () => {
  it('looks each id up once, even for reads in parallel', async () => {
    const cl = client(tempDir('mq-ids-'));
    await Promise.all([cl.getQueueState(queue), cl.getQueueState(queue), cl.getQueue(queue)]);
    expect(log.filter((l) => l.startsWith('GET /v2/repositories?'))).toHaveLength(1);
    expect(log.filter((l) => l.startsWith('GET /v2/merge-queues?'))).toHaveLength(1);
  });

  it('costs `mq submit` two requests more than a warm one: the repository and the queue', async () => {
    const env = v2Env(tempDir('mq-cache-'));
    const sent = async (args: string[]) => {
      const r = await runMq([...args, '--debug'], { env });
      expect(r.exitCode).toBe(0);
      return [...r.stderr.matchAll(/^mq: debug: > ([A-Z]+) \S+?\/v2\/([\w-]+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    };
    expect(await sent(['submit', '7'])).toEqual([
      'GET repositories',
      'GET merge-queues',
      'GET merge-queues',
      'POST merge-queues',
    ]);
    expect(await sent(['submit', '8'])).toEqual(['GET merge-queues', 'POST merge-queues']);
  });
});

describe('the id file', () => {
  const ORIGIN = 'https://api.trunk.io';

  it('two stores writing it keep each other’s ids', () => {
    const dir = tempDir('mq-ids-');
    const a = fileIdStore(dir, ORIGIN);
    const b = fileIdStore(dir, ORIGIN);
    a.set('repo github.com/acme/app', 'r-1');
    b.set('queue r-1 main', 'q1');
    a.set('pr r-1 7', 'p-7');
    b.drop('pr r-1 8');
    expect(idFile(dir).ids).toEqual({ 'repo github.com/acme/app': 'r-1', 'queue r-1 main': 'q1', 'pr r-1 7': 'p-7' });
    const c2 = fileIdStore(dir, ORIGIN);
    expect([c2.get('repo github.com/acme/app'), c2.get('queue r-1 main'), c2.get('pr r-1 7')]).toEqual([
      'r-1',
      'q1',
      'p-7',
    ]);
    // Another origin has a file of its own.
    expect(fileIdStore(dir, 'https://other.example').get('queue r-1 main')).toBeUndefined();
  });

  it.each([
    ['torn', '{"queue r-1 main":"q1","pr r-1 7":"p-'],
    ['garbage', '\u0000\u00ff not json'],
    ['a list', '["q1"]'],
    ['not ids', '{"queue r-1 main":"q1; rm -rf /","pr r-1 7":7,"repo x":{"id":"r"}}'],
  ])('a %s file is ignored, not a crash, and the next write replaces it', (_, text) => {
    const dir = tempDir('mq-ids-');
    fileIdStore(dir, ORIGIN).set('repo x', 'r-0');
    const { path } = idFile(dir);
    writeFileSync(path, text, { mode: 0o600 });
    const store = fileIdStore(dir, ORIGIN);
    expect(store.get('queue r-1 main')).toBeUndefined();
    expect(store.get('pr r-1 7')).toBeUndefined();
    store.set('queue r-1 main', 'q2');
    expect(idFile(dir).ids).toEqual({ 'queue r-1 main': 'q2' });
  });

  it('a file others can read (0644) is not trusted', () => {
    const dir = tempDir('mq-ids-');
    fileIdStore(dir, ORIGIN).set('queue r-1 main', 'q1');
    const { path } = idFile(dir);
    chmodSync(path, 0o644);
    const store = fileIdStore(dir, ORIGIN);
    expect(store.get('queue r-1 main')).toBeUndefined();
    store.set('pr r-1 7', 'p-7');
    expect(idFile(dir).ids).toEqual({ 'pr r-1 7': 'p-7' });
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
  });

  it('a symlink is not followed: not read, and a write replaces the link, not its target', () => {
    const dir = tempDir('mq-ids-');
    fileIdStore(dir, ORIGIN).set('queue r-1 main', 'q1');
    const { path } = idFile(dir);
    const elsewhere = join(tempDir('mq-elsewhere-'), 'ids.json');
    writeFileSync(elsewhere, '{"queue r-1 main":"planted"}', { mode: 0o600 });
    rmSync(path);
    symlinkSync(elsewhere, path);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    const store = fileIdStore(dir, ORIGIN);
    expect(store.get('queue r-1 main')).toBeUndefined();
    store.set('pr r-1 7', 'p-7');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"queue r-1 main":"planted"}');
  });

  it('holds ids only: after commands with a v2 key, no key, no token, nothing but id keys and ids, 0600', async () => {
    const cache = tempDir('mq-cache-');
    const env = v2Env(cache);
    for (const args of [
      ['submit', '7'],
      ['status', '7', '8'],
      ['queue', 'show'],
      ['cancel', '7'],
    ]) {
      expect((await runMq(args, { env })).exitCode).toBeLessThanOrEqual(3);
    }
    const { path, ids } = idFile(join(cache, 'ids'));
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(Object.keys(ids).length).toBeGreaterThanOrEqual(3);
    for (const [k, v] of Object.entries(ids)) {
      expect(k).toMatch(/^(repo github\.com\/acme\/app|queue [\w-]+ main|pr [\w-]+ \d+)$/);
      expect(v).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    }
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('trunk_v2_');
  });
});
